// Turns a zod validation failure into the one clear "Error: …" line a caller (or a model) reads; JSON Schema export.
import { toJSONSchema, type z } from 'zod';
import { shown, shownKeys } from './shown.ts';
import { NON_EMPTY_CONTENT_ERROR } from './todo.ts';

/** Texts a seed gives word for word: never rewritten, the item's place is added after them. */
const SEED_TEXTS = new Set([NON_EMPTY_CONTENT_ERROR]);

/** How a contract's own refusal opens. */
const INVALID_INPUT = 'Error: invalid input: ';

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
  if (path.length === 0) return message;
  // A top-level field its message already names (in words or backticks) needs no place added; "invalid input" in the
  // message's opening names no field (not a field `input`).
  const said = message.startsWith(INVALID_INPUT) ? message.slice(INVALID_INPUT.length) : message;
  if (path.length === 1 && typeof path[0] === 'string' && said.includes(path[0])) return message;
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

const KINDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
};
const got = (value: unknown) => (value === undefined || value === MISSING ? '' : ` (got ${shown(value)})`);
const unit = (origin: unknown, n: number | bigint) =>
  origin === 'string' ? ` ${n} characters` : origin === 'array' || origin === 'set' ? ` ${n} items` : ` ${n}`;

/** What a value at `path` of `root` is, or MISSING when the path does not reach one. */
const MISSING = Symbol('missing');
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return MISSING;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/**
 * The value an issue is about. zod keeps it on the issue only when asked (`reportInput`), so it is looked up in the
 * raw input when the caller gives it; without either, only whether it was missing is known (zod's own text says
 * "received undefined").
 */
function valueOf(issue: z.core.$ZodIssue, raw: { input: unknown } | undefined): unknown {
  if ('input' in issue) return issue.input;
  if (raw) return valueAt(raw.input, issue.path);
  return issue.code === 'invalid_type' && /received undefined$/.test(issue.message) ? MISSING : undefined;
}

/** Our own wording for a zod issue whose contract gave none: what the field must be, never the library's text. */
function worded(issue: z.core.$ZodIssue, value: unknown): string {
  const field = issue.path.length ? `\`${pathText(issue.path)}\`` : 'the input';
  const i = issue as z.core.$ZodIssue & {
    expected?: string;
    origin?: string;
    maximum?: number | bigint;
    minimum?: number | bigint;
    values?: unknown[];
    format?: string;
    keys?: string[];
  };
  switch (issue.code) {
    case 'invalid_type':
      return value === MISSING && issue.path.length
        ? `${field} is required.`
        : `${field} must be ${KINDS[i.expected ?? ''] ?? i.expected}${got(value)}.`;
    case 'too_big':
      return `${field} must be at most${unit(i.origin, i.maximum ?? 0)}.`;
    case 'too_small':
      return i.origin === 'string' && i.minimum === 1
        ? `${field} must not be empty.`
        : `${field} must be at least${unit(i.origin, i.minimum ?? 0)}.`;
    case 'invalid_value':
      return `${field} must be ${(i.values ?? []).map((v) => JSON.stringify(v)).join(' or ')}${got(value)}.`;
    case 'unrecognized_keys':
      return `unknown field ${shownKeys((i.keys ?? []).map((k) => pathText([...issue.path, k])))}.`;
    case 'invalid_format':
      return `${field} must be a valid ${i.format ?? 'value'}.`;
    case 'not_multiple_of':
      return `${field} is not an allowed number.`;
    default:
      return `${field} is not valid.`;
  }
}

/**
 * The refusal text of a failed parse. Give the raw input that was parsed (`{ input }`) so a wrong value is told from a
 * missing one and quoted; zod's issues do not carry it.
 */
export function formatZodError(error: z.ZodError, raw?: { input: unknown }): string {
  const issue = error.issues[0];
  if (!issue) return 'Error: invalid input.';
  if (issue.message.startsWith('Error:')) return placed(issue);
  return `Error: invalid input: ${worded(issue, valueOf(issue, raw))}`;
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
    // An enum lists null among its values too, or `enum` would still refuse it.
    const values = (anyOf[0] as { enum?: unknown[] }).enum;
    return lean({ ...rest, ...anyOf[0], type: [anyOf[0].type, 'null'], ...(values ? { enum: [...values, null] } : {}) });
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
