// The records the domain reads and writes through its ports (storage-agnostic shapes).
import type { Role, Task, TaskStatus, TodoChanges, TodoCounts, TodoItem, TurnState } from '@agent-tasks/schema';

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
  items: TodoItem[];
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
  threadId: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** `blockerId` blocks `blockedId`: the blocked task waits until the blocker completes. */
export interface TaskEdge {
  blockerId: string;
  blockedId: string;
}

export type TaskChangeKind = 'created' | 'updated' | 'claimed' | 'deleted' | 'imported';

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
