// Maps domain records to the contract shapes callers receive.
import type { ApiKeyInfo, Session, TodoCard, TodoListView } from '@agent-tasks/schema';
import type { ApiKeyRecord, SessionRecord, TodoUpdateRecord, WorkspaceRecord } from './records.ts';
import { countTodos } from './todo-rules.ts';

export const presentWorkspace = (w: WorkspaceRecord) => ({ id: w.id, name: w.name, createdAt: w.createdAt.toISOString() });

export const presentKey = (k: ApiKeyRecord): ApiKeyInfo => ({
  id: k.id,
  name: k.name,
  role: k.role,
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
});

export const presentSession = (s: SessionRecord): Session => ({
  id: s.id,
  workspaceId: s.workspaceId,
  parentId: s.parentId,
  title: s.title,
  agentName: s.agentName ?? s.id,
  turn: { number: s.turnNumber, state: s.turnState },
  ...(s.externalId === null ? {} : { externalId: s.externalId }),
  createdAt: s.createdAt.toISOString(),
});

export const presentCard = (u: TodoUpdateRecord): TodoCard => ({
  sessionId: u.sessionId,
  revision: u.revision,
  turnNumber: u.turnNumber,
  items: u.items,
  changes: u.changes,
  counts: u.counts,
  createdAt: u.createdAt.toISOString(),
});

export const presentList = (sessionId: string, latest: TodoUpdateRecord | null): TodoListView => ({
  sessionId,
  revision: latest?.revision ?? 0,
  items: latest?.items ?? [],
  counts: latest?.counts ?? countTodos([]),
  updatedAt: latest ? latest.createdAt.toISOString() : null,
});
