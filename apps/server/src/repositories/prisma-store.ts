// The domain's Store port over Prisma: repositories bound to a connection, writes through group commit, driver errors
// turned into the port's own (StoreUnavailable).
import type { Repositories, Store } from '@agent-tasks/core';
import type { Db, DbHandle } from '../db/client.ts';
import { groupCommit } from './group-commit.ts';
import { storeErrorOf, withStoreErrors } from './store-errors.ts';
import { prismaChannelRepository } from './prisma-channel-repository.ts';
import { prismaKeyRepository } from './prisma-key-repository.ts';
import { prismaOutboxRepository } from './prisma-outbox-repository.ts';
import { type RunRow, prismaRunRepository } from './prisma-run-repository.ts';
import { CommittedRunRows } from './run-rows.ts';
import { prismaSessionRepository } from './prisma-session-repository.ts';
import { type TaskRepositoryState, prismaTaskRepository, taskRepositoryState } from './prisma-task-repository.ts';
import { prismaTodoRepository } from './prisma-todo-repository.ts';
import { prismaTrustRepository } from './prisma-trust-repository.ts';
import { prismaWorkspaceRepository } from './prisma-workspace-repository.ts';
import { prismaCommentRepository, prismaSearchRepository } from './prisma-task-texts.ts';
import { TaskPrefetch } from './task-prefetch.ts';
import { TodoCache } from './todo-cache.ts';
import type { Dialect, Tx, WriteTurn } from './tx.ts';

interface StoreState {
  todoCache: TodoCache;
  /** Each run's row as last committed here: a write that finds its version unchanged reads no more of it. */
  runRows: CommittedRunRows<RunRow>;
  tasks: TaskRepositoryState;
  /** Tokens that stopped working: these session tokens, or (no list) everything an API key revocation touches. */
  revoked: (tokenHashes?: string[]) => void;
  /** Several replicas (PostgreSQL): the outbox's `due` claims what it answers, leased for this long. */
  claimLeaseMs: number | undefined;
  /** FTS5 or tsvector for the full-text search, two statements or one for a todo write: PostgreSQL on a PostgreSQL
   * database's handle, or where the store runs with `replicas`. */
  dialect: Dialect;
}

/**
 * A connection's repositories, each made the first time it is asked for: a transaction uses a few of them (a run's step,
 * two), and making all eleven (a hundred-odd functions) cost every write its time and garbage.
 */
class ConnectionRepositories implements Repositories {
  #workspaces?: Repositories['workspaces'];
  #keys?: Repositories['keys'];
  #sessions?: Repositories['sessions'];
  #todos?: Repositories['todos'];
  #tasks?: Repositories['tasks'];
  #comments?: Repositories['comments'];
  #search?: Repositories['search'];
  #channels?: Repositories['channels'];
  #runs?: Repositories['runs'];
  #outbox?: Repositories['outbox'];
  #trust?: Repositories['trust'];
  #prefetch?: TaskPrefetch | undefined;

  readonly #db: Tx;
  readonly #state: StoreState;
  readonly #turn: WriteTurn;

  constructor(db: Tx, state: StoreState, turn: WriteTurn) {
    this.#db = db;
    this.#state = state;
    this.#turn = turn;
  }

  /** A write on PostgreSQL reads a task with what surrounds it in one round trip (task-prefetch.ts); SQLite has none. */
  get #prefetchOf() {
    if (this.#prefetch === undefined && this.#state.dialect === 'postgres' && this.#turn.transaction !== undefined) {
      this.#prefetch = new TaskPrefetch();
    }
    return this.#prefetch;
  }

  get workspaces() {
    return (this.#workspaces ??= prismaWorkspaceRepository(this.#db));
  }
  get keys() {
    return (this.#keys ??= prismaKeyRepository(this.#db, this.#turn.afterCommit, this.#state.revoked));
  }
  get sessions() {
    return (this.#sessions ??= prismaSessionRepository(this.#db, this.#turn.afterCommit, this.#state.revoked));
  }
  get todos() {
    return (this.#todos ??= prismaTodoRepository(this.#db, this.#state.todoCache, this.#turn, this.#state.dialect));
  }
  get tasks() {
    return (this.#tasks ??= prismaTaskRepository(this.#db, this.#state.tasks, this.#turn, this.#prefetchOf));
  }
  get comments() {
    return (this.#comments ??= prismaCommentRepository(this.#db));
  }
  get search() {
    return (this.#search ??= prismaSearchRepository(this.#db, this.#state.dialect));
  }
  get channels() {
    return (this.#channels ??= prismaChannelRepository(this.#db));
  }
  get runs() {
    // Rows are kept from write transactions only, once committed (an operator's one connection reads inside its writes).
    return (this.#runs ??= prismaRunRepository(this.#db, this.#state.dialect, {
      rows: this.#state.runRows,
      afterCommit: this.#turn.transaction ? this.#turn.afterCommit : () => {},
    }));
  }
  get outbox() {
    return (this.#outbox ??= prismaOutboxRepository(this.#db, this.#state.claimLeaseMs));
  }
  get trust() {
    return (this.#trust ??= prismaTrustRepository(this.#db, this.#prefetchOf));
  }
}

/** Every repository's name: ConnectionRepositories' getters, one for each (it implements them all). */
const REPOSITORIES = Object.getOwnPropertyNames(ConnectionRepositories.prototype).filter(
  (name) => name !== 'constructor',
) as (keyof Repositories)[];

/** Outside a transaction: nothing to wait for. */
const now: WriteTurn = { afterCommit: (fn) => fn(), afterKept: (fn) => fn(), transaction: undefined, undoneAlone: false };

/**
 * Reads outside a transaction go through their own connection, so they see only committed data and never queue
 * behind a write; every write runs in a transaction on the writer connection, batched by group commit.
 */
export function prismaStore(
  writer: DbHandle,
  reader: Db,
  events: {
    revoked?: (tokenHashes?: string[]) => void;
    maxBatch?: number;
    /** Several servers on one PostgreSQL database: outbox claims leased for `claimLeaseMs`, task lists locked per write. */
    replicas?: { claimLeaseMs: number };
  } = {},
): Store {
  // The database's own kind (an operator command opens PostgreSQL without replicas), else what the server runs as.
  const dialect: Dialect = writer.postgres || events.replicas !== undefined ? 'postgres' : 'sqlite';
  const state: StoreState = {
    todoCache: new TodoCache(),
    runRows: new CommittedRunRows(),
    tasks: taskRepositoryState(dialect),
    revoked: (hashes) => events.revoked?.(hashes),
    claimLeaseMs: events.replicas?.claimLeaseMs,
    dialect,
  };
  const writes = groupCommit(writer, events.maxBatch ? { maxBatch: events.maxBatch } : {});
  // Driver errors leave the store as port-level ones (StoreUnavailable): from reads here, from a transaction as it ends.
  const outside = new ConnectionRepositories(reader, state, now);
  const reads = Object.fromEntries(REPOSITORIES.map((name) => [name, withStoreErrors(outside[name])])) as unknown as Repositories;
  return {
    ...reads,
    transaction: (work, options) =>
      writes
        .run((tx, turn) => work(new ConnectionRepositories(tx, state, turn)), options?.footprint)
        .catch((error: unknown) => {
          throw storeErrorOf(error);
        }),
  };
}
