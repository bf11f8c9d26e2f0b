// Small shared contract pieces: ids, timestamps, paging.
import { z } from 'zod';
import { PAGE_MAX } from './limits.ts';

export const isoDate = z.string().describe('ISO-8601 timestamp');
export const id = z.string().min(1).max(100);
export const pageLimit = z
  .number({ error: 'Error: invalid input: `limit` must be a whole number from 1 to 100.' })
  .int({ error: 'Error: invalid input: `limit` must be a whole number from 1 to 100.' })
  .min(1, { error: 'Error: invalid input: `limit` must be a whole number from 1 to 100.' })
  .max(PAGE_MAX, { error: 'Error: invalid input: `limit` must be a whole number from 1 to 100.' });
export const role = z.enum(['admin', 'agent', 'viewer'], {
  error: (iss) => `Error: invalid input: \`role\` must be one of admin, agent, viewer (got ${JSON.stringify(iss.input)}).`,
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

/** Input contract of a procedure that takes nothing. */
export const noInput = z.void();

/** The error of a strict object: names unknown fields, or says which object was expected. */
export const unknownField = (what: string) => (iss: { code?: string; keys?: string[] }) =>
  iss.code === 'unrecognized_keys'
    ? `Error: invalid input: unknown field ${(iss.keys ?? []).map((k) => `\`${k}\``).join(', ')}.`
    : `Error: invalid input: expected an object ${what}.`;
