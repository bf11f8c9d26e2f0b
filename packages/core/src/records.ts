// The records the domain reads and writes through its ports (storage-agnostic shapes).
import type { Role, TodoChanges, TodoCounts, TodoItem, TurnState } from '@agent-tasks/schema';

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
