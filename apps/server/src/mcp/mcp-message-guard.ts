// Checks the JSON-RPC messages of an MCP request before the MCP SDK parses them, with the guard every tRPC input passes:
// the SDK's contracts silently drop a `__proto__` key, and answer malformed messages and arguments that are no object with
// a raw contract dump instead of an `Error:` text.
import { inputProblem } from '@agent-tasks/schema';

type Message = { id?: unknown; method?: unknown; params?: unknown; jsonrpc?: unknown };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/** Why one message may not reach the SDK (an `Error: …` text), and whether it is a tool call (answered as a tool error). */
function messageProblem(message: unknown): { text: string; toolCall: boolean } | null {
  if (!isObject(message) || message.jsonrpc !== '2.0' || !('method' in message || 'result' in message || 'error' in message)) {
    return {
      text: 'Error: invalid request: not a JSON-RPC 2.0 message ({ "jsonrpc": "2.0", "method", "params"?, "id"? }).',
      toolCall: false,
    };
  }
  const { method, params } = message as Message;
  if (method === 'tools/call' && (!isObject(params) || typeof params.name !== 'string')) {
    return { text: 'Error: invalid request: tools/call takes params { name, arguments? }, with `name` a tool name.', toolCall: false };
  }
  if (method === 'tools/call' && isObject(params) && 'arguments' in params) {
    const args = params.arguments;
    if (!isObject(args)) {
      return { text: `Error: invalid input: a tool's arguments must be a JSON object (got ${kindOf(args)}).`, toolCall: true };
    }
    const text = inputProblem(args);
    if (text) return { text, toolCall: true };
  }
  const text = inputProblem(message);
  return text ? { text, toolCall: false } : null;
}

/**
 * The answer to a request holding a message no tool or SDK contract should see, or null when every message is fine:
 * a tool call is answered as the tool's error (like every other refusal of its input), anything else as a JSON-RPC
 * error; nothing is run.
 */
export function mcpMessageRefusal(body: unknown): Response | null {
  const messages = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    const problem = messageProblem(message);
    if (!problem) continue;
    const id = isObject(message) && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : null;
    if (problem.toolCall && id !== null && !Array.isArray(body)) {
      return Response.json({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: problem.text }], isError: true } });
    }
    return Response.json({ jsonrpc: '2.0', id, error: { code: -32602, message: problem.text } }, { status: 400 });
  }
  return null;
}
