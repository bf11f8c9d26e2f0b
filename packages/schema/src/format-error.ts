// Turns a zod validation failure into the one clear "Error: …" line a caller (or a model) reads; JSON Schema export.
import { toJSONSchema, type z } from 'zod';
import { NON_EMPTY_CONTENT_ERROR } from './todo.ts';

/** Texts a seed gives word for word: never rewritten, the item's place is added after them. */
const SEED_TEXTS = new Set([NON_EMPTY_CONTENT_ERROR]);

/** A path as a caller writes it: `todos[3].content`, `tasks[7].action`, `metadata`. */
export function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
}

/**
 * Names the item a contract's own message is about: a field inside a list or an object gets its whole path
 * (`content` at todos[3] → `todos[3].content`); a message about a whole list item says where it is.
 */
function placed(issue: z.core.$ZodIssue): string {
  const { message, path } = issue;
  if (path.length < 2 && typeof path[0] !== 'number') return message;
  const where = pathText(path);
  if (SEED_TEXTS.has(message)) return `${message} At \`${where}\`.`;
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.reduce((text, key) => text.replace(`\`${key}\``, `\`${pathText([...path, key])}\``), message);
  }
  // The field the message names is the last key of the path (`content` of todos[3], `blockedBy` of blockedBy[2]).
  const key = [...path].reverse().find((p) => typeof p === 'string');
  if (typeof key === 'string' && message.includes(`\`${key}\``)) return message.replace(`\`${key}\``, `\`${where}\``);
  if (message.includes(`\`${where}\``)) return message;
  return `${message} At \`${where}\`.`;
}

export function formatZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Error: invalid input.';
  if (issue.message.startsWith('Error:')) return placed(issue);
  const where = issue.path.length ? `\`${pathText(issue.path)}\`: ` : '';
  return `Error: invalid input: ${where}${issue.message}`;
}

/**
 * Drops what costs a model tokens and says nothing to it: `$schema`, the ±2^53 bounds of every integer,
 * `propertyNames: string`; a nullable value is one `type: [T, "null"]`. The schema accepts the same inputs.
 */
function lean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(lean);
  if (!node || typeof node !== 'object') return node;
  // { anyOf: [{ type: T, …bounds }, { type: "null" }] } says the same as { type: [T, "null"], …bounds }.
  const anyOf = (node as { anyOf?: { type?: unknown }[] }).anyOf;
  if (anyOf?.length === 2 && typeof anyOf[0]?.type === 'string' && JSON.stringify(anyOf[1]) === '{"type":"null"}') {
    const { anyOf: _, ...rest } = node as Record<string, unknown>;
    return lean({ ...rest, ...anyOf[0], type: [anyOf[0].type, 'null'] });
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if ((key === 'maximum' && value === Number.MAX_SAFE_INTEGER) || (key === 'minimum' && value === Number.MIN_SAFE_INTEGER)) continue;
    if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    if (key === 'additionalProperties' && JSON.stringify(value) === '{}') continue;
    out[key] = lean(value);
  }
  return out;
}

/** The JSON Schema (draft 2020-12) of a contract's input, for LLM tool definitions. */
export const jsonSchemaOf = (schema: z.ZodType) => lean(toJSONSchema(schema, { io: 'input' })) as Record<string, unknown>;
