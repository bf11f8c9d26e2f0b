// Small shared contract pieces: ids, timestamps, paging.
import { z } from 'zod';
import { shown, shownKeys } from './shown.ts';
import { PAGE_MAX } from './limits.ts';

export const isoDate = z.string().describe('ISO-8601 timestamp');
export const id = z.string().min(1).max(100);
export const pageLimit = z
  .number({ error: 'Error: invalid input: `limit` must be a whole number from 1 to 100.' })
  .int({ error: 'Error: invalid input: `limit` must be a whole number from 1 to 100.' })
  .min(1, { error: 'Error: invalid input: `limit` must be a whole number from 1 to 100.' })
  .max(PAGE_MAX, { error: 'Error: invalid input: `limit` must be a whole number from 1 to 100.' });
/** A key's role: admin (keys, channels, settings), agent (opens sessions), member (a person: writes tasks), viewer (reads). */
export const role = z.enum(['admin', 'agent', 'member', 'viewer'], {
  error: (iss) => `Error: invalid input: \`role\` must be one of admin, agent, member, viewer (got ${shown(iss.input)}).`,
});
export type Role = z.infer<typeof role>;

/**
 * Where a live feed starts when no lastEventId is given: "now" (the default) streams only what changes from here on;
 * "start" first replays what was recorded. A lastEventId always resumes right after that event.
 */
export const feedFrom = z
  .enum(['now', 'start'], { error: 'Error: invalid input: `from` must be "now" or "start".' })
  .optional()
  .describe('Without lastEventId: "now" (default) streams new events only; "start" replays what was recorded first');

/**
 * The id of the last event a live feed sent, to resume after it: a whole number of at most 15 digits (every feed's ids
 * are revisions, sequence numbers or millisecond times); anything else ("1e309", "Infinity", 20 digits) is refused.
 */
export const lastEventId = z
  .string({ error: (iss) => `Error: invalid input: \`lastEventId\` must be a string of digits (got ${shown(iss.input)}).` })
  .regex(/^\d{1,15}$/, {
    error: (iss) =>
      `Error: invalid input: \`lastEventId\` must be the id of an event this feed sent: a whole number of at most 15 digits (got ${shown(iss.input)}).`,
  });

/** Input contract of a procedure that takes nothing. */
export const noInput = z.void();

/**
 * How a strict object's refusal lists the fields it takes, all read from its own shape: the required ones, then the
 * optional ones marked `?` (a field with a default is optional), each group in the shape's order, an optional
 * `listName` last. `lead` fields come first; `unlisted` ones are accepted without being shown; past `most` fields the
 * list ends in "…"; with `alternatives` each field is an object of its own (`{ todos } or { forkOf }`). A listed name the
 * shape lacks is skipped, so an object derived by `.omit()` or `.extend()` keeps the error and lists its own fields.
 */
export interface FieldListing {
  lead?: readonly string[];
  unlisted?: readonly string[];
  most?: number;
  alternatives?: boolean;
}

/** The fields of `shape` as a refusal lists them (see FieldListing), e.g. `{ id, listName? }`. */
export function fieldList(shape: Readonly<Record<string, z.ZodType>>, listing: FieldListing = {}): string {
  const known = Object.keys(shape);
  const optional = (key: string) => shape[key]!.safeParse(undefined).success;
  const shownField = (key: string) => (optional(key) ? `${key}?` : key);
  const rest = known.filter((key) => !listing.lead?.includes(key) && !listing.unlisted?.includes(key));
  const last = (key: string) => key === 'listName' && optional(key);
  const keys = [
    ...(listing.lead ?? []).filter((key) => known.includes(key)),
    ...rest.filter((key) => !optional(key)),
    ...rest.filter((key) => optional(key) && !last(key)),
    ...rest.filter(last),
  ];
  if (listing.alternatives) return keys.map((key) => `{ ${key} }`).join(' or ');
  const listed = keys.slice(0, listing.most ?? keys.length).map(shownField);
  return `{ ${listed.join(', ')}${keys.length > listed.length ? ', …' : ''} }`;
}

/** What a strict object's refusal needs of its issue: the code, unknown keys, and the object schema that refused. */
export interface StrictIssue {
  code?: string;
  keys?: string[];
  inst?: unknown;
}

const shapeOf = (inst: unknown): Record<string, z.ZodType> =>
  (inst as { _zod: { def: { shape: Record<string, z.ZodType> } } })._zod.def.shape;

/** The error of a strict object: names unknown fields, or says which object was expected, its fields read from its shape. */
export const unknownField =
  (listing: FieldListing = {}) =>
  (iss: StrictIssue) =>
    iss.code === 'unrecognized_keys'
      ? `Error: invalid input: unknown field ${shownKeys(iss.keys ?? [])}.`
      : `Error: invalid input: expected an object ${fieldList(shapeOf(iss.inst), listing)}.`;
