// Contracts of the checklist run tool (seed 002): start, intake, step, revise, blockers, the run view and its card.
import { z } from 'zod';
import { shownKeys } from './shown.ts';
import { feedFrom, id, isoDate, lastEventId, unknownField } from './common.ts';
import { RUN_NAME_MAX, RUN_NOTE_MAX, RUN_PERSON_NOTE_MAX, RUN_STEP_TEXT_MAX, RUN_TASKS_MAX, RUN_TEXT_MAX } from './limits.ts';

const bounded = (field: string, max: number) =>
  z
    .string({ error: `Error: invalid input: \`${field}\` must be a non-empty string.` })
    .trim()
    .min(1, { error: `Error: invalid input: \`${field}\` must be a non-empty string.` })
    .max(max, {
      error: (iss) =>
        `Error: invalid input: \`${field}\` must be at most ${max} characters (got ${typeof iss.input === 'string' ? [...iss.input].length : 0}).`,
    });

/** A checklist task: exactly an action and its expected result; its position is its identity. */
export const runTask = z.strictObject(
  {
    action: bounded('action', RUN_TEXT_MAX),
    expected_result: bounded('expected_result', RUN_TEXT_MAX),
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `Error: invalid input: unknown task field ${shownKeys(iss.keys ?? [])}; a task is only \`action\` and \`expected_result\` (no ids, cursors, totals, statuses or result codes).`
        : 'Error: invalid input: each task must be an object { action, expected_result }.',
  },
);
/** One entry of a checklist run (seed 002 calls it a task; not a task-graph task): an action and its expected result. */
export type ChecklistEntry = z.infer<typeof runTask>;

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

/** A ready checklist the caller already holds (seed 002 "Supplying an existing checklist"); the run's first step submits it unchanged. */
export const runTaskContext = z.strictObject({ tasks: runTasks }, { error: unknownField() });
export type RunTaskContext = z.infer<typeof runTaskContext>;

export const runPrepareInput = z.strictObject(
  {
    parentExecutionId: z
      .string({ error: 'Error: invalid input: `parentExecutionId` must be a run id or "none".' })
      .min(1, { error: 'Error: invalid input: `parentExecutionId` must be a run id or "none".' })
      .max(100, { error: 'Error: invalid input: `parentExecutionId` must be a run id or "none".' }),
    skipNotificationCheck: z.boolean({ error: 'Error: invalid input: `skipNotificationCheck` must be true or false.' }).optional(),
    taskContext: runTaskContext.optional(),
  },
  { error: unknownField() },
);
export const runPrepareOutput = z.object({ startAttemptId: z.string() });
export const runExecuteInput = z.strictObject({ startAttemptId: id }, { error: unknownField() });

/** The step attempt a call answers (issued by the run: `attemptId` of its view); a retried attempt answers the same. */
const attemptId = z
  .string({ error: 'Error: invalid input: `attemptId` must be the step attempt id of the run (its `attemptId`).' })
  .min(1, { error: 'Error: invalid input: `attemptId` must be the step attempt id of the run (its `attemptId`).' })
  .max(100, { error: 'Error: invalid input: `attemptId` must be the step attempt id of the run (its `attemptId`).' });

/** The naming call; naming keeps the step attempt, which it may name (a consumed attempt is then a conflict). */
export const runNameInput = z.strictObject(
  { runId: id, name: bounded('name', RUN_NAME_MAX), attemptId: attemptId.optional() },
  { error: unknownField() },
);

export const runIntakeInput = z.strictObject(
  {
    runId: id,
    tasks: runTasks,
    progress_checklist_outcome: bounded('progress_checklist_outcome', RUN_STEP_TEXT_MAX),
    execution_note: bounded('execution_note', RUN_NOTE_MAX).optional(),
    needs: z
      .array(z.strictObject({ task: position('task'), needs: z.array(position('needs')).min(1).max(RUN_TASKS_MAX) }), {
        error: 'Error: invalid input: `needs` must be an array of { task, needs: [positions] }.',
      })
      .max(RUN_TASKS_MAX)
      .optional(),
    remarks: z
      .array(z.strictObject({ text: bounded('text', RUN_TEXT_MAX), tasks: z.array(position('tasks')).min(1).max(RUN_TASKS_MAX) }), {
        error: 'Error: invalid input: `remarks` must be an array of { text, tasks: [positions] }.',
      })
      .max(RUN_TASKS_MAX)
      .optional(),
    attemptId: attemptId.optional(),
  },
  { error: unknownField() },
);
export type RunIntakeInput = z.infer<typeof runIntakeInput>;

export const runStepInput = z.strictObject(
  {
    runId: id,
    attemptId: attemptId,
    evidence: bounded('evidence', RUN_STEP_TEXT_MAX),
    progress_execution_outcome: bounded('progress_execution_outcome', RUN_STEP_TEXT_MAX),
    task: position('task').optional(),
  },
  { error: unknownField() },
);
export type RunStepInput = z.infer<typeof runStepInput>;

export const REVISE_TELEPORT = 'teleport-revise-tasks';
export const runTeleportInput = z.strictObject(
  {
    runId: id,
    attemptId: attemptId.optional(),
    teleportTo: z.literal(REVISE_TELEPORT, { error: `Error: invalid input: \`teleportTo\` must be "${REVISE_TELEPORT}".` }),
  },
  { error: unknownField() },
);

export const runReviseInput = z.strictObject(
  {
    runId: id,
    tasks: runTasks,
    resume_from_task: position('resume_from_task'),
    progress_checklist_outcome: bounded('progress_checklist_outcome', RUN_STEP_TEXT_MAX),
    progress_execution_outcome: bounded('progress_execution_outcome', RUN_STEP_TEXT_MAX),
    attemptId: attemptId.optional(),
  },
  { error: unknownField() },
);
export type RunReviseInput = z.infer<typeof runReviseInput>;

export const runBlockerInput = z.strictObject(
  { runId: id, blocker: bounded('blocker', RUN_STEP_TEXT_MAX).nullable() },
  { error: unknownField() },
);
export const runRef = z.strictObject({ runId: id }, { error: unknownField() });
/** A person's note on the run's current task: the agent's next directives carry it while that task is current. */
export const runNoteInput = z.strictObject({ runId: id, text: bounded('text', RUN_PERSON_NOTE_MAX) }, { error: unknownField() });
export const runLinkStateOutput = z.object({
  runId: z.string(),
  linkEnabled: z.boolean().describe('Whether /runs/<id>, its card and live view answer without a key'),
});

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
  notes: z.array(z.string()).optional().describe('Notes people left on this task: "<author>: <text>"'),
});

export const runConnection = z.object({
  runId: z.string(),
  name: z.string().nullable(),
  at: isoDate,
  line: z.string().describe('The success connection as one line: the child reached its End node (no evidence is carried)'),
});

export const runView = z.object({
  id: z.string(),
  flow: z.literal('Todo List'),
  name: z.string().nullable(),
  pendingName: z.string().nullable().describe('A name given within the open revision; applied only if the revision changes the scope'),
  status: runStatus,
  revising: z.boolean().describe('The run is at its revision node (Revise checklist): it takes the corrected checklist'),
  attemptId: z.string().nullable().describe('The current step attempt: send it with the next intake, step, teleport or revision'),
  sessionId: z.string(),
  parentRunId: z.string().nullable(),
  executionNote: z.string().nullable(),
  taskContext: z.object({ tasks: z.array(z.object({ action: z.string(), expected_result: z.string() })) }).nullable(),
  tasks: z.array(z.object({ action: z.string(), expected_result: z.string() })),
  cursor: z.number().int(),
  total: z.number().int(),
  current: z.object({ label: z.string(), action: z.string(), expected_result: z.string() }).nullable(),
  moves: z.array(runMove),
  remarks: z.array(z.object({ text: z.string(), tasks: z.array(z.number().int()) })),
  blocker: z.string().nullable(),
  notice: z.string().nullable().describe('What the last change did besides its own effect (e.g. a name kept by a reorder-only revision)'),
  connections: z.array(runConnection).describe('Child runs that completed: one success connection each'),
  blocks: z.object({
    checklist: z.object({ synopsis: z.string() }),
    prepare: z.object({
      length: z.number().int(),
      cursor: z.number().int(),
      action: z.string().nullable(),
      expected_result: z.string().nullable(),
    }),
    work: z.object({
      role: z.enum(['intake', 'task', 'revise', 'done']).describe('What the Work block shows: intake, Task N/M, Revise checklist, or done'),
      label: z.string(),
      tasks: z.array(runWorkTask),
      current_task: z.number().int().describe('The index in progress (one-based)'),
      total_tasks: z.number().int(),
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
  label: z.string().describe('"Checklist intake", "Task N/M", "Revise checklist", "Name", "Blocker" or "Success connection"'),
  kind: z.enum(['name', 'intake', 'step', 'teleport', 'revise', 'blocker', 'connection', 'note']),
  task: z.number().int().nullable(),
  evidence: z.string().nullable(),
  outcome: z.string().nullable(),
  at: isoDate,
});
export const runHistoryOutput = z.object({ steps: z.array(runStepRecord) });
export const runListOutput = z.object({ runs: z.array(runView) });
export const runCardOutput = z.object({ svg: z.string() });
export const runWatchInput = z.strictObject({ runId: id, lastEventId: lastEventId.optional(), from: feedFrom });
export const runEvent = z.object({
  version: z.number().int(),
  run: runView,
  connection: runConnection.optional().describe("Set on the event that brings a child run's success connection"),
});
export type RunEvent = z.infer<typeof runEvent>;

export const runNotificationsOutput = z.object({
  notifications: z.array(
    z.object({
      kind: z.enum(['checklist_ready', 'all_tasks_done']),
      channelId: z.string(),
      attempts: z.number().int(),
      delivered: z.boolean(),
      lastError: z.string().nullable(),
    }),
  ),
});
export const runListInput = z.strictObject({ sessionId: id.optional() }, { error: unknownField() }).default({});
