// Contracts of a task's priority and labels, its comments and full-text search over a list (issue 25).
import { z } from 'zod';
import { shown } from './shown.ts';
import { isoDate } from './common.ts';
import { TASK_COMMENT_MAX, TASK_LABEL_MAX, TASK_LABELS_MAX, TASK_QUERY_MAX, TASK_SEARCH_PAGE_MAX } from './limits.ts';

export const priorities = ['P0', 'P1', 'P2', 'P3', 'P4'] as const;
/** P0 is the most urgent; a task without one comes after P4. */
export const priority = z.enum(priorities, {
  error: (iss) => `Error: invalid task: \`priority\` must be one of P0, P1, P2, P3, P4 (got ${shown(iss.input)}).`,
});
export type Priority = z.infer<typeof priority>;

const label = z
  .string({ error: 'Error: invalid task: each label must be a string.' })
  .trim()
  .min(1, { error: 'Error: invalid task: a label must not be empty.' })
  .max(TASK_LABEL_MAX, {
    error: (iss) =>
      `Error: invalid task: a label must be at most ${TASK_LABEL_MAX} characters (got ${typeof iss.input === 'string' ? [...iss.input.trim()].length : 0}: ${shown(iss.input)}).`,
  });

/** A task's whole set of labels (repeats kept once, in the order given). */
export const labels = z
  .array(label, { error: 'Error: invalid task: `labels` must be an array of strings.' })
  .max(TASK_LABELS_MAX, {
    error: (iss) =>
      `Error: invalid task: \`labels\` may hold at most ${TASK_LABELS_MAX} labels (got ${Array.isArray(iss.input) ? iss.input.length : 0}).`,
  })
  .transform((ls) => [...new Set(ls)]);

/** TaskList's filter by one label or priority level: one value or several (any of them). */
export const priorityFilter = z
  .union([priority, z.array(priority)], {
    error: (iss) => `Error: invalid input: \`priority\` must be one of P0, P1, P2, P3, P4, or a list of them (got ${shown(iss.input)}).`,
  })
  .optional();
export const labelFilter = label.optional();

export const query = z
  .string({ error: 'Error: invalid input: `query` must be a string.' })
  .trim()
  .min(1, { error: 'Error: invalid input: `query` must not be empty.' })
  .max(TASK_QUERY_MAX, { error: `Error: invalid input: \`query\` must be at most ${TASK_QUERY_MAX} characters.` });

export const commentBody = z
  .string({ error: 'Error: invalid comment: `body` must be a string.' })
  .trim()
  .min(1, { error: 'Error: invalid comment: `body` must not be empty.' })
  .max(TASK_COMMENT_MAX, {
    error: (iss) =>
      `Error: invalid comment: \`body\` must be at most ${TASK_COMMENT_MAX} characters (got ${typeof iss.input === 'string' ? [...iss.input].length : 0}).`,
  });

export const taskComment = z.object({
  id: z.number().int(),
  taskId: z.string(),
  body: z.string(),
  author: z.string().describe("The key's name for a person, the session's agent name for an agent"),
  by: z.enum(['person', 'agent']),
  at: isoDate,
});
export type TaskComment = z.infer<typeof taskComment>;
export const taskComments = z.object({
  count: z.number().int(),
  newest: z.array(taskComment).describe('The newest comments, newest first'),
});

export const taskSearchHit = z.object({
  id: z.string(),
  ref: z.string(),
  subject: z.string(),
  status: z.string(),
  rank: z.number().describe('Higher is a better match'),
  snippet: z.string().describe('Where the words matched, each match between [ and ]'),
});
export type TaskSearchHit = z.infer<typeof taskSearchHit>;
export const taskSearchOutput = z.object({ listName: z.string(), hits: z.array(taskSearchHit) });
export const searchLimit = z.number().int().min(1).max(TASK_SEARCH_PAGE_MAX).optional();
