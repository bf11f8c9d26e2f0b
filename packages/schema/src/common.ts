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

/** The error of a strict object: names unknown fields, or says which object was expected. */
export const unknownField = (what: string) => (iss: { code?: string; keys?: string[] }) =>
  iss.code === 'unrecognized_keys'
    ? `Error: invalid input: unknown field ${shownKeys(iss.keys ?? [])}.`
    : `Error: invalid input: expected an object ${what}.`;
