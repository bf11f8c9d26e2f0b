// Contracts of the checklist run tool (seed 002): start, intake, step, revise, blockers, the run view and its card.
import { z } from 'zod';
import { id, isoDate, unknownField } from './common.ts';
import { RUN_NAME_MAX, RUN_NOTE_MAX, RUN_STEP_TEXT_MAX, RUN_TASKS_MAX, RUN_TEXT_MAX } from './limits.ts';

const bounded = (field: string, max: number) =>
  z
    .string({ error: `Error: invalid input: \`${field}\` must be a non-empty string.` })
    .trim()
    .min(1, { error: `Error: invalid input: \`${field}\` must be a non-empty string.` })
    .max(max, { error: (iss) => `Error: invalid input: \`${field}\` must be at most ${max} characters (got ${[...String(iss.input)].length}).` });

/** A checklist task: exactly an action and its expected result; its position is its identity. */
export const runTask = z.strictObject(
  {
    action: bounded('action', RUN_TEXT_MAX).describe('The self-contained work to perform'),
    expected_result: bounded('expected_result', RUN_TEXT_MAX).describe('The observable condition that proves completion'),
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `Error: invalid input: unknown task field ${(iss.keys ?? []).map((k) => `\`${k}\``).join(', ')}; a task is only \`action\` and \`expected_result\` (no ids, cursors, totals, statuses or result codes).`
        : 'Error: invalid input: each task must be an object { action, expected_result }.',
  },
);
export type RunTask = z.infer<typeof runTask>;

export const runTasks = z
  .array(runTask, { error: 'Error: invalid input: `tasks` must be an array of { action, expected_result }.' })
  .min(1, { error: `Error: invalid input: a checklist holds 1 to ${RUN_TASKS_MAX} tasks (got 0).` })
  .max(RUN_TASKS_MAX, {
    error: (iss) => `Error: invalid input: a checklist holds 1 to ${RUN_TASKS_MAX} tasks (got ${(iss.input as unknown[]).length}).`,
  });

const position = (field: string) =>
  z
    .number({ error: `Error: invalid input: \`${field}\` must be a task position (a whole number from 1).` })
    .int({ error: `Error: invalid input: \`${field}\` must be a task position (a whole number from 1).` })
    .min(1, { error: `Error: invalid input: \`${field}\` must be a task position (a whole number from 1).` });

export const runPrepareInput = z.strictObject(
  {
    parentExecutionId: z
      .string({ error: 'Error: invalid input: `parentExecutionId` must be a run id or "none".' })
      .min(1)
      .max(100)
      .describe('The parent run of a child run, or "none"'),
    skipNotificationCheck: z.boolean().optional().describe('Start even though the workspace has no notification channel'),
  },
  { error: unknownField('{ parentExecutionId, skipNotificationCheck? }') },
);
export const runPrepareOutput = z.object({ startAttemptId: z.string() });
export const runExecuteInput = z.strictObject({ startAttemptId: id }, { error: unknownField('{ startAttemptId }') });

export const runIntakeInput = z.strictObject(
  {
    runId: id,
    name: bounded('name', RUN_NAME_MAX).describe('The actual task name: the run heading'),
    tasks: runTasks,
    progress_checklist_outcome: bounded('progress_checklist_outcome', RUN_STEP_TEXT_MAX).describe('Checklist synopsis shown on the card'),
    execution_note: bounded('execution_note', RUN_NOTE_MAX).optional().describe('Free note; never a heading'),
    needs: z
      .array(z.strictObject({ task: position('needs.task'), needs: z.array(position('needs.needs')).min(1).max(RUN_TASKS_MAX) }), {
        error: 'Error: invalid input: `needs` must be an array of { task, needs: [positions] }.',
      })
      .max(RUN_TASKS_MAX)
      .optional()
      .describe('Which tasks need which others\' results (positions in the written list)'),
    remarks: z
      .array(z.strictObject({ text: bounded('remarks.text', RUN_TEXT_MAX), tasks: z.array(position('remarks.tasks')).min(1).max(RUN_TASKS_MAX) }), {
        error: 'Error: invalid input: `remarks` must be an array of { text, tasks: [positions] }.',
      })
      .max(RUN_TASKS_MAX)
      .optional()
      .describe('Remarks that govern the whole job, attached to the tasks they constrain; never executed as tasks'),
  },
  { error: unknownField('{ runId, name, tasks, progress_checklist_outcome, execution_note?, needs?, remarks? }') },
);
export type RunIntakeInput = z.infer<typeof runIntakeInput>;

export const runStepInput = z.strictObject(
  {
    runId: id,
    task: position('task').describe('The task number this acknowledges (the current one); a stale number is refused'),
    attemptId: z.string().min(1).max(100).optional().describe('Idempotency key: a retried step with the same attempt answers the same'),
    evidence: bounded('evidence', RUN_STEP_TEXT_MAX),
    progress_execution_outcome: bounded('progress_execution_outcome', RUN_STEP_TEXT_MAX),
  },
  { error: unknownField('{ runId, task, evidence, progress_execution_outcome, attemptId? }') },
);

export const runReviseInput = z.strictObject(
  {
    runId: id,
    tasks: runTasks.describe('The complete corrected checklist; executed tasks keep their positions unchanged'),
    resume_from_task: position('resume_from_task'),
    name: bounded('name', RUN_NAME_MAX).optional().describe('New run name; applied only when the scope changed'),
    progress_checklist_outcome: bounded('progress_checklist_outcome', RUN_STEP_TEXT_MAX),
    progress_execution_outcome: bounded('progress_execution_outcome', RUN_STEP_TEXT_MAX),
  },
  { error: unknownField('{ runId, tasks, resume_from_task, progress_checklist_outcome, progress_execution_outcome, name? }') },
);

export const runBlockerInput = z.strictObject(
  { runId: id, blocker: bounded('blocker', RUN_STEP_TEXT_MAX).nullable().describe('The verified blocker; null clears it') },
  { error: unknownField('{ runId, blocker }') },
);
export const runRef = z.strictObject({ runId: id }, { error: unknownField('{ runId }') });

export const runStatus = z.enum(['intake', 'running', 'completed']);
export const runMove = z.object({
  task: z.number().int().describe('Position in the written list'),
  from: z.number().int(),
  to: z.number().int(),
  because: z.string().describe('The dependency behind the move'),
});
export type RunMove = z.infer<typeof runMove>;

export const runWorkTask = z.object({
  title: z.string(),
  state: z.enum(['done', 'in_progress', 'pending']),
  outcome: z.string(),
  timeMs: z.number().int(),
  remarks: z.array(z.string()),
});

export const runView = z.object({
  id: z.string(),
  flow: z.literal('Todo List'),
  name: z.string().nullable(),
  status: runStatus,
  sessionId: z.string(),
  parentRunId: z.string().nullable(),
  executionNote: z.string().nullable(),
  tasks: z.array(z.object({ action: z.string(), expected_result: z.string() })),
  cursor: z.number().int(),
  total: z.number().int(),
  current: z.object({ label: z.string(), action: z.string(), expected_result: z.string() }).nullable(),
  moves: z.array(runMove),
  remarks: z.array(z.object({ text: z.string(), tasks: z.array(z.number().int()) })),
  blocker: z.string().nullable(),
  blocks: z.object({
    checklist: z.object({ synopsis: z.string() }),
    prepare: z.object({ length: z.number().int(), cursor: z.number().int(), action: z.string().nullable(), expected_result: z.string().nullable() }),
    work: z.object({
      label: z.string(),
      tasks: z.array(runWorkTask),
      currentTask: z.number().int(),
      totalTasks: z.number().int(),
      done: z.number().int(),
      inProgress: z.number().int().nullable(),
      synopsis: z.string(),
    }),
  }),
  output: z.object({}).nullable().describe('The terminal output, {} once the run completes'),
  revision: z.number().int(),
  version: z.number().int(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type RunView = z.infer<typeof runView>;

export const runStepRecord = z.object({
  seq: z.number().int(),
  label: z.string().describe('"Task N/M", "Revise checklist", "Checklist intake" or "Blocker"'),
  kind: z.enum(['intake', 'step', 'revise', 'blocker']),
  task: z.number().int().nullable(),
  evidence: z.string().nullable(),
  outcome: z.string().nullable(),
  at: isoDate,
});
export const runHistoryOutput = z.object({ steps: z.array(runStepRecord) });
export const runListOutput = z.object({ runs: z.array(runView) });
export const runCardOutput = z.object({ svg: z.string() });
export const runWatchInput = z.strictObject({ runId: id, lastEventId: z.string().optional() });
export const runEvent = z.object({ version: z.number().int(), run: runView });
export type RunEvent = z.infer<typeof runEvent>;

export const runNotificationsOutput = z.object({
  notifications: z.array(
    z.object({ kind: z.enum(['checklist_ready', 'all_tasks_done']), channelId: z.string(), attempts: z.number().int(), delivered: z.boolean(), lastError: z.string().nullable() }),
  ),
});
export const runListInput = z.strictObject({ sessionId: id.optional() }, { error: unknownField('{ sessionId? }') }).default({});
