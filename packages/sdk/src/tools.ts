// The tool kit for agent runtimes: every tool of the core tool kit bound to a client, in the generic, OpenAI and
// Anthropic shapes, and a dispatcher that answers a model's tool call with the text the model should read.
import { type ToolApi, type ToolSpec, runToolSpecs, taskToolSpecs, todoTools, toolApiOf, toolHandlers, toolKit } from '@agent-tasks/core';
import { jsonSchemaOf } from '@agent-tasks/schema';
import type { AgentTasksClient } from './client.ts';
import { refusalOf } from './errors.ts';

export { TODO_WRITE_DESCRIPTION, runDirective, taskLine } from '@agent-tasks/core';

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the input, generated from the zod contract. */
  inputSchema: Record<string, unknown>;
  /** Returns the text a model should read: the success answer or the refusal's `Error: …` text. Never throws. */
  handler(args: unknown): Promise<string>;
}

/** The calls the tools make, through this client: its groups of the same names (`todos`, `tasks`, `runs`). */
export const apiOf = (client: AgentTasksClient): ToolApi => toolApiOf(client);

/** Every tool (or the given ones) bound to a client acting as a session. */
export function agentTools(client: AgentTasksClient, specs: readonly ToolSpec[] = toolKit): ToolDefinition[] {
  const handlers = toolHandlers(apiOf(client), (error) => refusalOf(error).message, specs);
  return handlers.list().map((tool) => ({ ...tool, handler: async (args) => (await handlers.call(tool.name, args)).text }));
}

export const todoWriteTool = (client: AgentTasksClient) => agentTools(client, todoTools)[0] as ToolDefinition;
export const taskTools = (client: AgentTasksClient) => agentTools(client, taskToolSpecs);
export const runTools = (client: AgentTasksClient) => agentTools(client, runToolSpecs);
export const todoWriteJsonSchema = jsonSchemaOf(todoTools[0]?.input as ToolSpec['input']);

/** OpenAI's function tools (Chat Completions `tools`). */
export const openAITools = (tools: readonly ToolDefinition[]) =>
  tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.inputSchema } }));

/** Anthropic's tool definitions (Messages API `tools`). */
export const anthropicTools = (tools: readonly ToolDefinition[]) =>
  tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));

/** A model's tool call: its name and its arguments, as the JSON text models send or already parsed. */
export interface ToolCall {
  name: string;
  arguments: string | Record<string, unknown> | undefined;
}

/** Takes a model's tool call and returns the text to hand back to the model; never throws. */
export function createDispatcher(tools: readonly ToolDefinition[]) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return async (call: ToolCall): Promise<string> => {
    const tool = byName.get(call.name);
    if (!tool) return `Error: unknown tool "${call.name}"; available tools: ${[...byName.keys()].join(', ')}.`;
    let args: unknown = call.arguments ?? {};
    if (typeof args === 'string') {
      try {
        args = args.trim() === '' ? {} : JSON.parse(args);
      } catch (error) {
        return `Error: invalid arguments for ${call.name}: not valid JSON (${error instanceof Error ? error.message : String(error)}).`;
      }
    }
    return tool.handler(args);
  };
}
