// Opens Prisma clients on PostgreSQL through @prisma/adapter-pg, typed as the SQLite client the repositories use
// (both clients are generated from the same models: prisma/schema.prisma and its twin prisma/schema.postgres.prisma).
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';
import type pg from 'pg';
import { PrismaClient } from '../generated/prisma-postgres/client.ts';
import type { Db, DbHandle } from './client.ts';
import { SAVEPOINT, type Savepoints } from './savepoints.ts';

/** Distinct SQL texts that get a name (prepared once per connection); later ones run unnamed, so memory stays bounded. */
const MAX_NAMED_STATEMENTS = 2_000;

/**
 * Most writes one group-committed transaction holds on PostgreSQL. Each write's savepoint is a subtransaction with an
 * id of its own, and a backend keeps at most 64 of them in shared memory: past that, every other session's snapshot
 * has to look them up on disk while the transaction runs.
 */
export const POSTGRES_MAX_BATCH = 32;

/**
 * Names for the statements the store sends: PostgreSQL parses and plans a named statement once per connection, and the
 * driver then sends only Bind/Execute. (Unnamed, each statement was parsed again on every call: a third of a write's
 * CPU in the database, and a message more per statement from here.) A text is named by the order it was first seen.
 */
function statementNames() {
  const names = new Map<string, string>();
  return ({ sql }: { sql: string }): string => {
    let name = names.get(sql);
    if (name === undefined && names.size < MAX_NAMED_STATEMENTS) {
      name = `agent_tasks_${names.size}`;
      names.set(sql, name);
    }
    // No name: pg sends the statement unnamed (parsed for this call only).
    return name as string;
  };
}

/**
 * The writer's adapter, noting the pg connection of the transaction under way (the writer has one connection, so at
 * most one transaction at a time), for the group commit's savepoints.
 */
function trackingTransactions(factory: SqlDriverAdapterFactory, onChange: (connection: pg.PoolClient | null) => void) {
  const tracked: SqlDriverAdapterFactory = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect(): Promise<SqlDriverAdapter> {
      const adapter = await factory.connect();
      const start = adapter.startTransaction.bind(adapter);
      adapter.startTransaction = async (isolationLevel) => {
        const transaction: Transaction = await start(isolationLevel);
        const connection = (transaction as unknown as { client?: pg.PoolClient }).client;
        if (!connection || typeof connection.query !== 'function') throw new Error('the PostgreSQL transaction has no connection');
        onChange(connection);
        const commit = transaction.commit.bind(transaction);
        const rollback = transaction.rollback.bind(transaction);
        transaction.commit = () => (onChange(null), commit());
        transaction.rollback = () => (onChange(null), rollback());
        return transaction;
      };
      return adapter;
    },
  };
  return tracked;
}

/**
 * Savepoints sent straight on the transaction's connection as plain statements, not through Prisma: a kept write's
 * RELEASE waits for the next write's SAVEPOINT and goes with it in one round trip (or is left to COMMIT, which releases
 * every savepoint), so a write in a shared transaction costs one round trip more than its own statements.
 */
function postgresSavepoints() {
  let connection: pg.PoolClient | null = null;
  let releasePending = false;
  const send = async (sql: string) => {
    if (!connection) throw new Error('no PostgreSQL write transaction is under way');
    await connection.query(sql);
  };
  const savepoints: Savepoints = {
    open() {
      const sql = releasePending ? `RELEASE SAVEPOINT ${SAVEPOINT}; SAVEPOINT ${SAVEPOINT}` : `SAVEPOINT ${SAVEPOINT}`;
      releasePending = false;
      return send(sql);
    },
    close(kept) {
      if (kept) {
        releasePending = true;
        return undefined;
      }
      // At once: the refused write's statement may have aborted the transaction, and COMMIT may come next.
      releasePending = false;
      return send(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}; RELEASE SAVEPOINT ${SAVEPOINT}`);
    },
  };
  /** A transaction began on `next`, or (null) the one under way ended. */
  const transaction = (next: pg.PoolClient | null) => {
    connection = next;
    releasePending = false;
  };
  return { savepoints, transaction };
}

/**
 * A pool of `max` connections; with `lockTimeoutMs`, a statement waiting longer for a lock fails with 55P03 (answered
 * "busy", 503), as SQLite's busy timeout does. With one connection (the store's writer), the group commit batches
 * writes in one transaction with savepoints, as on SQLite; a pool of more takes no savepoints (maxBatch 1).
 */
export async function openPostgresDb(url: string, options: { max?: number; lockTimeoutMs?: number } = {}): Promise<DbHandle> {
  const max = options.max ?? 10;
  const lockTimeout = options.lockTimeoutMs === undefined ? {} : { lock_timeout: options.lockTimeoutMs };
  const pgAdapter = new PrismaPg({ connectionString: url, max, ...lockTimeout }, { statementNameGenerator: statementNames() });
  const writer = postgresSavepoints();
  const adapter = max === 1 ? trackingTransactions(pgAdapter, writer.transaction) : pgAdapter;
  const db = new PrismaClient({ adapter });
  await db.$connect();
  if (max !== 1) {
    const none: Savepoints = {
      open: () => Promise.reject(new Error('a PostgreSQL pool of several connections takes no savepoints: run writes with maxBatch 1')),
      close: () => undefined,
    };
    return { db: db as unknown as Db, savepoints: none, maxBatch: 1 };
  }
  return { db: db as unknown as Db, savepoints: writer.savepoints, maxBatch: POSTGRES_MAX_BATCH };
}
