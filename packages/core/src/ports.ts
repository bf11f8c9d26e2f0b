// Ports the domain owns: repositories, a transaction runner, clock, ids, token hashing and live events.
import type { TaskStatus } from '@agent-tasks/schema';
import type {
  ApiKeyRecord,
  SessionRecord,
  TaskChangeRecord,
  TaskEdge,
  TaskListRecord,
  TaskRecord,
  TodoUpdateRecord,
  WorkspaceRecord,
} from './records.ts';

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

export interface TaskListFilter {
  statuses: readonly TaskStatus[];
  owner?: string | undefined;
  /** Only tasks ready for this agent: pending, unowned or owned by it, every blocker completed or deleted. */
  readyFor?: string | undefined;
  limit: number;
}

export interface TaskRepository {
  findList(workspaceId: string, name: string): Promise<TaskListRecord | null>;
  createList(list: TaskListRecord): Promise<void>;
  /** Increments and returns the list's task counter (creation order). */
  nextTaskSeq(listId: string): Promise<number>;
  /** Increments and returns the list's change counter (feed position). */
  nextChangeSeq(listId: string): Promise<number>;
  insert(task: TaskRecord): Promise<void>;
  get(listId: string, id: string): Promise<TaskRecord | null>;
  getMany(listId: string, ids: readonly string[]): Promise<TaskRecord[]>;
  /** Whether a task id is taken anywhere (ids are global). */
  idTaken(id: string): Promise<boolean>;
  /** Writes the task's fields if its stored version is still `fromVersion`; false otherwise. */
  update(task: TaskRecord, fromVersion: number): Promise<boolean>;
  /** Edges touching any of these tasks, on either side. */
  edgesOf(ids: readonly string[]): Promise<TaskEdge[]>;
  /** Edges leaving these tasks (what they block): one step of a walk along "blocks". */
  blocksOf(ids: readonly string[]): Promise<TaskEdge[]>;
  addEdge(listId: string, edge: TaskEdge): Promise<void>;
  removeEdge(edge: TaskEdge): Promise<void>;
  /** Blockers of these tasks that are neither completed nor deleted. */
  unresolvedBlockers(ids: readonly string[]): Promise<TaskEdge[]>;
  list(listId: string, filter: TaskListFilter): Promise<TaskRecord[]>;
  /** The oldest task ready for `agent`, or null. */
  firstReady(listId: string, agent: string): Promise<TaskRecord | null>;
  /** Every task of the list with the given statuses, and the edges among them (the plan and export need the whole graph). */
  graph(listId: string, statuses: readonly TaskStatus[]): Promise<{ tasks: TaskRecord[]; edges: TaskEdge[] }>;
  appendChange(change: TaskChangeRecord): Promise<void>;
  changesOf(taskId: string): Promise<TaskChangeRecord[]>;
  changesAfter(listId: string, seq: number, limit: number): Promise<TaskChangeRecord[]>;
}

export interface Repositories {
  workspaces: WorkspaceRepository;
  keys: ApiKeyRepository;
  sessions: SessionRepository;
  todos: TodoRepository;
  tasks: TaskRepository;
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
  /** A new random UUID (task ids are `T-{uuid}`). */
  uuid(): string;
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
