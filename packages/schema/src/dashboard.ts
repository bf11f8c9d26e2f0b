// Contracts of the dashboard's reads: the session tree, task lists and graphs, the outbox, and the live signals behind them.
import { z } from 'zod';
import { id, isoDate, lastEventId, pageLimit, unknownField } from './common.ts';
import { session } from './session.ts';
import { listName, task } from './task.ts';
import { todoCounts } from './todo.ts';

/** One session in the workspace tree: pre-order, each subagent right after its parent, `depth` levels below it. */
export const sessionTreeNode = z.object({
  session,
  depth: z.number().int().describe('0 for a top-level session, parent depth + 1 for a subagent'),
  children: z.number().int().describe('How many subagent sessions this one opened'),
  counts: todoCounts,
  revision: z.number().int().describe('Revision of its todo list (0: no list yet)'),
  lastActivityAt: isoDate.describe('Its latest todo update, or its opening when it has none'),
});
export type SessionTreeNode = z.infer<typeof sessionTreeNode>;
export const sessionTreeOutput = z.object({ sessions: z.array(sessionTreeNode) });

/** A signal that a session of the workspace changed (opened, a turn, a todo update): readers refetch the tree. */
export const sessionActivity = z.object({
  sessionId: z.string(),
  kind: z.enum(['opened', 'turn', 'todo']),
  at: isoDate,
});
export type SessionActivity = z.infer<typeof sessionActivity>;
export const sessionWatchTreeInput = z.strictObject({ lastEventId: lastEventId.optional() }, { error: unknownField() }).default({});

export const taskListInfo = z.object({
  name: z.string(),
  createdAt: isoDate,
  counts: z.object({ pending: z.number().int(), inProgress: z.number().int(), completed: z.number().int() }),
});
export const taskListsOutput = z.object({ lists: z.array(taskListInfo) });

export const taskGraphInput = z.strictObject({ listName: listName.optional() }, { error: unknownField() }).default({});
export const taskGraphNode = task.extend({
  unresolvedBlockers: z.array(z.string()).describe('Blockers neither completed nor deleted'),
  ready: z.boolean().describe('Pending with every blocker resolved'),
});
export type TaskGraphNode = z.infer<typeof taskGraphNode>;
export const taskGraphOutput = z.object({
  listName: z.string(),
  tasks: z.array(taskGraphNode).describe('Every task of the list but deleted ones, oldest first'),
  waves: z.array(z.array(z.string())).describe('Remaining tasks that can run together, wave by wave'),
  criticalPath: z.array(z.string()).describe('The longest chain of dependent remaining tasks'),
  lastChangeSeq: z.number().int().describe('Feed position of the latest change: watch the list after it'),
});
export type TaskGraph = z.infer<typeof taskGraphOutput>;

export const outboxListInput = z.strictObject({ limit: pageLimit.default(50) }, { error: unknownField() }).default({ limit: 50 });
export const outboxMessageView = z.object({
  id: z.string(),
  channelId: z.string(),
  url: z.string(),
  runId: z.string(),
  kind: z.enum(['checklist_ready', 'all_tasks_done']),
  state: z
    .enum(['delivered', 'retrying', 'pending', 'dead'])
    .describe('retrying: at least one attempt failed; dead: retries outlived the maximum age and stopped (an admin can retry it)'),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  nextAttemptAt: isoDate.nullable().describe('When the next attempt is due; null once delivered or dead'),
  deliveredAt: isoDate.nullable(),
  deadAt: isoDate.nullable().describe('When delivery was given up; null unless dead'),
  createdAt: isoDate,
});
export type OutboxMessageView = z.infer<typeof outboxMessageView>;
export const outboxRetryInput = z.strictObject({ id }, { error: unknownField() });
export const outboxListOutput = z.object({ messages: z.array(outboxMessageView) });

export const runLinkWatchInput = z.strictObject({ runId: id, lastEventId: lastEventId.optional() }, { error: unknownField() });
