// Ports the domain owns: repositories, a transaction runner, clock, ids, token hashing and live events.
import type { ApiKeyRecord, SessionRecord, TodoUpdateRecord, WorkspaceRecord } from './records.ts';

export interface WorkspaceRepository {
  count(): Promise<number>;
  create(workspace: WorkspaceRecord): Promise<void>;
  get(id: string): Promise<WorkspaceRecord | null>;
  update(id: string, patch: { oneActiveRule?: boolean }): Promise<WorkspaceRecord>;
}

export interface ApiKeyRepository {
  create(key: ApiKeyRecord): Promise<void>;
  findByHash(tokenHash: string): Promise<ApiKeyRecord | null>;
  get(workspaceId: string, id: string): Promise<ApiKeyRecord | null>;
  list(workspaceId: string): Promise<ApiKeyRecord[]>;
  revoke(id: string, at: Date): Promise<void>;
  countActiveAdmins(workspaceId: string): Promise<number>;
}

export interface SessionRepository {
  create(session: SessionRecord): Promise<void>;
  findByHash(tokenHash: string): Promise<SessionRecord | null>;
  get(workspaceId: string, id: string): Promise<SessionRecord | null>;
  list(workspaceId: string): Promise<SessionRecord[]>;
  setTurn(id: string, turnNumber: number, turnState: SessionRecord['turnState']): Promise<void>;
  /** Moves the todo revision from `from` to `to`; false when it was no longer `from` (a concurrent write won). */
  advanceTodoRevision(id: string, from: number, to: number): Promise<boolean>;
}

export interface TodoRepository {
  latest(sessionId: string): Promise<TodoUpdateRecord | null>;
  insert(update: TodoUpdateRecord): Promise<void>;
  /** Newest first, revisions below `before` (all when null). */
  page(sessionId: string, before: number | null, limit: number): Promise<TodoUpdateRecord[]>;
  /** Oldest first, revisions above `after`. */
  after(sessionId: string, after: number, limit: number): Promise<TodoUpdateRecord[]>;
}

export interface Repositories {
  workspaces: WorkspaceRepository;
  keys: ApiKeyRepository;
  sessions: SessionRepository;
  todos: TodoRepository;
}

export interface Store extends Repositories {
  /** Runs `work` in one transaction: all of its writes land, or none. */
  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
}

export interface Clock {
  now(): Date;
}

export interface Ids {
  /** A new record id with the given prefix, e.g. `ses_…`. */
  id(prefix: string): string;
  /** A new secret bearer token with the given prefix, e.g. `atk_…`. */
  secret(prefix: string): string;
}

export interface TokenHasher {
  hash(token: string): string;
}

export interface LiveEvent {
  topic: string;
  id: string;
  data: unknown;
}

export interface EventPublisher {
  publish(event: LiveEvent): void;
}

export interface Deps {
  store: Store;
  clock: Clock;
  ids: Ids;
  hasher: TokenHasher;
  events: EventPublisher;
}
