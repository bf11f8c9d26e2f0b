// Ready tool definitions for LLM function calling: name, description, JSON Schema from the contract, handler.
import { todoWriteInput } from '@agent-tasks/schema';
import { z } from 'zod';
import type { AgentTasksClient } from './client.ts';
import { refusalOf } from './errors.ts';

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Returns the text a model should read: the success answer or the refusal's `Error: …` text. Never throws. */
  handler(args: unknown): Promise<string>;
}

export const TODO_WRITE_DESCRIPTION = [
  'Record your task list for the current multi-step work (one item per concrete step) and mark items as the work moves.',
  'Every call sends the WHOLE list and replaces the previous one: to change one item, send the complete list with that item changed; to drop an item, send the list without it.',
  'Each item is only { content, status }: a short imperative line and one of pending, in_progress, completed. No ids, no priorities.',
  'Item text is trimmed; empty or repeated text is refused. Unless the workspace allows several, at most one item may be in_progress.',
  'A single-step task needs no list. An empty list clears it.',
].join(' ');

export const todoWriteJsonSchema = z.toJSONSchema(todoWriteInput, { io: 'input' }) as Record<string, unknown>;

export function todoWriteTool(client: AgentTasksClient): ToolDefinition {
  return {
    name: 'todo_write',
    description: TODO_WRITE_DESCRIPTION,
    inputSchema: todoWriteJsonSchema,
    async handler(args) {
      try {
        return (await client.todo.write(args as never)).message;
      } catch (error) {
        return refusalOf(error).message;
      }
    },
  };
}
