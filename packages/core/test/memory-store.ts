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
  TodoUpdateRecord,
  TokenHasher,
  WorkspaceRecord,
} from '../src/index.ts';

/** Everything the store holds; Maps keep insertion order, which stands in for a stable tie-break on `createdAt`. */
export interface MemoryState {
  workspaces: Map<string, WorkspaceRecord>;
  keys: Map<string, ApiKeyRecord>;
  sessions: Map<string, SessionRecord>;
  todos: TodoUpdateRecord[];
}

/** Repository methods a test can hook into, by `repository.method` name. */
export type RepoMethod =
  | `workspaces.${keyof Repositories['workspaces']}`
  | `keys.${keyof Repositories['keys']}`
  | `sessions.${keyof Repositories['sessions']}`
  | `todos.${keyof Repositories['todos']}`;

/** Runs just before the hooked method, with the same repositories (inside a transaction: the transaction's own). */
export type Hook = (repos: Repositories) => void | Promise<void>;

const emptyState = (): MemoryState => ({ workspaces: new Map(), keys: new Map(), sessions: new Map(), todos: [] });

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

  constructor() {
    // Calls outside a transaction read and write the committed state, one statement at a time.
    this.direct = this.repositories(() => this.state);
    this.workspaces = this.direct.workspaces;
    this.keys = this.direct.keys;
    this.sessions = this.direct.sessions;
    this.todos = this.direct.todos;
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

/** Deterministic ids: `ses_1`, `ses_2`, `key_1`, …; secrets `atk_secret_1`, … (one counter per prefix). */
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
