// In-memory test doubles for the core's ports: a transactional Store, a settable Clock, counter Ids, a readable hasher and an event recorder.
import type {
  TransactionOptions,
  ApiKeyRecord,
  ChannelRecord,
  Clock,
  Deps,
  DueFilter,
  EdgeAdded,
  EventPublisher,
  Ids,
  ImportTarget,
  LiveEvent,
  NewTask,
  OutboxRecord,
  Repositories,
  RunRecord,
  RunStartRecord,
  RunStepRecordData,
  SendResult,
  SessionRecord,
  StagedRows,
  Store,
  TaskChangeRecord,
  TaskEdge,
  TaskListFilter,
  TaskListRecord,
  TaskRecord,
  TaskSummaryRecord,
  TaskWrite,
  TodoUpdateRecord,
  TokenHasher,
  ChannelSender,
  WorkspaceRecord,
} from '../src/index.ts';
import type { TaskStatus } from '@agent-tasks/schema';
import { workspacesAtShare } from '../src/channel-service.ts';
import { cycleClosedBy } from '../src/task-graph.ts';
import { frozen } from '../src/frozen.ts';
import { type MemoryTrustState, emptyTrustState, memoryTrust } from './memory-trust.ts';
import { type TaskTextState, emptyTaskTexts, memoryComments, memorySearch } from './memory-task-texts.ts';

/** A task list row: the record plus its two counters (task creation order, change feed position), and whether it is an import's hidden staging list. */
export interface TaskListRow extends TaskListRecord {
  taskSeq: number;
  changeSeq: number;
  staging: boolean;
}

/** An edge row: the edge plus its list; rows keep insertion order (the real store orders by an autoincrement id). */
export interface TaskEdgeRow extends TaskEdge {
  listId: string;
}

/** Everything the store holds; Maps keep insertion order, which stands in for a stable tie-break on `createdAt`. */
export interface MemoryState {
  workspaces: Map<string, WorkspaceRecord>;
  keys: Map<string, ApiKeyRecord>;
  sessions: Map<string, SessionRecord>;
  /** Further session tokens, in insertion order. */
  sessionTokens: { tokenHash: string; sessionId: string; createdAt: Date }[];
  todos: TodoUpdateRecord[];
  taskLists: Map<string, TaskListRow>;
  /** Keyed by `taskKey(listId, id)`: a task's id is unique only within its list. */
  tasks: Map<string, TaskRecord>;
  taskEdges: TaskEdgeRow[];
  taskChanges: TaskChangeRecord[];
  channels: Map<string, ChannelRecord>;
  runStarts: Map<string, RunStartRecord>;
  runs: Map<string, RunRecord>;
  /** Runs whose link an admin revoked. */
  revokedRunLinks: Set<string>;
  /** Rows keep insertion order; the key is (runId, seq). */
  runSteps: RunStepRecordData[];
  /** Each run as every save left it, keyed `runId@version` (stands in for the real store's prior fields). */
  runVersions: Map<string, RunRecord>;
  outbox: Map<string, OutboxRecord>;
  trust: MemoryTrustState;
  /** Comments and who read people's ones (memory-task-texts.ts). */
  texts: TaskTextState;
}

/** Repository methods a test can hook into, by `repository.method` name. */
export type RepoMethod =
  | `workspaces.${keyof Repositories['workspaces']}`
  | `keys.${keyof Repositories['keys']}`
  | `sessions.${keyof Repositories['sessions']}`
  | `todos.${keyof Repositories['todos']}`
  | `tasks.${keyof Repositories['tasks']}`
  | `channels.${keyof Repositories['channels']}`
  | `runs.${keyof Repositories['runs']}`
  | `outbox.${keyof Repositories['outbox']}`;

/** Runs just before the hooked method, with the same repositories (inside a transaction: the transaction's own) and its arguments. */
export type Hook = (repos: Repositories, args: readonly unknown[]) => void | Promise<void>;

const emptyState = (): MemoryState => ({
  workspaces: new Map(),
  keys: new Map(),
  sessions: new Map(),
  sessionTokens: [],
  todos: [],
  taskLists: new Map(),
  tasks: new Map(),
  taskEdges: [],
  taskChanges: [],
  channels: new Map(),
  runStarts: new Map(),
  runs: new Map(),
  revokedRunLinks: new Set(),
  runSteps: [],
  runVersions: new Map(),
  outbox: new Map(),
  trust: emptyTrustState(),
  texts: emptyTaskTexts(),
});

/** Statuses that resolve a blocker (mirrors the real store's `notIn: ['completed', 'deleted']`). */
const RESOLVED_STATUSES: readonly TaskStatus[] = ['completed', 'deleted'];

/** Deep copy of plain data: objects, arrays, Maps and Dates (what the records are made of). */
function clone<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, clone(v)])) as T;
  if (value instanceof Set) return new Set([...value].map(clone)) as T;
  if (Array.isArray(value)) return value.map(clone) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)])) as T;
}

/** A run as a read answers it: its own copy, with the checklist frozen (the port lets a store share it between reads). */
function readRun(run: RunRecord): RunRecord;
function readRun(run: RunRecord | null): RunRecord | null;
function readRun(run: RunRecord | null): RunRecord | null {
  if (!run) return null;
  const copy = clone(run);
  for (const field of [copy.tasks, copy.moves, copy.remarks, copy.taskContext]) frozen(field);
  return copy;
}

/** What a database would refuse: a broken unique key, a dangling reference, an update of a missing row. */
export class ConstraintError extends Error {
  constructor(message: string) {
    super(`memory store: ${message}`);
    this.name = 'ConstraintError';
  }
}

const byCreatedAt = <T extends { createdAt: Date }>(rows: T[]) =>
  rows
    .map((row, i) => ({ row, i }))
    .sort((a, b) => a.row.createdAt.getTime() - b.row.createdAt.getTime() || a.i - b.i)
    .map((x) => x.row);

/** Ids compare like SQLite's default (binary) collation: code unit by code unit. */
const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** `createdAt`, then `id` (the real store's stable tie-break for channels and outbox messages). */
const byCreatedAtThenId = <T extends { createdAt: Date; id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareIds(a.id, b.id));

const bySeq = (rows: TaskRecord[]) => [...rows].sort((a, b) => a.seq - b.seq);
const edgeOnly = (e: TaskEdge): TaskEdge => ({ blockerId: e.blockerId, blockedId: e.blockedId });
/** The key of a task in `MemoryState.tasks`: ids are scoped to their list, as the real store's (listId, id) key. */
export const taskKey = (listId: string, id: string) => `${listId}\u0000${id}`;
const isResolvedIn = (s: MemoryState, listId: string, id: string) => {
  const task = s.tasks.get(taskKey(listId, id));
  return task !== undefined && RESOLVED_STATUSES.includes(task.status);
};
const edgesIn = (s: MemoryState, listId: string) => s.taskEdges.filter((e) => e.listId === listId);
/**
 * Ready for `agent`: pending, unowned or its own, and every blocker completed or deleted. Computed from the edges on
 * every read, so it always equals the real store's kept open-blocker count.
 */
const readyIn = (s: MemoryState, t: TaskRecord, agent: string) =>
  t.status === 'pending' &&
  (t.owner === null || t.owner === agent) &&
  !edgesIn(s, t.listId).some((e) => e.blockedId === t.id && !isResolvedIn(s, t.listId, e.blockerId));

function createListIn(s: MemoryState, list: TaskListRecord, staging: boolean) {
  if (s.taskLists.has(list.id)) throw new ConstraintError(`task list id ${list.id} already exists`);
  if ([...s.taskLists.values()].some((l) => l.workspaceId === list.workspaceId && l.name === list.name)) {
    throw new ConstraintError(`task list (${list.workspaceId}, ${list.name}) already exists`);
  }
  if (!s.workspaces.has(list.workspaceId)) throw new ConstraintError(`task list references missing workspace ${list.workspaceId}`);
  s.taskLists.set(list.id, { ...clone(list), taskSeq: 0, changeSeq: 0, staging });
}

/** A staging list goes with its tasks, their edges and its changes; any other list is left alone. */
function dropStagedIn(s: MemoryState, stagingId: string) {
  if (!s.taskLists.get(stagingId)?.staging) return;
  for (const [key, task] of [...s.tasks]) if (task.listId === stagingId) s.tasks.delete(key);
  s.taskEdges = s.taskEdges.filter((e) => e.listId !== stagingId);
  s.taskChanges = s.taskChanges.filter((c) => c.listId !== stagingId);
  s.taskLists.delete(stagingId);
}

/** Inserts a task (numbered next in its list unless it brings its number); answers its number. */
function insertIn(s: MemoryState, fresh: NewTask): number {
  const list = s.taskLists.get(fresh.listId);
  if (s.tasks.has(taskKey(fresh.listId, fresh.id))) throw new ConstraintError(`task (${fresh.listId}, ${fresh.id}) already exists`);
  if (!list) throw new ConstraintError(`task references missing list ${fresh.listId}`);
  const seq = fresh.seq ?? ++list.taskSeq;
  if ([...s.tasks.values()].some((t) => t.listId === fresh.listId && t.seq === seq)) {
    throw new ConstraintError(`task (${fresh.listId}, seq ${seq}) already exists`);
  }
  s.tasks.set(taskKey(fresh.listId, fresh.id), clone({ ...fresh, seq }));
  return seq;
}

const hasEdgeIn = (s: MemoryState, listId: string, edge: TaskEdge) =>
  edgesIn(s, listId).some((e) => e.blockerId === edge.blockerId && e.blockedId === edge.blockedId);

function addEdgeIn(s: MemoryState, listId: string, edge: TaskEdge) {
  if (!s.taskLists.has(listId)) throw new ConstraintError(`task edge references missing list ${listId}`);
  for (const id of [edge.blockerId, edge.blockedId]) {
    if (!s.tasks.has(taskKey(listId, id))) throw new ConstraintError(`task edge references missing task ${id}`);
  }
  if (hasEdgeIn(s, listId, edge)) throw new ConstraintError(`task edge (${edge.blockerId}, ${edge.blockedId}) already exists`);
  s.taskEdges.push({ listId, blockerId: edge.blockerId, blockedId: edge.blockedId });
}

/** Along "blocks" edges from `from`'s direct dependants onwards, like the recursive query (a path of one edge or more). */
function reachesIn(s: MemoryState, listId: string, from: string, to: string) {
  const edges = edgesIn(s, listId);
  const seen = new Set<string>();
  let frontier = [from];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const e of edges) {
      if (frontier.includes(e.blockerId) && !seen.has(e.blockedId)) {
        seen.add(e.blockedId);
        next.push(e.blockedId);
      }
    }
    frontier = next;
  }
  return seen.has(to);
}

function appendChangeIn(s: MemoryState, change: TaskChangeRecord) {
  if (s.taskChanges.some((c) => c.listId === change.listId && c.seq === change.seq)) {
    throw new ConstraintError(`task change (${change.listId}, ${change.seq}) already exists`);
  }
  // Stored as JSON by the real store: what comes back is plain data.
  s.taskChanges.push({
    ...clone(change),
    changes: JSON.parse(JSON.stringify(change.changes)),
    snapshot: JSON.parse(JSON.stringify(change.snapshot)),
  });
}

export class MemoryStore implements Store {
  private state: MemoryState = emptyState();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly hooks = new Map<RepoMethod, Hook[]>();
  private readonly direct: Repositories;

  /** Transactions that committed / that rolled back (their work threw). */
  commits = 0;
  rollbacks = 0;
  /** Each transaction's footprint (`TransactionOptions`), in the order they were asked for. */
  footprints: (string | undefined)[] = [];

  readonly workspaces: Repositories['workspaces'];
  readonly keys: Repositories['keys'];
  readonly sessions: Repositories['sessions'];
  readonly todos: Repositories['todos'];
  readonly tasks: Repositories['tasks'];
  readonly channels: Repositories['channels'];
  readonly runs: Repositories['runs'];
  readonly outbox: Repositories['outbox'];
  readonly trust: Repositories['trust'];
  readonly comments: Repositories['comments'];
  readonly search: Repositories['search'];

  constructor() {
    // Calls outside a transaction read and write the committed state, one statement at a time.
    this.direct = this.repositories(() => this.state);
    this.workspaces = this.direct.workspaces;
    this.keys = this.direct.keys;
    this.sessions = this.direct.sessions;
    this.todos = this.direct.todos;
    this.tasks = this.direct.tasks;
    this.channels = this.direct.channels;
    this.runs = this.direct.runs;
    this.outbox = this.direct.outbox;
    this.trust = this.direct.trust;
    this.comments = this.direct.comments;
    this.search = this.direct.search;
  }

  /**
   * Transactions run one at a time (as on SQLite). `work` sees a private copy of the state; the copy replaces the
   * committed state only when `work` resolves. A throw discards it, so nothing the work wrote remains.
   */
  transaction<T>(work: (repos: Repositories) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.footprints.push(options?.footprint);
    const run = async (): Promise<T> => {
      const draft = clone(this.state);
      let open = true;
      const repos = this.repositories(() => {
        if (!open) throw new Error('memory store: repositories of a finished transaction were used');
        return draft;
      });
      try {
        const result = await work(repos);
        this.state = draft;
        this.commits++;
        return result;
      } catch (error) {
        this.rollbacks++;
        throw error;
      } finally {
        open = false;
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Registers a one-shot hook that runs before the next call of `method` (e.g. to inject a fault or a rival write). */
  once(method: RepoMethod, hook: Hook): void {
    this.hooks.set(method, [...(this.hooks.get(method) ?? []), hook]);
  }

  /** A deep copy of the committed state, for "nothing changed" assertions. */
  snapshot(): MemoryState {
    return clone(this.state);
  }

  private repositories(state: () => MemoryState): Repositories {
    const insertTodo = (update: TodoUpdateRecord) => {
      const s = state();
      if (!s.sessions.has(update.sessionId)) throw new ConstraintError(`todo update references missing session ${update.sessionId}`);
      if (s.todos.some((u) => u.id === update.id)) throw new ConstraintError(`todo update id ${update.id} already exists`);
      if (s.todos.some((u) => u.sessionId === update.sessionId && u.revision === update.revision)) {
        throw new ConstraintError(`todo update (${update.sessionId}, ${update.revision}) already exists`);
      }
      s.todos.push(clone(update));
    };
    const hooked =
      <A extends unknown[], R>(name: RepoMethod, fn: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        const pending = this.hooks.get(name);
        const hook = pending?.shift();
        if (pending && pending.length === 0) this.hooks.delete(name);
        if (hook) await hook(repos, args);
        return fn(...args);
      };

    const repos: Repositories = {
      comments: memoryComments(
        () => state().texts,
        (listId, id) => {
          if (!state().tasks.has(taskKey(listId, id))) throw new ConstraintError(`comment on missing task ${id}`);
        },
      ),
      search: memorySearch(
        () => state().texts,
        (listId) => [...state().tasks.values()].filter((t) => t.listId === listId),
      ),
      workspaces: {
        count: hooked('workspaces.count', async () => state().workspaces.size),
        create: hooked('workspaces.create', async (w: WorkspaceRecord) => {
          const s = state();
          if (s.workspaces.has(w.id)) throw new ConstraintError(`workspace id ${w.id} already exists`);
          s.workspaces.set(w.id, clone(w));
        }),
        get: hooked('workspaces.get', async (id: string) => clone(state().workspaces.get(id) ?? null)),
        update: hooked('workspaces.update', async (id: string, patch: { oneActiveRule?: boolean }) => {
          const row = state().workspaces.get(id);
          if (!row) throw new ConstraintError(`workspace ${id} does not exist`);
          if (patch.oneActiveRule !== undefined) row.oneActiveRule = patch.oneActiveRule;
          return clone(row);
        }),
      },
      keys: {
        create: hooked('keys.create', async (key: ApiKeyRecord) => {
          const s = state();
          if (s.keys.has(key.id)) throw new ConstraintError(`key id ${key.id} already exists`);
          if ([...s.keys.values()].some((k) => k.tokenHash === key.tokenHash)) throw new ConstraintError('key tokenHash must be unique');
          if (!s.workspaces.has(key.workspaceId)) throw new ConstraintError(`key references missing workspace ${key.workspaceId}`);
          s.keys.set(key.id, clone(key));
        }),
        findByHash: hooked('keys.findByHash', async (tokenHash: string) =>
          clone([...state().keys.values()].find((k) => k.tokenHash === tokenHash) ?? null),
        ),
        get: hooked('keys.get', async (workspaceId: string, id: string) => {
          const key = state().keys.get(id);
          return key && key.workspaceId === workspaceId ? clone(key) : null;
        }),
        list: hooked('keys.list', async (workspaceId: string) =>
          clone(byCreatedAt([...state().keys.values()].filter((k) => k.workspaceId === workspaceId))),
        ),
        revoke: hooked('keys.revoke', async (id: string, at: Date) => {
          const key = state().keys.get(id);
          if (!key) throw new ConstraintError(`key ${id} does not exist`);
          key.revokedAt = new Date(at.getTime());
        }),
        countActiveAdmins: hooked(
          'keys.countActiveAdmins',
          async (workspaceId: string) =>
            [...state().keys.values()].filter((k) => k.workspaceId === workspaceId && k.role === 'admin' && !k.revokedAt).length,
        ),
      },
      sessions: {
        create: hooked('sessions.create', async (session: SessionRecord) => {
          const s = state();
          if (s.sessions.has(session.id)) throw new ConstraintError(`session id ${session.id} already exists`);
          if ([...s.sessions.values()].some((x) => x.tokenHash === session.tokenHash)) {
            throw new ConstraintError('session tokenHash must be unique');
          }
          if (!s.workspaces.has(session.workspaceId))
            throw new ConstraintError(`session references missing workspace ${session.workspaceId}`);
          if (session.parentId !== null && !s.sessions.has(session.parentId)) {
            throw new ConstraintError(`session references missing parent ${session.parentId}`);
          }
          if (
            session.externalId !== null &&
            [...s.sessions.values()].some((x) => x.workspaceId === session.workspaceId && x.externalId === session.externalId)
          ) {
            throw new ConstraintError('session (workspaceId, externalId) must be unique');
          }
          s.sessions.set(session.id, clone(session));
        }),
        findByHash: hooked('sessions.findByHash', async (tokenHash: string) => {
          const s = state();
          const sessionId = s.sessionTokens.find((t) => t.tokenHash === tokenHash)?.sessionId;
          return clone([...s.sessions.values()].find((x) => x.tokenHash === tokenHash || x.id === sessionId) ?? null);
        }),
        findByExternalId: hooked('sessions.findByExternalId', async (workspaceId: string, externalId: string) =>
          clone([...state().sessions.values()].find((x) => x.workspaceId === workspaceId && x.externalId === externalId) ?? null),
        ),
        addToken: hooked('sessions.addToken', async (sessionId: string, tokenHash: string, at: Date, keep: number) => {
          const s = state();
          if (!s.sessions.has(sessionId)) throw new ConstraintError(`session token references missing session ${sessionId}`);
          s.sessionTokens.push({ tokenHash, sessionId, createdAt: new Date(at.getTime()) });
          const mine = s.sessionTokens.filter((t) => t.sessionId === sessionId);
          const dropped = new Set(mine.slice(0, Math.max(0, mine.length - keep)).map((t) => t.tokenHash));
          s.sessionTokens = s.sessionTokens.filter((t) => !dropped.has(t.tokenHash));
          return dropped.size;
        }),
        get: hooked('sessions.get', async (workspaceId: string, id: string) => {
          const session = state().sessions.get(id);
          return session && session.workspaceId === workspaceId ? clone(session) : null;
        }),
        list: hooked('sessions.list', async (workspaceId: string) =>
          clone(byCreatedAt([...state().sessions.values()].filter((x) => x.workspaceId === workspaceId))),
        ),
        setTurn: hooked('sessions.setTurn', async (id: string, turnNumber: number, turnState: SessionRecord['turnState']) => {
          const session = state().sessions.get(id);
          if (!session) throw new ConstraintError(`session ${id} does not exist`);
          session.turnNumber = turnNumber;
          session.turnState = turnState;
        }),
        deleteIfUnused: hooked('sessions.deleteIfUnused', async (workspaceId: string, id: string) => {
          const s = state();
          const session = s.sessions.get(id);
          if (!session || session.workspaceId !== workspaceId || session.todoRevision !== 0) return false;
          const used =
            [...s.sessions.values()].some((c) => c.parentId === id) ||
            [...s.runs.values()].some((r) => r.sessionId === id) ||
            [...s.runStarts.values()].some((r) => r.sessionId === id) ||
            [...s.tasks.values()].some((t) => t.sessionId === id);
          if (used) return false;
          s.sessions.delete(id);
          s.sessionTokens = s.sessionTokens.filter((t) => t.sessionId !== id);
          return true;
        }),
      },
      todos: {
        latest: hooked('todos.latest', async (sessionId: string) => {
          const rows = state().todos.filter((u) => u.sessionId === sessionId);
          const top = rows.reduce<TodoUpdateRecord | null>((best, u) => (!best || u.revision > best.revision ? u : best), null);
          return clone(top);
        }),
        at: hooked('todos.at', async (sessionId: string, revision: number) =>
          clone(state().todos.find((u) => u.sessionId === sessionId && u.revision === revision) ?? null),
        ),
        insert: hooked('todos.insert', async (update: TodoUpdateRecord) => insertTodo(update)),
        // Everything is held without reading here.
        latestKnown: hooked('todos.latestKnown', async (sessionId: string) => {
          const rows = state().todos.filter((u) => u.sessionId === sessionId);
          return clone(rows.reduce<TodoUpdateRecord | null>((best, u) => (!best || u.revision > best.revision ? u : best), null));
        }),
        advance: hooked(
          'todos.advance',
          async (workspaceId: string, expected: number | undefined, draft: Omit<TodoUpdateRecord, 'turnNumber'>) => {
            const session = state().sessions.get(draft.sessionId);
            if (!session || session.workspaceId !== workspaceId) return null;
            if (expected !== undefined && session.todoRevision !== expected) return null;
            session.todoRevision += 1;
            const moved = { todoRevision: session.todoRevision, turnNumber: session.turnNumber };
            const recorded = moved.todoRevision === draft.revision;
            if (recorded) insertTodo({ ...draft, turnNumber: moved.turnNumber });
            return { ...moved, recorded };
          },
        ),
        page: hooked('todos.page', async (sessionId: string, before: number | null, limit: number) =>
          clone(
            state()
              .todos.filter((u) => u.sessionId === sessionId && (before === null || u.revision < before))
              .sort((a, b) => b.revision - a.revision)
              .slice(0, limit),
          ),
        ),
        after: hooked('todos.after', async (sessionId: string, after: number, limit: number) =>
          clone(
            state()
              .todos.filter((u) => u.sessionId === sessionId && u.revision > after)
              .sort((a, b) => a.revision - b.revision)
              .slice(0, limit),
          ),
        ),
        atRevisions: hooked('todos.atRevisions', async (refs: readonly { sessionId: string; revision: number }[]) =>
          clone(state().todos.filter((u) => refs.some((r) => r.sessionId === u.sessionId && r.revision === u.revision))),
        ),
      },
      tasks: {
        findList: hooked('tasks.findList', async (workspaceId: string, name: string, _options?: { hold?: boolean }) => {
          // Holding a list is a no-op here: transactions already run one at a time.
          const row = [...state().taskLists.values()].find((l) => l.workspaceId === workspaceId && l.name === name && !l.staging);
          if (!row) return null;
          const { taskSeq, changeSeq, staging, ...list } = row;
          return clone(list);
        }),
        createList: hooked('tasks.createList', async (list: TaskListRecord) => createListIn(state(), list, false)),
        listNames: hooked('tasks.listNames', async (workspaceId: string) =>
          [...state().taskLists.values()]
            .filter((l) => l.workspaceId === workspaceId && !l.staging)
            .map((l) => l.name)
            .sort(),
        ),
        idOfSeq: hooked(
          'tasks.idOfSeq',
          async (listId: string, seq: number) => [...state().tasks.values()].find((t) => t.listId === listId && t.seq === seq)?.id ?? null,
        ),
        taskSeqOf: hooked('tasks.taskSeqOf', async (listId: string) => state().taskLists.get(listId)?.taskSeq ?? 0),
        raiseTaskSeq: hooked('tasks.raiseTaskSeq', async (listId: string, atLeast: number) => {
          const row = state().taskLists.get(listId);
          if (row && row.taskSeq < atLeast) row.taskSeq = atLeast;
        }),
        feedPosition: hooked('tasks.feedPosition', async (listId: string) => state().taskLists.get(listId)?.changeSeq ?? 0),
        get: hooked('tasks.get', async (listId: string, id: string) => clone(state().tasks.get(taskKey(listId, id)) ?? null)),
        getMany: hooked('tasks.getMany', async (listId: string, ids: readonly string[]) =>
          clone(bySeq([...state().tasks.values()].filter((t) => t.listId === listId && ids.includes(t.id)))),
        ),
        insert: hooked('tasks.insert', async (fresh: NewTask) => insertIn(state(), fresh)),
        addEdge: hooked('tasks.addEdge', async (listId: string, edge: TaskEdge): Promise<EdgeAdded> => {
          const s = state();
          if (hasEdgeIn(s, listId, edge)) return { added: false };
          // One check on the reachability of the blocker from the blocked task; core's walk then names the cycle.
          if (reachesIn(s, listId, edge.blockedId, edge.blockerId)) {
            const cycle = await cycleClosedBy(edge.blockerId, edge.blockedId, async (ids) =>
              edgesIn(s, listId)
                .filter((e) => ids.includes(e.blockerId))
                .map(edgeOnly),
            );
            if (cycle) return { added: false, cycle };
          }
          addEdgeIn(s, listId, edge);
          return { added: true };
        }),
        removeEdges: hooked('tasks.removeEdges', async (listId: string, edges: readonly TaskEdge[]) => {
          const s = state();
          const gone = s.taskEdges.filter(
            (e) => e.listId === listId && edges.some((x) => x.blockerId === e.blockerId && x.blockedId === e.blockedId),
          );
          s.taskEdges = s.taskEdges.filter((e) => !gone.includes(e));
          return gone.map(edgeOnly);
        }),
        // Readiness here is computed from the edges on every read (see readyIn): `write.readiness` has no count to refresh.
        commit: hooked('tasks.commit', async (listId: string, write: TaskWrite) => {
          const s = state();
          for (const { task, fromVersion } of write.tasks) {
            const row = s.tasks.get(taskKey(listId, task.id));
            if (!row || row.version !== fromVersion) return null;
            // Like the real store: every field but the keys and creation facts (id, listId, seq, createdAt).
            const { id, listId: _list, seq, createdAt, ...fields } = clone(task);
            Object.assign(row, fields);
          }
          const list = s.taskLists.get(listId);
          if (!list) throw new ConstraintError(`task list ${listId} does not exist`);
          return write.changes.map((change) => {
            const record = { ...change, listId, seq: ++list.changeSeq };
            appendChangeIn(s, record);
            return clone(record);
          });
        }),
        importInProgress: hooked('tasks.importInProgress', async (workspaceId: string, abandonedBefore?: Date) => {
          const s = state();
          if (abandonedBefore) {
            for (const list of [...s.taskLists.values()]) {
              if (list.staging && list.workspaceId === workspaceId && list.createdAt.getTime() < abandonedBefore.getTime()) {
                dropStagedIn(s, list.id);
              }
            }
          }
          const staging = [...s.taskLists.values()].filter((l) => l.staging && l.workspaceId === workspaceId);
          return staging.length ? new Date(Math.max(...staging.map((l) => l.createdAt.getTime()))) : null;
        }),
        taken: hooked('tasks.taken', async (listId: string, asked: { ids?: readonly string[]; seqs?: readonly number[] }) => {
          const s = state();
          const seqs = asked.seqs ?? [];
          return {
            ids: (asked.ids ?? []).filter((id) => s.tasks.has(taskKey(listId, id))),
            seqs: [...s.tasks.values()]
              .filter((t) => t.listId === listId && seqs.includes(t.seq))
              .map((t) => t.seq)
              .sort((a, b) => a - b),
          };
        }),
        stageImport: hooked('tasks.stageImport', async (staging: TaskListRecord, at: Date, rows: StagedRows) => {
          const s = state();
          const row = s.taskLists.get(staging.id);
          if (row && !row.staging) throw new Error(`task list ${staging.id} is not a staging list`);
          if (!row) createListIn(s, { ...staging, createdAt: at }, true);
          else row.createdAt = new Date(at.getTime());
          for (const task of rows.tasks ?? []) insertIn(s, { ...task, listId: staging.id });
          for (const edge of rows.edges ?? []) addEdgeIn(s, staging.id, edge);
          for (const change of rows.changes ?? []) appendChangeIn(s, { ...change, listId: staging.id });
        }),
        publishImport: hooked('tasks.publishImport', async (stagingId: string, target: ImportTarget, count: number) => {
          const s = state();
          const row = s.taskLists.get(stagingId);
          if (!row?.staging) throw new Error(`task list ${stagingId} is not a staging list`);
          if ('name' in target) {
            if ([...s.taskLists.values()].some((l) => l.workspaceId === row.workspaceId && l.name === target.name)) {
              throw new ConstraintError(`task list (${row.workspaceId}, ${target.name}) already exists`);
            }
            Object.assign(row, { name: target.name, staging: false, taskSeq: target.taskSeq, changeSeq: count });
            return { taskShift: 0, firstChange: 1 };
          }
          const list = s.taskLists.get(target.listId);
          if (!list) throw new ConstraintError(`task list ${target.listId} does not exist`);
          let taskShift = 0;
          if (target.keepNumbers !== undefined) list.taskSeq = Math.max(list.taskSeq, target.keepNumbers);
          else {
            taskShift = list.taskSeq + 1 - target.stagedFrom;
            list.taskSeq += count;
          }
          const firstChange = list.changeSeq + 1;
          if (taskShift === 0) list.changeSeq += count;
          else s.taskChanges = s.taskChanges.filter((c) => c.listId !== stagingId);
          for (const [key, task] of [...s.tasks]) {
            if (task.listId !== stagingId) continue;
            s.tasks.delete(key);
            const moved = { ...task, listId: target.listId, seq: task.seq + taskShift };
            const clash = [...s.tasks.values()].some((t) => t.listId === target.listId && (t.id === moved.id || t.seq === moved.seq));
            if (clash) throw new ConstraintError(`task (${target.listId}, ${moved.id}) already exists`);
            s.tasks.set(taskKey(target.listId, moved.id), moved);
          }
          for (const edge of s.taskEdges) if (edge.listId === stagingId) edge.listId = target.listId;
          for (const change of s.taskChanges) {
            if (change.listId !== stagingId) continue;
            change.listId = target.listId;
            change.seq += firstChange - 1;
          }
          s.taskLists.delete(stagingId);
          return { taskShift, firstChange };
        }),
        abandonImport: hooked('tasks.abandonImport', async (stagingId: string, counter?: { listId: string; from: number; to: number }) => {
          const s = state();
          dropStagedIn(s, stagingId);
          const row = counter ? s.taskLists.get(counter.listId) : undefined;
          if (counter && row && row.taskSeq === counter.to) row.taskSeq = counter.from;
        }),
        edgesOf: hooked('tasks.edgesOf', async (listId: string, ids: readonly string[]) =>
          edgesIn(state(), listId)
            .filter((e) => ids.includes(e.blockerId) || ids.includes(e.blockedId))
            .map(edgeOnly),
        ),
        unresolvedBlockers: hooked('tasks.unresolvedBlockers', async (listId: string, ids: readonly string[]) => {
          const s = state();
          return edgesIn(s, listId)
            .filter((e) => ids.includes(e.blockedId) && !isResolvedIn(s, listId, e.blockerId))
            .map(edgeOnly);
        }),
        list: hooked('tasks.list', async (listId: string, filter: TaskListFilter) => {
          const s = state();
          const rows = bySeq(
            [...s.tasks.values()].filter(
              (t) =>
                t.listId === listId &&
                filter.statuses.includes(t.status) &&
                (filter.owner === undefined || t.owner === filter.owner) &&
                (filter.readyFor === undefined || readyIn(s, t, filter.readyFor)) &&
                (!filter.ready || readyIn(s, t, t.owner ?? '')) &&
                (filter.priorities === undefined || (t.priority !== null && filter.priorities.includes(t.priority))) &&
                (filter.label === undefined || t.labels.includes(filter.label)),
            ),
          );
          return clone(
            rows
              .slice(0, filter.limit)
              .map(({ id, seq, subject, status, activeForm, owner, priority, labels, version }): TaskSummaryRecord => ({
                id,
                seq,
                subject,
                status,
                activeForm,
                owner,
                priority,
                labels,
                version,
              })),
          );
        }),
        firstReady: hooked('tasks.firstReady', async (listId: string, agent: string) => {
          const s = state();
          const urgency = (t: TaskRecord) => (t.priority === null ? 5 : Number(t.priority.slice(1)));
          const ready = bySeq([...s.tasks.values()].filter((t) => t.listId === listId && readyIn(s, t, agent)));
          const first = [...ready].sort((a, b) => urgency(a) - urgency(b))[0];
          return clone(first ?? null);
        }),
        graph: hooked('tasks.graph', async (listId: string, statuses: readonly TaskStatus[]) => {
          const s = state();
          const tasks = bySeq([...s.tasks.values()].filter((t) => t.listId === listId && statuses.includes(t.status)));
          const inGraph = new Set(tasks.map((t) => t.id));
          const edges = edgesIn(s, listId)
            .filter((e) => inGraph.has(e.blockerId) && inGraph.has(e.blockedId))
            .map(edgeOnly);
          return { tasks: clone(tasks), edges };
        }),
        changesOf: hooked('tasks.changesOf', async (listId: string, taskId: string) =>
          clone(
            state()
              .taskChanges.filter((c) => c.listId === listId && c.taskId === taskId)
              .sort((a, b) => a.seq - b.seq),
          ),
        ),
        changesAfter: hooked('tasks.changesAfter', async (listId: string, seq: number, limit: number) =>
          clone(
            state()
              .taskChanges.filter((c) => c.listId === listId && c.seq > seq)
              .sort((a, b) => a.seq - b.seq)
              .slice(0, limit),
          ),
        ),
        lists: hooked('tasks.lists', async (workspaceId: string) => {
          const s = state();
          return [...s.taskLists.values()]
            .filter((l) => l.workspaceId === workspaceId && !l.staging)
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
            .map(({ taskSeq, staging, ...list }) => {
              const counts: Partial<Record<TaskStatus, number>> = {};
              for (const t of s.tasks.values()) if (t.listId === list.id) counts[t.status] = (counts[t.status] ?? 0) + 1;
              return { ...clone(list), counts };
            });
        }),
      },
      channels: {
        create: hooked('channels.create', async (channel: ChannelRecord) => {
          const s = state();
          if (s.channels.has(channel.id)) throw new ConstraintError(`channel id ${channel.id} already exists`);
          if (!s.workspaces.has(channel.workspaceId))
            throw new ConstraintError(`channel references missing workspace ${channel.workspaceId}`);
          s.channels.set(channel.id, clone(channel));
        }),
        list: hooked('channels.list', async (workspaceId: string) =>
          clone(byCreatedAtThenId([...state().channels.values()].filter((c) => c.workspaceId === workspaceId))),
        ),
        delete: hooked('channels.delete', async (workspaceId: string, id: string) => {
          const s = state();
          const channel = s.channels.get(id);
          if (!channel || channel.workspaceId !== workspaceId) return false;
          s.channels.delete(id);
          return true;
        }),
      },
      runs: {
        createStart: hooked('runs.createStart', async (start: RunStartRecord) => {
          const s = state();
          if (s.runStarts.has(start.id)) throw new ConstraintError(`run start id ${start.id} already exists`);
          s.runStarts.set(start.id, clone(start));
        }),
        getStart: hooked('runs.getStart', async (workspaceId: string, id: string) => {
          const start = state().runStarts.get(id);
          return start && start.workspaceId === workspaceId ? clone(start) : null;
        }),
        markStartExecuted: hooked('runs.markStartExecuted', async (id: string, runId: string) => {
          const start = state().runStarts.get(id);
          if (!start || start.runId !== null) return false;
          start.runId = runId;
          return true;
        }),
        create: hooked('runs.create', async (run: RunRecord) => {
          const s = state();
          if (s.runs.has(run.id)) throw new ConstraintError(`run id ${run.id} already exists`);
          if ([...s.runs.values()].some((r) => r.startAttemptId === run.startAttemptId)) {
            throw new ConstraintError(`run startAttemptId ${run.startAttemptId} must be unique`);
          }
          if (!s.workspaces.has(run.workspaceId)) throw new ConstraintError(`run references missing workspace ${run.workspaceId}`);
          s.runs.set(run.id, clone(run));
          s.runVersions.set(`${run.id}@${run.version}`, clone(run));
        }),
        get: hooked('runs.get', async (workspaceId: string, id: string) => {
          const run = state().runs.get(id);
          return run && run.workspaceId === workspaceId ? readRun(run) : null;
        }),
        versionOf: hooked('runs.versionOf', async (workspaceId: string, id: string) => {
          const run = state().runs.get(id);
          return run && run.workspaceId === workspaceId ? run.version : null;
        }),
        getAnywhere: hooked('runs.getAnywhere', async (id: string) =>
          state().revokedRunLinks.has(id) ? null : readRun(state().runs.get(id) ?? null),
        ),
        setLinkRevoked: hooked('runs.setLinkRevoked', async (workspaceId: string, id: string, at: Date | null) => {
          const s = state();
          if (s.runs.get(id)?.workspaceId !== workspaceId) return false;
          if (at) s.revokedRunLinks.add(id);
          else s.revokedRunLinks.delete(id);
          return true;
        }),
        save: hooked('runs.save', async (run: RunRecord, fromVersion: number, step: RunStepRecordData) => {
          const s = state();
          const row = s.runs.get(run.id);
          if (!row || row.version !== fromVersion) return false;
          if (s.runSteps.some((x) => x.runId === step.runId && x.seq === step.seq)) {
            throw new ConstraintError(`run step (${step.runId}, ${step.seq}) already exists`);
          }
          // Like SQLite's unique index: NULL attempt ids never collide.
          if (step.attemptId !== null && s.runSteps.some((x) => x.runId === step.runId && x.attemptId === step.attemptId)) {
            throw new ConstraintError(`run step (${step.runId}, attempt ${step.attemptId}) already exists`);
          }
          // Like the real store: every field but the keys and creation facts.
          const { id, workspaceId, sessionId, parentRunId, startAttemptId, createdAt, ...fields } = clone(run);
          Object.assign(row, fields);
          s.runSteps.push(clone(step));
          s.runVersions.set(`${run.id}@${row.version}`, clone(row));
          return true;
        }),
        atVersion: hooked('runs.atVersion', async (workspaceId: string, id: string, version: number) => {
          const run = state().runVersions.get(`${id}@${version}`);
          return run && run.workspaceId === workspaceId ? readRun(run) : null;
        }),
        list: hooked('runs.list', async (workspaceId: string, filter: { sessionId?: string | undefined; limit: number }) =>
          byCreatedAt(
            [...state().runs.values()].filter(
              (r) => r.workspaceId === workspaceId && (!filter.sessionId || r.sessionId === filter.sessionId),
            ),
          )
            .reverse()
            .slice(0, filter.limit)
            .map((r) => readRun(r)),
        ),
        steps: hooked('runs.steps', async (runId: string) =>
          clone(
            state()
              .runSteps.filter((x) => x.runId === runId)
              .sort((a, b) => a.seq - b.seq),
          ),
        ),
        findStepByAttempt: hooked('runs.findStepByAttempt', async (runId: string, attemptId: string) =>
          clone(state().runSteps.find((x) => x.runId === runId && x.attemptId === attemptId) ?? null),
        ),
      },
      outbox: {
        enqueue: hooked('outbox.enqueue', async (queued: Omit<OutboxRecord, 'deadAt' | 'retriedAt'>) => {
          const message: OutboxRecord = { ...queued, deadAt: null, retriedAt: null };
          const s = state();
          if (s.outbox.has(message.id)) throw new ConstraintError(`outbox message id ${message.id} already exists`);
          if ([...s.outbox.values()].some((m) => m.idempotencyKey === message.idempotencyKey)) {
            throw new ConstraintError(`outbox idempotencyKey ${message.idempotencyKey} must be unique`);
          }
          // Stored as JSON by the real store: what comes back is plain data.
          s.outbox.set(message.id, { ...clone(message), payload: JSON.parse(JSON.stringify(message.payload)) });
        }),
        due: hooked('outbox.due', async (now: Date, limit: number, skip: DueFilter = {}) => {
          const skipChannels = skip.channels ?? [];
          const full = skip.share ? workspacesAtShare(skip.share) : [];
          return clone(
            [...state().outbox.values()]
              .map((m) => ({ m }))
              .filter(
                ({ m }) =>
                  m.deliveredAt === null &&
                  m.deadAt === null &&
                  m.nextAttemptAt.getTime() <= now.getTime() &&
                  !skipChannels.includes(m.channelId) &&
                  !full.includes(m.workspaceId),
              )
              .sort(
                (a, b) =>
                  a.m.nextAttemptAt.getTime() - b.m.nextAttemptAt.getTime() ||
                  a.m.createdAt.getTime() - b.m.createdAt.getTime() ||
                  compareIds(a.m.id, b.m.id),
              )
              .map(({ m }) => m)
              .slice(0, limit),
          );
        }),
        markDelivered: hooked('outbox.markDelivered', async (id: string, at: Date, attempts: number) => {
          const message = state().outbox.get(id);
          if (!message) throw new ConstraintError(`outbox message ${id} does not exist`);
          message.deliveredAt = new Date(at.getTime());
          message.attempts = attempts;
          message.lastError = null;
        }),
        markFailed: hooked('outbox.markFailed', async (id: string, attempts: number, nextAttemptAt: Date, error: string) => {
          const message = state().outbox.get(id);
          if (!message) throw new ConstraintError(`outbox message ${id} does not exist`);
          message.attempts = attempts;
          message.nextAttemptAt = new Date(nextAttemptAt.getTime());
          // Like the real store: the error is kept to its first 500 characters.
          message.lastError = error.slice(0, 500);
          // The channel's other waiting messages wait as long.
          for (const m of state().outbox.values()) {
            if (m.channelId === message.channelId && m.deliveredAt === null && m.deadAt === null && m.nextAttemptAt < nextAttemptAt) {
              m.nextAttemptAt = new Date(nextAttemptAt.getTime());
            }
          }
        }),
        markDead: hooked('outbox.markDead', async (id: string, attempts: number, at: Date, error: string) => {
          const message = state().outbox.get(id);
          if (!message) throw new ConstraintError(`outbox message ${id} does not exist`);
          message.attempts = attempts;
          message.deadAt = new Date(at.getTime());
          message.lastError = error.slice(0, 500);
        }),
        get: hooked('outbox.get', async (workspaceId: string, id: string) => {
          const message = state().outbox.get(id);
          return message && message.workspaceId === workspaceId ? clone(message) : null;
        }),
        release: hooked('outbox.release', async (id: string, at: Date) => {
          const message = state().outbox.get(id);
          if (message && !message.deliveredAt && !message.deadAt) message.nextAttemptAt = new Date(at.getTime());
        }),
        retry: hooked('outbox.retry', async (id: string, at: Date) => {
          const message = state().outbox.get(id);
          if (!message) throw new ConstraintError(`outbox message ${id} does not exist`);
          message.deadAt = null;
          message.retriedAt = new Date(at.getTime());
          message.nextAttemptAt = new Date(at.getTime());
        }),
        forRun: hooked('outbox.forRun', async (runId: string) =>
          clone(byCreatedAtThenId([...state().outbox.values()].filter((m) => m.runId === runId))),
        ),
        dropPending: hooked('outbox.dropPending', async (channelId: string) => {
          const s = state();
          for (const [id, m] of s.outbox) if (m.channelId === channelId && m.deliveredAt === null) s.outbox.delete(id);
        }),
        recent: hooked('outbox.recent', async (workspaceId: string, limit: number) =>
          clone(
            byCreatedAtThenId([...state().outbox.values()].filter((m) => m.workspaceId === workspaceId))
              .reverse()
              .slice(0, limit),
          ),
        ),
      },
      trust: memoryTrust(
        () => state().trust,
        () => state().taskLists,
        () => state().tasks,
        () => repos.tasks,
      ),
    };
    return repos;
  }
}

/** A clock that stands still until a test moves it. */
export class FakeClock implements Clock {
  private current: Date;
  constructor(start: Date | string = '2025-01-01T00:00:00.000Z') {
    this.current = new Date(start);
  }
  now(): Date {
    return new Date(this.current.getTime());
  }
  set(at: Date | string): void {
    this.current = new Date(at);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/**
 * Deterministic ids: `ses_1`, `ses_2`, `key_1`, …; secrets `atk_secret_1`, … (one counter per prefix); UUIDs
 * `00000000-0000-4000-8000-000000000001`, … (a counter of their own, well-formed v4 shape).
 */
export class CounterIds implements Ids {
  private readonly counters = new Map<string, number>();
  private next(name: string): number {
    const n = (this.counters.get(name) ?? 0) + 1;
    this.counters.set(name, n);
    return n;
  }
  id(prefix: string): string {
    return `${prefix}_${this.next(`id:${prefix}`)}`;
  }
  /** Counted with `id` (ordered by creation already). */
  ordered(prefix: string): string {
    return this.id(prefix);
  }
  secret(prefix: string): string {
    return `${prefix}_secret_${this.next(`secret:${prefix}`)}`;
  }
  uuid(): string {
    return `00000000-0000-4000-8000-${String(this.next('uuid')).padStart(12, '0')}`;
  }
}

/** A readable stand-in for the real hash: `h:` + token. */
export const prefixHasher: TokenHasher = { hash: (token) => `h:${token}` };

/** Keeps every published event, in order. */
export class RecordingEvents implements EventPublisher {
  readonly published: LiveEvent[] = [];
  publish(event: LiveEvent): void {
    this.published.push(clone(event));
  }
}

/** Base URL of run pages in the fake deps (links in notifications). */
export const PUBLIC_URL = 'https://tasks.example.com';

export function makeDeps() {
  const store = new MemoryStore();
  const clock = new FakeClock();
  const ids = new CounterIds();
  const events = new RecordingEvents();
  const deps: Deps = { store, clock, ids, hasher: prefixHasher, events, runPage: (runId) => `${PUBLIC_URL}/runs/${runId}` };
  return { deps, store, clock, events, ids };
}

/** A webhook receiver the test scripts: answers from `script` in order (then `fallback`), and records every call. */
export class FakeSender implements ChannelSender {
  readonly calls: { url: string; body: unknown; idempotencyKey: string }[] = [];
  private readonly script: SendResult[] = [];
  fallback: { ok: true } | { ok: false; error: string } = { ok: true };

  /** Queues the next answers: true for accepted, a string for a failure with that error. */
  answer(...results: (true | string)[]): this {
    this.script.push(...results.map((r) => (r === true ? { ok: true as const } : { ok: false as const, error: r })));
    return this;
  }

  /** Queues an attempt the receiver does not answer in time. */
  timeout(error = 'no answer within 10 s'): this {
    this.script.push({ ok: false, error, timedOut: true });
    return this;
  }

  /** URLs the fake refuses to reach, with the reason (what a real sender says of an internal address). */
  readonly refusals = new Map<string, string>();

  async check(url: string) {
    return this.refusals.get(url) ?? null;
  }

  async send(url: string, body: unknown, idempotencyKey: string) {
    this.calls.push({ url, body: clone(body), idempotencyKey });
    return this.script.shift() ?? this.fallback;
  }
}
