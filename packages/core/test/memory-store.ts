// In-memory test doubles for the core's ports: a transactional Store, a settable Clock, counter Ids, a readable hasher and an event recorder.
import type {
  ApiKeyRecord,
  Clock,
  Deps,
  EventPublisher,
  Ids,
  LiveEvent,
  Repositories,
  SessionRecord,
  Store,
  TaskChangeRecord,
  TaskEdge,
  TaskListFilter,
  TaskListRecord,
  TaskRecord,
  TodoUpdateRecord,
  TokenHasher,
  WorkspaceRecord,
} from '../src/index.ts';
import type { TaskStatus } from '@agent-tasks/schema';

/** A task list row: the record plus its two counters (task creation order, change feed position). */
export interface TaskListRow extends TaskListRecord {
  taskSeq: number;
  changeSeq: number;
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
  todos: TodoUpdateRecord[];
  taskLists: Map<string, TaskListRow>;
  tasks: Map<string, TaskRecord>;
  taskEdges: TaskEdgeRow[];
  taskChanges: TaskChangeRecord[];
}

/** Repository methods a test can hook into, by `repository.method` name. */
export type RepoMethod =
  | `workspaces.${keyof Repositories['workspaces']}`
  | `keys.${keyof Repositories['keys']}`
  | `sessions.${keyof Repositories['sessions']}`
  | `todos.${keyof Repositories['todos']}`
  | `tasks.${keyof Repositories['tasks']}`;

/** Runs just before the hooked method, with the same repositories (inside a transaction: the transaction's own). */
export type Hook = (repos: Repositories) => void | Promise<void>;

const emptyState = (): MemoryState => ({
  workspaces: new Map(),
  keys: new Map(),
  sessions: new Map(),
  todos: [],
  taskLists: new Map(),
  tasks: new Map(),
  taskEdges: [],
  taskChanges: [],
});

/** Statuses that resolve a blocker (mirrors the real store's `notIn: ['completed', 'deleted']`). */
const RESOLVED_STATUSES: readonly TaskStatus[] = ['completed', 'deleted'];

/** Deep copy of plain data: objects, arrays, Maps and Dates (what the records are made of). */
function clone<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, clone(v)])) as T;
  if (Array.isArray(value)) return value.map(clone) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)])) as T;
}

/** What a database would refuse: a broken unique key, a dangling reference, an update of a missing row. */
export class ConstraintError extends Error {
  constructor(message: string) {
    super(`memory store: ${message}`);
    this.name = 'ConstraintError';
  }
}

const byCreatedAt = <T extends { createdAt: Date }>(rows: T[]) =>
  rows.map((row, i) => ({ row, i })).sort((a, b) => a.row.createdAt.getTime() - b.row.createdAt.getTime() || a.i - b.i).map((x) => x.row);

const bySeq = (rows: TaskRecord[]) => [...rows].sort((a, b) => a.seq - b.seq);
const edgeOnly = (e: TaskEdge): TaskEdge => ({ blockerId: e.blockerId, blockedId: e.blockedId });
const isResolvedIn = (s: MemoryState, id: string) => {
  const task = s.tasks.get(id);
  return task !== undefined && RESOLVED_STATUSES.includes(task.status);
};
/** Ready for `agent`: pending, unowned or its own, and every blocker completed or deleted. */
const readyIn = (s: MemoryState, t: TaskRecord, agent: string) =>
  t.status === 'pending' &&
  (t.owner === null || t.owner === agent) &&
  !s.taskEdges.some((e) => e.blockedId === t.id && !isResolvedIn(s, e.blockerId));

export class MemoryStore implements Store {
  private state: MemoryState = emptyState();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly hooks = new Map<RepoMethod, Hook[]>();
  private readonly direct: Repositories;

  /** Transactions that committed / that rolled back (their work threw). */
  commits = 0;
  rollbacks = 0;

  readonly workspaces: Repositories['workspaces'];
  readonly keys: Repositories['keys'];
  readonly sessions: Repositories['sessions'];
  readonly todos: Repositories['todos'];
  readonly tasks: Repositories['tasks'];

  constructor() {
    // Calls outside a transaction read and write the committed state, one statement at a time.
    this.direct = this.repositories(() => this.state);
    this.workspaces = this.direct.workspaces;
    this.keys = this.direct.keys;
    this.sessions = this.direct.sessions;
    this.todos = this.direct.todos;
    this.tasks = this.direct.tasks;
  }

  /**
   * Transactions run one at a time (as on SQLite). `work` sees a private copy of the state; the copy replaces the
   * committed state only when `work` resolves. A throw discards it, so nothing the work wrote remains.
   */
  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
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
    const hooked = <A extends unknown[], R>(name: RepoMethod, fn: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        const pending = this.hooks.get(name);
        const hook = pending?.shift();
        if (pending && pending.length === 0) this.hooks.delete(name);
        if (hook) await hook(repos);
        return fn(...args);
      };

    const repos: Repositories = {
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
        countActiveAdmins: hooked('keys.countActiveAdmins', async (workspaceId: string) =>
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
          if (!s.workspaces.has(session.workspaceId)) throw new ConstraintError(`session references missing workspace ${session.workspaceId}`);
          if (session.parentId !== null && !s.sessions.has(session.parentId)) {
            throw new ConstraintError(`session references missing parent ${session.parentId}`);
          }
          s.sessions.set(session.id, clone(session));
        }),
        findByHash: hooked('sessions.findByHash', async (tokenHash: string) =>
          clone([...state().sessions.values()].find((x) => x.tokenHash === tokenHash) ?? null),
        ),
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
        advanceTodoRevision: hooked('sessions.advanceTodoRevision', async (id: string, from: number, to: number) => {
          const session = state().sessions.get(id);
          if (!session || session.todoRevision !== from) return false;
          session.todoRevision = to;
          return true;
        }),
      },
      todos: {
        latest: hooked('todos.latest', async (sessionId: string) => {
          const rows = state().todos.filter((u) => u.sessionId === sessionId);
          const top = rows.reduce<TodoUpdateRecord | null>((best, u) => (!best || u.revision > best.revision ? u : best), null);
          return clone(top);
        }),
        insert: hooked('todos.insert', async (update: TodoUpdateRecord) => {
          const s = state();
          if (!s.sessions.has(update.sessionId)) throw new ConstraintError(`todo update references missing session ${update.sessionId}`);
          if (s.todos.some((u) => u.id === update.id)) throw new ConstraintError(`todo update id ${update.id} already exists`);
          if (s.todos.some((u) => u.sessionId === update.sessionId && u.revision === update.revision)) {
            throw new ConstraintError(`todo update (${update.sessionId}, ${update.revision}) already exists`);
          }
          s.todos.push(clone(update));
        }),
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
      },
      tasks: {
        findList: hooked('tasks.findList', async (workspaceId: string, name: string) => {
          const row = [...state().taskLists.values()].find((l) => l.workspaceId === workspaceId && l.name === name);
          if (!row) return null;
          const { taskSeq, changeSeq, ...list } = row;
          return clone(list);
        }),
        createList: hooked('tasks.createList', async (list: TaskListRecord) => {
          const s = state();
          if (s.taskLists.has(list.id)) throw new ConstraintError(`task list id ${list.id} already exists`);
          if ([...s.taskLists.values()].some((l) => l.workspaceId === list.workspaceId && l.name === list.name)) {
            throw new ConstraintError(`task list (${list.workspaceId}, ${list.name}) already exists`);
          }
          if (!s.workspaces.has(list.workspaceId)) throw new ConstraintError(`task list references missing workspace ${list.workspaceId}`);
          s.taskLists.set(list.id, { ...clone(list), taskSeq: 0, changeSeq: 0 });
        }),
        nextTaskSeq: hooked('tasks.nextTaskSeq', async (listId: string) => {
          const list = state().taskLists.get(listId);
          if (!list) throw new ConstraintError(`task list ${listId} does not exist`);
          return ++list.taskSeq;
        }),
        nextChangeSeq: hooked('tasks.nextChangeSeq', async (listId: string) => {
          const list = state().taskLists.get(listId);
          if (!list) throw new ConstraintError(`task list ${listId} does not exist`);
          return ++list.changeSeq;
        }),
        insert: hooked('tasks.insert', async (task: TaskRecord) => {
          const s = state();
          if (s.tasks.has(task.id)) throw new ConstraintError(`task id ${task.id} already exists`);
          if (!s.taskLists.has(task.listId)) throw new ConstraintError(`task references missing list ${task.listId}`);
          if ([...s.tasks.values()].some((t) => t.listId === task.listId && t.seq === task.seq)) {
            throw new ConstraintError(`task (${task.listId}, seq ${task.seq}) already exists`);
          }
          s.tasks.set(task.id, clone(task));
        }),
        get: hooked('tasks.get', async (listId: string, id: string) => {
          const task = state().tasks.get(id);
          return task && task.listId === listId ? clone(task) : null;
        }),
        getMany: hooked('tasks.getMany', async (listId: string, ids: readonly string[]) =>
          clone(bySeq([...state().tasks.values()].filter((t) => t.listId === listId && ids.includes(t.id)))),
        ),
        idTaken: hooked('tasks.idTaken', async (id: string) => state().tasks.has(id)),
        update: hooked('tasks.update', async (task: TaskRecord, fromVersion: number) => {
          const row = state().tasks.get(task.id);
          if (!row || row.version !== fromVersion) return false;
          // Like the real store: every field but the keys and creation facts (id, listId, seq, createdAt).
          const { id, listId, seq, createdAt, ...fields } = clone(task);
          Object.assign(row, fields);
          return true;
        }),
        edgesOf: hooked('tasks.edgesOf', async (ids: readonly string[]) =>
          state()
            .taskEdges.filter((e) => ids.includes(e.blockerId) || ids.includes(e.blockedId))
            .map(edgeOnly),
        ),
        blocksOf: hooked('tasks.blocksOf', async (ids: readonly string[]) =>
          state()
            .taskEdges.filter((e) => ids.includes(e.blockerId))
            .map(edgeOnly),
        ),
        addEdge: hooked('tasks.addEdge', async (listId: string, edge: TaskEdge) => {
          const s = state();
          if (!s.taskLists.has(listId)) throw new ConstraintError(`task edge references missing list ${listId}`);
          for (const id of [edge.blockerId, edge.blockedId]) {
            if (!s.tasks.has(id)) throw new ConstraintError(`task edge references missing task ${id}`);
          }
          if (s.taskEdges.some((e) => e.blockerId === edge.blockerId && e.blockedId === edge.blockedId)) {
            throw new ConstraintError(`task edge (${edge.blockerId}, ${edge.blockedId}) already exists`);
          }
          s.taskEdges.push({ listId, blockerId: edge.blockerId, blockedId: edge.blockedId });
        }),
        removeEdge: hooked('tasks.removeEdge', async (edge: TaskEdge) => {
          const s = state();
          s.taskEdges = s.taskEdges.filter((e) => !(e.blockerId === edge.blockerId && e.blockedId === edge.blockedId));
        }),
        unresolvedBlockers: hooked('tasks.unresolvedBlockers', async (ids: readonly string[]) => {
          const s = state();
          return s.taskEdges.filter((e) => ids.includes(e.blockedId) && !isResolvedIn(s, e.blockerId)).map(edgeOnly);
        }),
        list: hooked('tasks.list', async (listId: string, filter: TaskListFilter) => {
          const s = state();
          const rows = bySeq(
            [...s.tasks.values()].filter(
              (t) =>
                t.listId === listId &&
                filter.statuses.includes(t.status) &&
                (filter.owner === undefined || t.owner === filter.owner) &&
                (filter.readyFor === undefined || readyIn(s, t, filter.readyFor)),
            ),
          );
          return clone(rows.slice(0, filter.limit));
        }),
        firstReady: hooked('tasks.firstReady', async (listId: string, agent: string) => {
          const s = state();
          const first = bySeq([...s.tasks.values()].filter((t) => t.listId === listId && readyIn(s, t, agent)))[0];
          return clone(first ?? null);
        }),
        graph: hooked('tasks.graph', async (listId: string, statuses: readonly TaskStatus[]) => {
          const s = state();
          const tasks = bySeq([...s.tasks.values()].filter((t) => t.listId === listId && statuses.includes(t.status)));
          const inGraph = new Set(tasks.map((t) => t.id));
          const edges = s.taskEdges.filter((e) => e.listId === listId && inGraph.has(e.blockerId) && inGraph.has(e.blockedId)).map(edgeOnly);
          return { tasks: clone(tasks), edges };
        }),
        appendChange: hooked('tasks.appendChange', async (change: TaskChangeRecord) => {
          const s = state();
          if (s.taskChanges.some((c) => c.listId === change.listId && c.seq === change.seq)) {
            throw new ConstraintError(`task change (${change.listId}, ${change.seq}) already exists`);
          }
          // Stored as JSON by the real store: what comes back is plain data.
          s.taskChanges.push({ ...clone(change), changes: JSON.parse(JSON.stringify(change.changes)), snapshot: JSON.parse(JSON.stringify(change.snapshot)) });
        }),
        changesOf: hooked('tasks.changesOf', async (taskId: string) =>
          clone(state().taskChanges.filter((c) => c.taskId === taskId).sort((a, b) => a.seq - b.seq)),
        ),
        changesAfter: hooked('tasks.changesAfter', async (listId: string, seq: number, limit: number) =>
          clone(
            state()
              .taskChanges.filter((c) => c.listId === listId && c.seq > seq)
              .sort((a, b) => a.seq - b.seq)
              .slice(0, limit),
          ),
        ),
      },
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

export function makeDeps() {
  const store = new MemoryStore();
  const clock = new FakeClock();
  const ids = new CounterIds();
  const events = new RecordingEvents();
  const deps: Deps = { store, clock, ids, hasher: prefixHasher, events };
  return { deps, store, clock, events, ids };
}
