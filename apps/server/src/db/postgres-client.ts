// Opens Prisma clients on PostgreSQL through @prisma/adapter-pg, typed as the SQLite client the repositories use
// (both clients are generated from the same models: prisma/schema.prisma and its twin prisma/schema.postgres.prisma).
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma-postgres/client.ts';
import type { Db, DbHandle } from './client.ts';
import { useRawSql } from './direct-sql.ts';
import { postgresError, postgresRawSql } from './postgres-raw.ts';
import { TransactionCalls, transactionHandle } from './transaction-handle.ts';
import { CHANGES_IN_ROWS, SAVEPOINT, type Savepoints } from './savepoints.ts';

/** Distinct SQL texts that get a name (prepared once per connection); later ones run unnamed, so memory stays bounded. */
const MAX_NAMED_STATEMENTS = 2_000;

/**
 * Most writes one group-committed transaction holds on PostgreSQL. Each write's savepoint is a subtransaction with an
 * id of its own, and a backend keeps at most 64 of them in shared memory: past that, every other session's snapshot
 * has to look them up on disk while the transaction runs.
 */
export const POSTGRES_MAX_BATCH = 32;

/** How long the writer waits for a connection to be made before its write is answered "unreachable". */
const WRITER_CONNECT_TIMEOUT_MS = 30_000;

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
 * What in a SELECT may change data: a data-modifying `WITH`, or a function that writes (a row lock, `FOR UPDATE`,
 * changes nothing).
 */
const WRITES = /\b(?:insert|delete|merge|nextval|setval|pg_advisory\w*|pg_notify|set_config)\b|(?<!\bfor\s+(?:no\s+key\s+)?)\bupdate\b/i;
const readOnlyTexts = new Map<string, boolean>();
const WRITE_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * A statement's result that shows it changed nothing: a SELECT (one that is not a data-modifying `WITH` or calls no
 * function that writes), a write command that touched no row, or a `WITH` marked CHANGES_IN_ROWS that answered no row.
 * Unsure is "changed".
 */
function readOnly(result: unknown, sql: string): boolean {
  if (Array.isArray(result)) return false; // several statements in one text: not looked into
  const { command, rowCount } = result as { command?: unknown; rowCount?: unknown };
  // A write command that touched no row changed nothing, unless a `WITH` in it did.
  if (command !== 'SELECT') return WRITE_COMMANDS.has(command as string) && rowCount === 0 && !/^\s*with\b/i.test(sql);
  if (rowCount === 0 && sql.endsWith(CHANGES_IN_ROWS)) return true;
  let plain = readOnlyTexts.get(sql);
  if (plain === undefined) {
    plain = !WRITES.test(sql);
    if (readOnlyTexts.size < MAX_NAMED_STATEMENTS) readOnlyTexts.set(sql, plain);
  }
  return plain;
}

/**
 * The writer's transactions, of the store's own (BEGIN … COMMIT on the pool's one connection, without Prisma's
 * interactive transaction: its bookkeeping cost more than a write's statements). While one is open every query on the
 * writer's client goes to its connection: the pool's `query` is routed there, and a transaction Prisma starts for one
 * of its queries becomes a savepoint in it. The group commit's savepoints go to that connection too.
 */
function writerTransactions(pool: pg.Pool) {
  let held: pg.PoolClient | null = null;
  // The calls of the transaction under way (its work's handle).
  let calls: TransactionCalls | null = null;
  let releasePending = false;
  // Whether the write under way changed anything, or had a statement fail, since `unmarked.start()` (see Savepoints);
  // a statement sent and not yet answered may change something too.
  let changed = false;
  let unanswered = 0;
  // The SQLSTATE of each statement failed since `unmarked.start()`.
  let failures: string[] = [];
  const noted = (result: unknown, sql: string) => {
    unanswered--;
    if (!changed && !readOnly(result, sql)) changed = true;
    return result;
  };
  const failed = (error: unknown) => {
    unanswered--;
    changed = true;
    const code = (error as { code?: unknown } | null)?.code;
    failures.push(typeof code === 'string' ? code : '');
    throw error;
  };
  const poolQuery = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    if (!held) return poolQuery(...args);
    const pending = (held.query as (...a: unknown[]) => unknown)(...args);
    const first = args[0] as string | { text?: string } | undefined;
    const sql = typeof first === 'string' ? first : (first?.text ?? '');
    if (pending instanceof Promise) {
      unanswered++;
      return pending.then((result) => noted(result, sql), failed);
    }
    changed = true; // a callback: not followed here
    return pending;
  }) as typeof pool.query;

  const send = async (sql: string) => {
    const client = held;
    if (!client) throw new Error('no PostgreSQL write transaction is under way');
    await client.query(sql).catch(postgresError);
  };

  /**
   * A batch's writes first run unmarked (no savepoint; see Savepoints). Run again, each has a savepoint sent straight on
   * the transaction's connection: a kept write's RELEASE waits for the next write's SAVEPOINT and goes with it in one
   * round trip (or is left to COMMIT, which releases every savepoint).
   */
  const savepoints: Savepoints = {
    unmarked: {
      // A statement (or a Prisma call, not yet at the connection) still running from before counts against the write
      // that starts.
      start: () => {
        changed = unanswered > 0 || (calls?.running ?? 0) > 0;
        failures = [];
      },
      changed: () => changed || unanswered > 0 || (calls?.running ?? 0) > 0,
      failures: () => failures,
    },
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
      // At once (the refused write's statement may have aborted the transaction, and COMMIT may come next), once the
      // calls it left running have settled inside its savepoint.
      releasePending = false;
      const undo = () => send(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}; RELEASE SAVEPOINT ${SAVEPOINT}`);
      return calls && calls.running > 0 ? calls.settled().then(undo) : undo();
    },
  };

  /**
   * Runs `work` in a transaction on the pool's connection: COMMIT when it resolves, ROLLBACK when it throws. Its calls
   * (`TransactionCalls`, through the handle it is given): one sent after the end (a branch of a Promise.all left
   * running) is refused, instead of running on its own or in the next transaction; one still running at the end is
   * waited for first, so its statements stay inside this one.
   */
  async function transaction<T>(work: (calls: TransactionCalls) => Promise<T>): Promise<T> {
    let client: pg.PoolClient | null = await pool.connect().catch(postgresError);
    // The pool stops listening to a connection it hands out: a connection that breaks between statements would
    // otherwise throw an unhandled 'error' event. Noted here, it is dropped at release (its next statement fails).
    let broken: Error | undefined;
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    const release = () => {
      client?.removeListener('error', onError);
      client?.release(broken);
      client = null;
    };
    try {
      await client.query('BEGIN');
    } catch (error) {
      broken = error as Error;
      release();
      return postgresError(error);
    }
    held = client;
    releasePending = false;
    const own = (calls = new TransactionCalls());
    try {
      const value = await work(own);
      await own.end();
      const { command } = await client.query('COMMIT').catch(postgresError);
      // A transaction left aborted (a failed statement not rolled back to its savepoint) ends in ROLLBACK at COMMIT.
      if (command === 'ROLLBACK') throw new Error('the write transaction was rolled back at COMMIT: a statement in it had failed');
      return value;
    } catch (error) {
      await own.end();
      held = null;
      // After a failed COMMIT the transaction is over already (ROLLBACK then only warns); a broken connection is dropped.
      await client.query('ROLLBACK').catch((failed: unknown) => (broken ??= failed as Error));
      throw error;
    } finally {
      held = null;
      calls = null;
      release();
    }
  }

  // A transaction Prisma starts inside the store's: one at a time, each in a savepoint of its own.
  let nestedQueue: Promise<void> = Promise.resolve();
  let nestedCount = 0;
  async function nestedTransaction(adapter: SqlDriverAdapter): Promise<Transaction> {
    let done!: () => void;
    const previous = nestedQueue;
    nestedQueue = new Promise<void>((resolve) => (done = resolve));
    await previous;
    const name = `prisma_nested_${++nestedCount}`;
    const ending = async (sql: string) => {
      try {
        await send(sql);
      } finally {
        done();
      }
    };
    try {
      await send(`SAVEPOINT ${name}`);
    } catch (error) {
      done();
      throw error;
    }
    return {
      provider: adapter.provider,
      adapterName: adapter.adapterName,
      // Prisma sends no BEGIN/COMMIT of its own for it: commit() and rollback() end the savepoint.
      options: { usePhantomQuery: true },
      queryRaw: (query: SqlQuery) => adapter.queryRaw(query),
      executeRaw: (query: SqlQuery) => adapter.executeRaw(query),
      commit: () => ending(`RELEASE SAVEPOINT ${name}`),
      rollback: () => ending(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`),
      createSavepoint: (inner: string) => send(`SAVEPOINT ${inner}`),
      rollbackToSavepoint: (inner: string) => send(`ROLLBACK TO SAVEPOINT ${inner}`),
      releaseSavepoint: (inner: string) => send(`RELEASE SAVEPOINT ${inner}`),
    };
  }

  /** Prisma's adapter, its transactions nested in the store's while one is open. */
  const factory = (inner: SqlDriverAdapterFactory): SqlDriverAdapterFactory => ({
    provider: inner.provider,
    adapterName: inner.adapterName,
    async connect(): Promise<SqlDriverAdapter> {
      const adapter = await inner.connect();
      const start = adapter.startTransaction.bind(adapter);
      adapter.startTransaction = (isolationLevel) => (held ? nestedTransaction(adapter) : start(isolationLevel));
      return adapter;
    },
  });

  return { savepoints, transaction, factory };
}

/**
 * The adapter, made to run on `pool`: adapter-pg takes a pool only when it is an instance of its own copy of pg's Pool,
 * and otherwise reads the pool as a config with no address, so its statements would go to localhost:5432 (another
 * database, or none) beside the server's own connections. pg loaded twice (a test runner's module graph beside Node's,
 * or an install with two copies) is no reason to: the pool is handed over as the constructor does for its own copy's.
 * An adapter that cannot take it refuses to start.
 */
export function adapterOn(pool: pg.Pool, adapter: PrismaPg): PrismaPg {
  const fields = adapter as unknown as { externalPool: unknown; config: unknown };
  if (fields.externalPool !== pool && Object.isExtensible(adapter)) {
    fields.externalPool = pool;
    fields.config = pool.options;
  }
  if (fields.externalPool !== pool) {
    throw new Error("the PostgreSQL adapter did not take the server's connection pool (two copies of pg loaded?)");
  }
  return adapter;
}

/**
 * A pool of `max` connections; with `lockTimeoutMs`, a statement waiting longer for a lock fails with 55P03 (answered
 * "busy", 503), as SQLite's busy timeout does. Raw statements go straight to node-postgres. With one connection (the
 * store's writer), writes run in the store's own transactions, which the group commit shares among queued writes with
 * savepoints, as on SQLite; a pool of more takes no savepoints (maxBatch 1) and Prisma's interactive transactions.
 */
export async function openPostgresDb(url: string, options: { max?: number; lockTimeoutMs?: number } = {}): Promise<DbHandle> {
  const max = options.max ?? 10;
  const lockTimeout = options.lockTimeoutMs === undefined ? {} : { lock_timeout: options.lockTimeoutMs };
  // The writer waits at most this long for its connection (made anew after one broke): then "unreachable", 503.
  const connectWait = max === 1 ? { connectionTimeoutMillis: WRITER_CONNECT_TIMEOUT_MS } : {};
  // The writer's statements go out without waiting for the answers before them (pg's pipeline mode; each its own Sync,
  // so a failed statement's error is its own): side by side, writes share round trips.
  const pipeline = max === 1 ? { pipeline: true } : {};
  const pool = new pg.Pool({ connectionString: url, max, ...lockTimeout, ...connectWait, ...pipeline });
  const nameOf = statementNames();
  const pgAdapter = adapterOn(pool, new PrismaPg(pool, { statementNameGenerator: nameOf, disposeExternalPool: true }));
  if (max !== 1) {
    const db = new PrismaClient({ adapter: pgAdapter });
    await db.$connect();
    useRawSql(db, postgresRawSql(pool, nameOf));
    const none: Savepoints = {
      open: () => Promise.reject(new Error('a PostgreSQL pool of several connections takes no savepoints: run writes with maxBatch 1')),
      close: () => undefined,
    };
    return { db: db as unknown as Db, savepoints: none, maxBatch: 1, postgres: true };
  }
  const writer = writerTransactions(pool);
  const db = new PrismaClient({ adapter: writer.factory(pgAdapter) });
  await db.$connect();
  // The pool's `query` goes to the open transaction's connection, so raw statements do too.
  const raw = postgresRawSql(pool, nameOf);
  useRawSql(db, raw);
  return {
    db: db as unknown as Db,
    savepoints: writer.savepoints,
    maxBatch: POSTGRES_MAX_BATCH,
    postgres: true,
    pipelined: true,
    transaction: (work) => writer.transaction((calls) => work(transactionHandle(db, raw, calls) as unknown as Parameters<typeof work>[0])),
  };
}
