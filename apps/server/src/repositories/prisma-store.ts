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

const repositories = (db: Tx, state: StoreState, turn: WriteTurn): Repositories => {
  const { afterCommit } = turn;
  // A write on PostgreSQL reads a task with what surrounds it in one round trip (task-prefetch.ts); SQLite has none.
  const prefetch = state.dialect === 'postgres' && turn.transaction !== undefined ? new TaskPrefetch() : undefined;
  return {
    workspaces: prismaWorkspaceRepository(db),
    keys: prismaKeyRepository(db, afterCommit, state.revoked),
    sessions: prismaSessionRepository(db, afterCommit, state.revoked),
    todos: prismaTodoRepository(db, state.todoCache, turn, state.dialect),
    tasks: prismaTaskRepository(db, state.tasks, turn, prefetch),
    comments: prismaCommentRepository(db),
    search: prismaSearchRepository(db, state.dialect),
    channels: prismaChannelRepository(db),
    // Rows are kept from write transactions only, once committed (an operator's one connection reads inside its writes).
    runs: prismaRunRepository(db, state.dialect, { rows: state.runRows, afterCommit: turn.transaction ? afterCommit : () => {} }),
    outbox: prismaOutboxRepository(db, state.claimLeaseMs),
    trust: prismaTrustRepository(db, prefetch),
  };
};

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
  const reads = Object.fromEntries(
    Object.entries(repositories(reader, state, now)).map(([name, repository]) => [name, withStoreErrors(repository)]),
  ) as unknown as Repositories;
  return {
    ...reads,
    transaction: (work, options) =>
      writes
        .run((tx, turn) => work(repositories(tx, state, turn)), options?.footprint)
        .catch((error: unknown) => {
          throw storeErrorOf(error);
        }),
  };
}
