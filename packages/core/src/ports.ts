// Ports the domain owns: repositories, a transaction runner, clock, ids, token hashing and live events.
import type { Priority, TaskStatus } from '@agent-tasks/schema';
import type { TrustRepository } from './trust-ports.ts';
import type {
  ApiKeyRecord,
  ChannelRecord,
  OutboxRecord,
  RunRecord,
  RunStartRecord,
  RunStepRecordData,
  SessionRecord,
  TaskChangeRecord,
  TaskCommentRecord,
  TaskEdge,
  TaskListRecord,
  TaskRecord,
  TaskSummaryRecord,
  TaskSearchHitRecord,
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
  /** The session of a token: its first one, or a further one added by `addToken`. */
  findByHash(tokenHash: string): Promise<SessionRecord | null>;
  findByExternalId(workspaceId: string, externalId: string): Promise<SessionRecord | null>;
  /** Adds a further token for the session, then keeps only its `keep` newest further tokens (the first one always works);
   * answers how many it dropped. */
  addToken(sessionId: string, tokenHash: string, at: Date, keep: number): Promise<number>;
  get(workspaceId: string, id: string): Promise<SessionRecord | null>;
  list(workspaceId: string): Promise<SessionRecord[]>;
  setTurn(id: string, turnNumber: number, turnState: SessionRecord['turnState']): Promise<void>;
  /**
   * Removes a session that recorded nothing — no todo update, run, run start, task or subagent session — and its
   * tokens; false when it has any of those (it stays) or does not exist.
   */
  deleteIfUnused(workspaceId: string, id: string): Promise<boolean>;
}

export interface TodoRepository {
  latest(sessionId: string): Promise<TodoUpdateRecord | null>;
  /** The update recorded at this revision (recorded updates never change). */
  at(sessionId: string, revision: number): Promise<TodoUpdateRecord | null>;
  insert(update: TodoUpdateRecord): Promise<void>;
  /**
   * The latest update of the session this store holds without reading (null when it holds none). It may be behind
   * what is stored: a write checks it (`advance`).
   */
  latestKnown(sessionId: string): Promise<TodoUpdateRecord | null>;
  /**
   * A new list's compare-and-set and its record in one step (one statement where the database allows): moves the
   * session's todo revision on by one, only while it is still `expected` when given, and records `draft` with the
   * session's turn if the new revision is `draft.revision`. Answers the new revision and turn, and `recorded`:
   * false when the revision moved elsewhere (the caller records its own update at it). null when the session is not
   * in the workspace or the revision was no longer `expected`: nothing changed.
   */
  advance(
    workspaceId: string,
    expected: number | undefined,
    draft: Omit<TodoUpdateRecord, 'turnNumber'>,
  ): Promise<{ todoRevision: number; turnNumber: number; recorded: boolean } | null>;
  /** Newest first, revisions below `before` (all when null). */
  page(sessionId: string, before: number | null, limit: number): Promise<TodoUpdateRecord[]>;
  /** Oldest first, revisions above `after`. */
  after(sessionId: string, after: number, limit: number): Promise<TodoUpdateRecord[]>;
  /** The updates at these (session, revision) pairs: the latest card of many sessions in one read. */
  atRevisions(refs: readonly { sessionId: string; revision: number }[]): Promise<TodoUpdateRecord[]>;
}

export interface TaskListFilter {
  statuses: readonly TaskStatus[];
  owner?: string | undefined;
  /** Only tasks ready for this agent: pending, unowned or owned by it, every blocker completed or deleted. */
  readyFor?: string | undefined;
  /** Only ready tasks whoever owns them (pending, every blocker completed or deleted): with `owner`, that owner's. */
  ready?: boolean | undefined;
  /** Only tasks of one of these priorities. */
  priorities?: readonly Priority[] | undefined;
  /** Only tasks carrying this label. */
  label?: string | undefined;
  limit: number;
}

/** A task about to be inserted: with `seq`, it keeps that creation number; without, it takes the list's next one. */
export type NewTask = Omit<TaskRecord, 'seq'> & { seq?: number | undefined };

/** What one write to a task list stores at once (see `TaskRepository.commit`). */
export interface TaskWrite {
  /** Changed tasks as they are to be stored (version already moved on), each with the version it was read at. */
  tasks: readonly { task: TaskRecord; fromVersion: number }[];
  /** The write's change records, in order; the store gives them the list's next feed positions. */
  changes: readonly Omit<TaskChangeRecord, 'seq'>[];
  /** Tasks whose readiness may have changed (an edge to them, or a blocker's status moved between open and resolved). */
  readiness: readonly string[];
  /** The written tasks whose searchable text (subject, description) or deletion changed; all of them when absent. */
  texts?: readonly string[] | undefined;
}

/** What `addEdge` did: added it, or not — it was there already, or it would close `cycle` (ids, first = last). */
export type EdgeAdded = { added: true } | { added: false; cycle?: string[] | undefined };

/** Rows of an import staged in one short transaction (see `TaskRepository.stageImport`). */
export interface StagedRows {
  tasks?: readonly TaskRecord[] | undefined;
  /** Edges among staged tasks (checked before: known ends, no self edge, no cycle). */
  edges?: readonly TaskEdge[] | undefined;
  changes?: readonly TaskChangeRecord[] | undefined;
  /** Every edge of the import, once all are staged: the store settles what it keeps of the graph (e.g. an order). */
  graph?: readonly TaskEdge[] | undefined;
}

/** Where `publishImport` puts a staged import, and how it numbers it. */
export type ImportTarget =
  /** A new list of that name: the staging list becomes it, its tasks and changes numbered as staged. */
  | { name: string; taskSeq: number }
  /**
   * An existing list: with `keepNumbers`, the staged tasks keep their numbers (none was taken: checked before) and the
   * list's counter is raised to it; otherwise they take the list's next numbers (staged from `stagedFrom`).
   */
  | { listId: string; stagedFrom: number; keepNumbers?: number | undefined };

/**
 * Task lists, their tasks, edges and change log, in operations the domain names. The rules (which edge may be added,
 * which write wins, what is ready, what an import checks) live in core; an adapter stores, indexes and locks.
 */
export interface TaskRepository {
  /** The list of that name (never an import's staging list); with `hold`, within a write: held against writers in
   * other processes until the transaction ends (edges, ranks and claims then see one writer at a time). */
  findList(workspaceId: string, name: string, options?: { hold?: boolean }): Promise<TaskListRecord | null>;
  /** The names of the workspace's task lists. */
  listNames(workspaceId: string): Promise<string[]>;
  /** Every task list of the workspace by name, with how many of its tasks are in each status. */
  lists(workspaceId: string): Promise<TaskListSummary[]>;
  createList(list: TaskListRecord): Promise<void>;
  /** The id of the task created `seq`-th in the list (its short reference `#seq`), or null. */
  idOfSeq(listId: string, seq: number): Promise<string | null>;
  /** The list's task counter: the seq of its newest task, 0 when it has none. */
  taskSeqOf(listId: string): Promise<number>;
  /** Raises the list's task counter to `atLeast` when it is lower (numbers an import kept are never given out again). */
  raiseTaskSeq(listId: string, atLeast: number): Promise<void>;
  /** The list's change counter: the feed position of its last change. */
  feedPosition(listId: string): Promise<number>;

  get(listId: string, id: string): Promise<TaskRecord | null>;
  /** The tasks of the list with these ids (those that exist), in one read. */
  getMany(listId: string, ids: readonly string[]): Promise<TaskRecord[]>;
  /** A page of the list's tasks in creation order, as summaries (the fields TaskList shows). */
  list(listId: string, filter: TaskListFilter): Promise<TaskSummaryRecord[]>;
  /** Claim next: the oldest task ready for `agent` (pending, unowned or its own, every blocker resolved), or null. */
  firstReady(listId: string, agent: string): Promise<TaskRecord | null>;
  /** Every task of the list with the given statuses, and the edges among them (the plan and export need the whole graph). */
  graph(listId: string, statuses: readonly TaskStatus[]): Promise<{ tasks: TaskRecord[]; edges: TaskEdge[] }>;
  /** Edges of the list touching any of these tasks, on either side. */
  edgesOf(listId: string, ids: readonly string[]): Promise<TaskEdge[]>;
  /** Blockers of these tasks of the list that are neither completed nor deleted. */
  unresolvedBlockers(listId: string, ids: readonly string[]): Promise<TaskEdge[]>;
  /** The change records of one task of the list, oldest first. */
  changesOf(listId: string, taskId: string): Promise<TaskChangeRecord[]>;
  changesAfter(listId: string, seq: number, limit: number): Promise<TaskChangeRecord[]>;

  /** Inserts a new task (its id and number unique in its list); answers its number. */
  insert(task: NewTask): Promise<number>;
  /**
   * Adds blocker → blocked (both tasks of the list) unless it is there already or would close a cycle: then answers the
   * cycle as core's `findCycle` names it. The check is the store's (one query, however deep); the naming is core's.
   */
  addEdge(listId: string, edge: TaskEdge): Promise<EdgeAdded>;
  /** Removes these edges of the list, in few statements however many; answers those that were there. */
  removeEdges(listId: string, edges: readonly TaskEdge[]): Promise<TaskEdge[]>;
  /**
   * Stores one write: each task if its stored version is still `fromVersion` (compare-and-set), then its change
   * records at the list's next feed positions; answers the records as stored, or null when a task had changed
   * meanwhile (nothing is to be kept: the caller drops the transaction).
   */
  commit(listId: string, write: TaskWrite): Promise<TaskChangeRecord[] | null>;

  /**
   * When the workspace's running import (any process) last wrote its staging list — its heartbeat — or null when none
   * is; with `abandonedBefore`, first removes staging lists not written since (imports whose process died). On
   * PostgreSQL it takes the workspace's import lock for the rest of the transaction, so two checks cannot both pass.
   */
  importInProgress(workspaceId: string, abandonedBefore?: Date): Promise<Date | null>;
  /** Which of these ids and creation numbers (`#n`) the list already has (one read for a whole import). */
  taken(listId: string, asked: { ids?: readonly string[]; seqs?: readonly number[] }): Promise<{ ids: string[]; seqs: number[] }>;
  /**
   * Writes rows of an import into its hidden staging list `staging` (made on first use): never found by name, listed
   * or counted, so nothing is seen until `publishImport`. Each call renews the import's heartbeat to `at`.
   */
  stageImport(staging: TaskListRecord, at: Date, rows: StagedRows): Promise<void>;
  /** Makes a staged import visible in one short transaction (see `ImportTarget`); answers the shift of the staged
   * numbers and the feed position of its first change. When the shift is not 0 the staged change records (which name
   * each task's #n) are dropped: the caller commits them again. */
  publishImport(stagingId: string, target: ImportTarget, count: number): Promise<{ taskShift: number; firstChange: number }>;
  /** Removes a staging list with its rows (an import that failed) and, given `counter`, puts the list's task counter
   * back from `to` to `from` unless a task took a number meanwhile. */
  abandonImport(stagingId: string, counter?: { listId: string; from: number; to: number }): Promise<void>;
}

/** Comments on tasks, and how far each session has read the comments people left on a list. */
export interface TaskCommentRepository {
  /** Stores the comment (its `id` is given by the store) and adds its body to the task's searchable text. */
  add(comment: Omit<TaskCommentRecord, 'id'>): Promise<TaskCommentRecord>;
  /** The task's newest comments, newest first. */
  newest(listId: string, taskId: string, limit: number): Promise<TaskCommentRecord[]>;
  count(listId: string, taskId: string): Promise<number>;
  /** The list's comments after `afterId`, oldest first. */
  after(listId: string, afterId: number, limit: number): Promise<TaskCommentRecord[]>;
  /** The newest comments from people on the list after `afterId`, newest first. */
  newestFromPeople(listId: string, afterId: number, limit: number): Promise<TaskCommentRecord[]>;
  /** The id of the list's newest comment, 0 when it has none (a comment feed's position). */
  lastId(listId: string): Promise<number>;
  /** The newest comment from people on the list that the session was given, 0 when none. */
  readMark(sessionId: string, listId: string): Promise<number>;
  setReadMark(sessionId: string, listId: string, commentId: number): Promise<void>;
}

/** Full-text search over a list's task subjects, descriptions and comments (kept by the task and comment writes). */
export interface TaskSearchRepository {
  /** Tasks matching every word of `words` (each also as a prefix), best first; deleted tasks are never found. */
  search(listId: string, words: readonly string[], limit: number): Promise<TaskSearchHitRecord[]>;
}

export interface TaskListSummary extends TaskListRecord {
  counts: Partial<Record<TaskStatus, number>>;
  /** Position of the list's latest change in its feed. */
  changeSeq: number;
}

export interface ChannelRepository {
  create(channel: ChannelRecord): Promise<void>;
  list(workspaceId: string): Promise<ChannelRecord[]>;
  /** False when there was no such channel in the workspace. */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

export interface RunRepository {
  createStart(start: RunStartRecord): Promise<void>;
  getStart(workspaceId: string, id: string): Promise<RunStartRecord | null>;
  /** Binds the start attempt to its run if it has none yet; false when it was already executed. */
  markStartExecuted(id: string, runId: string): Promise<boolean>;
  create(run: RunRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<RunRecord | null>;
  /** The run's version alone (every change to a run moves it, `save`'s compare-and-set), or null: no such run here. */
  versionOf(workspaceId: string, id: string): Promise<number | null>;
  /** A run by id alone: for run-page links, where the unguessable id is the capability; null once its link is revoked. */
  getAnywhere(id: string): Promise<RunRecord | null>;
  /** Revokes (a date) or restores (null) a run's link; false when the workspace has no such run. */
  setLinkRevoked(workspaceId: string, id: string, at: Date | null): Promise<boolean>;
  /**
   * Writes the run if its stored version is still `fromVersion` and records the step that changed it, keeping the
   * fields the step changed as they were before it; false, writing nothing, when the version moved.
   */
  save(run: RunRecord, fromVersion: number, step: RunStepRecordData): Promise<boolean>;
  /**
   * The run as it was at `version`, rebuilt from the current run and the prior fields of the steps since; null when a
   * step on the way was recorded before prior fields were kept, or the run never had that version.
   */
  atVersion(workspaceId: string, id: string, version: number): Promise<RunRecord | null>;
  list(workspaceId: string, filter: { sessionId?: string | undefined; limit: number }): Promise<RunRecord[]>;
  steps(runId: string): Promise<RunStepRecordData[]>;
  findStepByAttempt(runId: string, attemptId: string): Promise<RunStepRecordData | null>;
}

export interface OutboxRepository {
  /** Queues a new message (neither dead nor retried yet). */
  enqueue(message: Omit<OutboxRecord, 'deadAt' | 'retriedAt'>): Promise<void>;
  /**
   * Messages neither delivered nor given up, due at `now`, oldest first; none of the channels in `skip.channels`, none
   * of a workspace that already runs its share of the lanes (`skip.share`). Where `due` claims what it answers
   * (PostgreSQL replicas), `limit` counts channels and no workspace is handed more than its share has room for.
   */
  due(now: Date, limit: number, skip?: DueFilter): Promise<OutboxRecord[]>;
  /** Records the accepted attempt: `attempts` counts every try, the successful one included; clears the last error. */
  markDelivered(id: string, at: Date, attempts: number): Promise<void>;
  /** Records a failed attempt and when to try again; the channel's other waiting messages wait at least as long. */
  markFailed(id: string, attempts: number, nextAttemptAt: Date, error: string): Promise<void>;
  /** Gives up on a message (its retries outlived the maximum age): it stays, dead, until an admin retries it. */
  markDead(id: string, attempts: number, at: Date, error: string): Promise<void>;
  /** A message of the workspace, or null. */
  get(workspaceId: string, id: string): Promise<OutboxRecord | null>;
  /** Makes an undelivered message due now again, its maximum age counted from `at`. */
  retry(id: string, at: Date): Promise<void>;
  /** Hands back a message claimed by `due` but not attempted (the server is stopping): due again at `at`. */
  release(id: string, at: Date): Promise<void>;
  forRun(runId: string): Promise<OutboxRecord[]>;
  /** Drops a deleted channel's undelivered messages. */
  dropPending(channelId: string): Promise<void>;
  /** The workspace's messages, newest first. */
  recent(workspaceId: string, limit: number): Promise<OutboxRecord[]>;
}

/** What a delivery pass leaves out: channels whose lanes run, and workspaces at their share of the lanes. */
export interface DueFilter {
  channels?: readonly string[] | undefined;
  share?: LaneShare | undefined;
}

/** Lanes one workspace may run at once, and how many each workspace runs now. */
export interface LaneShare {
  perWorkspace: number;
  running: ReadonlyMap<string, number>;
}

/** The outcome of one attempt: accepted, or why not — `timedOut` when the receiver did not answer in time. */
export type SendResult = { ok: true } | { ok: false; error: string; timedOut?: boolean };

/** An abort signal as the domain sees it (a web AbortSignal is one). */
export interface StopSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Sends a notification to a channel (a webhook or a chat service) that may be reached; resolves with the outcome, never throws. */
export interface ChannelSender {
  /** Why `url` may not receive notifications (credentials, unresolvable, not a public address), or null when it may. */
  check(url: string): Promise<string | null>;
  send(url: string, body: unknown, idempotencyKey: string, options?: { timeoutMs?: number; signal?: StopSignal }): Promise<SendResult>;
}

export interface Repositories {
  workspaces: WorkspaceRepository;
  keys: ApiKeyRepository;
  sessions: SessionRepository;
  todos: TodoRepository;
  tasks: TaskRepository;
  comments: TaskCommentRepository;
  search: TaskSearchRepository;
  channels: ChannelRepository;
  runs: RunRepository;
  outbox: OutboxRepository;
  trust: TrustRepository;
}

export interface Store extends Repositories {
  /**
   * Runs `work` in one transaction: all of its writes land, or none. `work` may run more than once (a store may roll
   * a shared transaction back and run it again), so it keeps its effects in `repos`, and what it notes outside
   * starts anew at each run.
   */
  transaction<T>(work: (repos: Repositories) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

export interface TransactionOptions {
  /**
   * What the write reads and changes belongs to this footprint alone (one session's todo list, a task list; reads of rows
   * nobody writes aside): a store may run it beside writes of other footprints in one shared transaction, and runs the writes
   * of one footprint one after another, in the order they came. A footprint may hold others (`tasks:w/l/task:t` is within
   * `tasks:w/l`): a write in one goes in turn with the writes in the other.
   */
  footprint?: string;
}

export interface Clock {
  now(): Date;
  /** Calls `fn` once the clock reaches `at` (a lease's end); absent, the server uses a wall-clock timer. */
  schedule?(at: Date, fn: () => void): { cancel(): void };
}

export interface Ids {
  /** A new record id with the given prefix, e.g. `ses_…`. */
  id(prefix: string): string;
  /** The same, ordered by creation time (its first part is the time): for records appended on every call, whose index
   * then grows at its end instead of at a random place. Never a capability (its time is readable). */
  ordered(prefix: string): string;
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
  /** The address of a run's page, for the link in its notifications; the server builds it from its public URL. */
  runPage(runId: string): string;
  clock: Clock;
  ids: Ids;
  hasher: TokenHasher;
  events: EventPublisher;
  /**
   * Lets other work run (the event loop's timers and sockets) in the middle of a long piece of work, such as a large
   * import; absent, long work runs straight through.
   */
  pause?: () => Promise<void>;
  /** Told of each lease this process gives or renews, so its end is acted on at that moment (the server's lease timer). */
  leases?: { scheduled(at: Date): void };
  /** Answers kept for reuse while what they were read from is unchanged; absent, every read reads the store. */
  readCache?: ReadCache;
}

/**
 * Answers a read gave, kept by the read's own key and the `stamp` of the state it read (a list's feed position): a
 * stamp that moved on makes the answer stale. Bounded: `weight` (say, the tasks in the answer) counts against a total.
 */
export interface ReadCache {
  /** The answer kept for `key` at `stamp`, or undefined (none, or kept at another stamp). */
  get(key: string, stamp: number): unknown;
  put(key: string, stamp: number, answer: unknown, weight: number): void;
  /**
   * A kept answer with the number at `path` (keys and indexes from its root) set to `value`, say a time counted to now:
   * a copy along the path, the kept answer unchanged, its JSON text the kept one's with that number (made once).
   */
  withNumber(answer: unknown, path: readonly (string | number)[], value: number): unknown;
}
