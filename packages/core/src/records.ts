// The records the domain reads and writes through its ports (storage-agnostic shapes).
import type {
  ChannelKind,
  Priority,
  Role,
  RunMove,
  ChecklistEntry,
  Task,
  TaskStatus,
  TodoChanges,
  TodoCounts,
  TodoDisplayItem,
  TurnState,
} from '@agent-tasks/schema';

export interface WorkspaceRecord {
  id: string;
  name: string;
  oneActiveRule: boolean;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  workspaceId: string;
  role: Role;
  name: string;
  tokenHash: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface SessionRecord {
  id: string;
  workspaceId: string;
  parentId: string | null;
  title: string | null;
  agentName: string | null;
  tokenHash: string;
  openedByKey: string;
  /** The key another tool knows this session by (unique in the workspace), e.g. a Claude Code session id. */
  externalId: string | null;
  turnNumber: number;
  turnState: TurnState;
  todoRevision: number;
  createdAt: Date;
}

export interface TodoUpdateRecord {
  id: string;
  sessionId: string;
  revision: number;
  turnNumber: number;
  items: TodoDisplayItem[];
  changes: TodoChanges;
  counts: TodoCounts;
  createdAt: Date;
}

export interface TaskListRecord {
  id: string;
  workspaceId: string;
  name: string;
  createdAt: Date;
}

export interface TaskRecord {
  id: string;
  listId: string;
  /** Creation order within the list: "oldest first". */
  seq: number;
  subject: string;
  description: string;
  status: TaskStatus;
  activeForm: string | null;
  owner: string | null;
  metadata: Record<string, unknown>;
  sessionId: string;
  /** oh-my-opencode's `repoURL` and `parentID`, kept as given. */
  repoUrl: string | null;
  parentId: string | null;
  /**
   * The fields a Claude Code task file lists after the others, comma-separated in file order (its updates append a
   * field the task did not have), so the file is exported as Claude Code wrote it; null for the usual order.
   */
  fileKeyTail: string | null;
  /** P0 (most urgent) to P4; null when the task has none (it comes after P4). */
  priority: Priority | null;
  /** Short labels, each once, in the order given. */
  labels: string[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a page of TaskList shows of a task: no description, metadata or provenance (a list page reads only these). */
export type TaskSummaryRecord = Pick<
  TaskRecord,
  'id' | 'seq' | 'subject' | 'status' | 'activeForm' | 'owner' | 'priority' | 'labels' | 'version'
>;

/** A person's note on a run's task (its one-based position when the note was left). */
export interface RunPersonNote {
  task: number;
  text: string;
  author: string;
  at: string;
}

/** A comment on a task: by a person (an API key, no session) or an agent (a session). */
export interface TaskCommentRecord {
  /** Increasing across the store: a feed position and a read mark. */
  id: number;
  listId: string;
  taskId: string;
  body: string;
  /** The key's name for a person, the session's agent name for an agent. */
  author: string;
  byPerson: boolean;
  keyId: string;
  sessionId: string | null;
  createdAt: Date;
}

/** One task a full-text search found: higher `rank` matches better; `snippet` marks each match between [ and ]. */
export interface TaskSearchHitRecord {
  taskId: string;
  /** The task as the hit shows it: its `#n`, subject and status. */
  seq: number;
  subject: string;
  status: TaskStatus;
  rank: number;
  snippet: string;
}

/** `blockerId` blocks `blockedId`: the blocked task waits until the blocker completes. */
export interface TaskEdge {
  blockerId: string;
  blockedId: string;
}

export type TaskChangeKind = 'created' | 'updated' | 'claimed' | 'deleted' | 'imported' | 'lease_expired' | 'evidence';

export interface TaskChangeRecord {
  listId: string;
  /** Position in the list's feed (the live event id). */
  seq: number;
  taskId: string;
  kind: TaskChangeKind;
  sessionId: string | null;
  keyId: string;
  at: Date;
  changes: Record<string, { from: unknown; to: unknown }>;
  /** The task as it stood after this change (what a replayed feed event carries). */
  snapshot: Task;
}

export interface ChannelRecord {
  id: string;
  workspaceId: string;
  name: string;
  /** How a notification is written for this channel: our JSON, or a chat service's incoming-webhook message. */
  kind: ChannelKind;
  url: string;
  createdAt: Date;
}

export interface RunStartRecord {
  id: string;
  workspaceId: string;
  sessionId: string;
  parentRunId: string | null;
  skipNotificationCheck: boolean;
  /** The caller's ready checklist, handed to the run's intake. */
  taskContext: ChecklistEntry[] | null;
  runId: string | null;
  createdAt: Date;
}

export interface RunRemark {
  text: string;
  /** Final (executed-order) positions, one-based. */
  tasks: number[];
}

/** A child run that reached its End node: the parent's "success connection" (no evidence carried). */
export interface RunConnectionRecord {
  runId: string;
  name: string | null;
  at: Date;
}

export interface RunRecord {
  id: string;
  workspaceId: string;
  sessionId: string;
  parentRunId: string | null;
  startAttemptId: string;
  name: string | null;
  /** A name given within the open revision; applied when the revision changes the scope, dropped otherwise. */
  pendingName: string | null;
  executionNote: string | null;
  status: 'intake' | 'running' | 'completed';
  /** At the revision node: the run takes the corrected checklist next. */
  revising: boolean;
  /** The current step attempt (issued by the run; consumed once by intake, step, teleport or revision); null once completed. */
  attemptId: string | null;
  /** The caller's ready checklist, which intake must submit unchanged. */
  taskContext: readonly Readonly<ChecklistEntry>[] | null;
  /** Child runs that completed. */
  connections: RunConnectionRecord[];
  /** What the last change did besides its own effect; cleared by the next change. */
  notice: string | null;
  /** The authoritative ordered checklist. The checklist's fields are replaced whole, never changed in place (a store
   * may share what it read of them). */
  tasks: readonly Readonly<ChecklistEntry>[];
  moves: readonly Readonly<RunMove>[];
  remarks: readonly Readonly<RunRemark>[];
  /** One-based position of the current task; total + 1 once exhausted. */
  cursor: number;
  checklistOutcome: string;
  executionOutcome: string;
  /** Per position: the confirmed outcome of a completed task, or "Pending". */
  taskOutcomes: string[];
  /** Per position: milliseconds the task's passes spent current. */
  taskTimes: number[];
  /** When the current task became current. */
  currentSince: Date | null;
  blocker: string | null;
  /** Notes people left on the run's tasks, by position; the agent's directive carries the current task's. */
  personNotes: RunPersonNote[];
  revision: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface RunStepRecordData {
  runId: string;
  seq: number;
  kind: 'name' | 'intake' | 'step' | 'teleport' | 'revise' | 'blocker' | 'connection' | 'note';
  label: string;
  task: number | null;
  attemptId: string | null;
  evidence: string | null;
  outcome: string | null;
  /** For a step that consumed an attempt: the fingerprint of the call and response it was answered with. */
  fingerprint?: string | null;
  /** For a step that consumed an attempt before prior fields were kept (see `RunRepository.save`): its answer (the run
   * view as JSON), answered again to a retry. Newer steps rebuild it from the run at the step's version. */
  answer?: string | null;
  at: Date;
}

export interface OutboxRecord {
  id: string;
  workspaceId: string;
  channelId: string;
  url: string;
  runId: string;
  kind: 'checklist_ready' | 'all_tasks_done';
  payload: Record<string, unknown>;
  idempotencyKey: string;
  attempts: number;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  lastError: string | null;
  createdAt: Date;
  /** Set when retries outlived the maximum age: given up until an admin retries it. */
  deadAt: Date | null;
  /** When an admin last retried it: its maximum age counts from here (from `createdAt` before). */
  retriedAt: Date | null;
}
