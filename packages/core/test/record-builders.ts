// Builders of stored records for repository-level tests (the store contract, the fakes' own tests, the pure rules):
// workspace `ws_1`, session `ses_1`, key `key_1`, list `tl_1`, all made at T0 unless told; `patch` overrides any field.
import type { ChecklistEntry } from '@agent-tasks/schema';
import {
  type ChannelRecord,
  type OutboxRecord,
  PENDING_OUTCOME,
  type RunRecord,
  type RunStartRecord,
  type RunStepRecordData,
  type SessionRecord,
  type TaskChangeRecord,
  type TaskEdge,
  type TaskListRecord,
  type TaskRecord,
  type WorkspaceRecord,
  intakeRun,
} from '../src/index.ts';

/** When every built record is made: 2025-01-01T00:00:00.000Z. */
export const T0 = new Date('2025-01-01T00:00:00.000Z');

/** `ms` milliseconds after (or before) T0. */
export const at = (ms: number) => new Date(T0.getTime() + ms);

export const workspaceRecord = (id: string): WorkspaceRecord => ({ id, name: id, oneActiveRule: true, createdAt: T0 });

/** A session opened with `key_1`, no turn yet, no todo list written. */
export const sessionRecord = (id: string, workspaceId = 'ws_1'): SessionRecord => ({
  id,
  workspaceId,
  parentId: null,
  title: null,
  agentName: null,
  tokenHash: `h:${id}`,
  openedByKey: 'key_1',
  externalId: null,
  turnNumber: 0,
  turnState: 'none',
  todoRevision: 0,
  createdAt: T0,
});

/** A webhook channel named after its id. */
export const channelRecord = (id: string, workspaceId = 'ws_1', createdAt = T0): ChannelRecord => ({
  id,
  workspaceId,
  name: id,
  kind: 'webhook',
  url: `https://hooks.example.com/${id}`,
  createdAt,
});

/** A prepared, not yet executed start of session `ses_1`. */
export const startRecord = (id: string, workspaceId = 'ws_1'): RunStartRecord => ({
  id,
  workspaceId,
  sessionId: 'ses_1',
  parentRunId: null,
  skipNotificationCheck: false,
  taskContext: null,
  runId: null,
  createdAt: T0,
});

/** A run just started (core's own intakeRun) from start `start_of_<id>`, attempt `att_1`. */
export const intakeRunRecord = (id: string, patch: Partial<RunRecord> = {}): RunRecord => ({
  ...intakeRun(
    {
      id,
      workspaceId: 'ws_1',
      sessionId: 'ses_1',
      parentRunId: null,
      startAttemptId: `start_of_${id}`,
      attemptId: 'att_1',
      taskContext: null,
    },
    T0,
  ),
  ...patch,
});

/** A running run on task 1 of `tasks`, current since T0. */
export function runRecord(tasks: ChecklistEntry[], patch: Partial<RunRecord> = {}): RunRecord {
  return {
    ...intakeRun(
      {
        id: 'run_1',
        workspaceId: 'ws_1',
        sessionId: 'ses_1',
        parentRunId: null,
        startAttemptId: 'start_1',
        attemptId: 'att_1',
        taskContext: null,
      },
      T0,
    ),
    name: 'Ship the release',
    status: 'running',
    tasks: [...tasks],
    cursor: 1,
    checklistOutcome: 'Ready',
    taskOutcomes: tasks.map(() => PENDING_OUTCOME),
    taskTimes: tasks.map(() => 0),
    currentSince: T0,
    version: 2,
    ...patch,
  };
}

/** Step `seq` of a three-task run. */
export const stepRecord = (runId: string, seq: number, attemptId: string | null = null): RunStepRecordData => ({
  runId,
  seq,
  kind: 'step',
  label: `Task ${seq}/3`,
  task: seq,
  attemptId,
  evidence: 'e',
  outcome: 'o',
  at: T0,
});

/** A checklist_ready message of run `run_1` waiting on channel `ch_1`, never tried. */
export const outboxRecord = (id: string, patch: Partial<OutboxRecord> = {}): OutboxRecord => ({
  id,
  workspaceId: 'ws_1',
  channelId: 'ch_1',
  url: 'https://hooks.example.com/ch_1',
  runId: 'run_1',
  kind: 'checklist_ready',
  payload: { text: id },
  idempotencyKey: `key_${id}`,
  attempts: 0,
  nextAttemptAt: T0,
  deliveredAt: null,
  lastError: null,
  createdAt: T0,
  deadAt: null,
  retriedAt: null,
  ...patch,
});

export const taskListRecord = (id: string, name = id, workspaceId = 'ws_1'): TaskListRecord => ({ id, workspaceId, name, createdAt: T0 });

/** A pending task of list `tl_1` in thread `ses_1`, its subject its id. */
export const taskRecord = (id: string, seq: number, patch: Partial<TaskRecord> = {}, createdAt = T0): TaskRecord => ({
  id,
  listId: 'tl_1',
  seq,
  subject: id,
  description: '',
  status: 'pending',
  activeForm: null,
  owner: null,
  metadata: {},
  sessionId: 'ses_1',
  repoUrl: null,
  parentId: null,
  fileKeyTail: null,
  version: 1,
  createdAt,
  updatedAt: createdAt,
  ...patch,
});

export const taskEdge = (blockerId: string, blockedId: string): TaskEdge => ({ blockerId, blockedId });

/** An update of `taskId` by key `key_1` renaming its subject from "a" to "b" (version 2). */
export const taskChangeRecord = (seq: number, taskId: string, listId = 'tl_1'): TaskChangeRecord => ({
  listId,
  seq,
  taskId,
  kind: 'updated',
  sessionId: null,
  keyId: 'key_1',
  at: T0,
  changes: { subject: { from: 'a', to: 'b' } },
  snapshot: {
    id: taskId,
    listName: 'default',
    subject: 'b',
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
    metadata: {},
    threadID: 'ses_1',
    version: 2,
    createdAt: T0.toISOString(),
    updatedAt: T0.toISOString(),
  },
});
