// Direct reads and writes of a test server's database, on its SQLite file or its PostgreSQL database alike: to show
// what a call recorded (or that a refusal recorded nothing), or to change rows underneath the server.
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe } from 'vitest';

/** The server's database: `databaseUrl` is file:… (SQLite, at `databaseFile`) or postgresql://… */
export interface DatabaseOf {
  databaseFile: string;
  databaseUrl: string;
}

export type Table =
  | 'TodoUpdate'
  | 'Session'
  | 'SessionToken'
  | 'ApiKey'
  | 'Workspace'
  | 'TaskList'
  | 'Task'
  | 'TaskEdge'
  | 'TaskChange'
  | 'NotificationChannel'
  | 'RunStart'
  | 'Run'
  | 'OutboxMessage'
  | 'McpSession'
  | 'TaskEvidence'
  | 'TaskLease'
  | 'TaskListSettings'
  | 'GithubDelivery'
  | 'TaskComment'
  | 'TaskNoteRead';

/** The database this test run's servers use: AGENT_TASKS_TEST_DATABASE=postgres for the suite's PostgreSQL pass. */
export const testDatabase = (): 'sqlite' | 'postgres' => (process.env.AGENT_TASKS_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite');

/**
 * The one mark for tests whose point is SQLite itself (its file, locks, WAL, backup, the --workers cluster, the
 * embedded default): a describe that runs on the SQLite pass and is skipped, counted as skipped, on the PostgreSQL
 * pass. Each use is listed with its reason in ARCHITECTURE.md ("PostgreSQL").
 */
export const sqliteOnly = (name: string, body: () => void) => describe.skipIf(testDatabase() === 'postgres')(name, body);

export const onPostgres = (target: DatabaseOf) => /^postgres(ql)?:\/\//.test(target.databaseUrl);

const INT8 = 20;
/** COUNT(*) and other bigints as numbers, as SQLite answers them. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

const pools = new Map<string, pg.Pool>();
/** One small pool per database, kept for the test process (its idle connections do not hold the process open). */
function poolOf(url: string) {
  let pool = pools.get(url);
  if (!pool) {
    pool = new pg.Pool({ connectionString: url, types, max: 2, idleTimeoutMillis: 1_000, allowExitOnIdle: true });
    // An idle connection the server ends (the cluster stopped after a file's tests) is no failure of any test.
    pool.on('error', () => undefined);
    pools.set(url, pool);
  }
  return pool;
}

/** Holds one connection for `work`: `run(sql, params)` answers the rows and the number of rows changed. */
async function withConnection<T>(
  target: DatabaseOf,
  write: boolean,
  work: (
    run: (sql: string, params: unknown[]) => { rows: unknown[]; changes: number } | Promise<{ rows: unknown[]; changes: number }>,
  ) => Promise<T>,
): Promise<T> {
  if (onPostgres(target)) {
    const client = await poolOf(target.databaseUrl).connect();
    try {
      return await work(async (sql, params) => {
        let n = 0;
        // `?` placeholders become PostgreSQL's numbered ones (the tests' SQL holds no literal question mark).
        const result = await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        );
        return { rows: result.rows, changes: result.rowCount ?? 0 };
      });
    } finally {
      client.release();
    }
  }
  const db = new Database(target.databaseFile, { readonly: !write, fileMustExist: true });
  try {
    return await work((sql, params) => {
      // SQLite keeps DateTime as milliseconds since the epoch and booleans as 0/1.
      const values = params.map((p) => (p instanceof Date ? p.getTime() : typeof p === 'boolean' ? Number(p) : p));
      const statement = db.prepare(sql);
      if (statement.reader) return { rows: statement.all(...values), changes: 0 };
      return { rows: [], changes: statement.run(...values).changes };
    });
  } finally {
    db.close();
  }
}

/** The rows a query answers (`?` placeholders; quote mixed-case names: "Task"."listId"). */
export function queryRows<T = Record<string, unknown>>(target: DatabaseOf, sql: string, ...params: unknown[]): Promise<T[]> {
  return withConnection(target, false, async (run) => (await run(sql, params)).rows as T[]);
}

/** Runs `work` with one connection held for all its queries (for many reads in a row). */
export function withQueries<T>(
  target: DatabaseOf,
  work: (query: <R = Record<string, unknown>>(sql: string, ...params: unknown[]) => Promise<R[]>) => Promise<T>,
): Promise<T> {
  return withConnection(target, false, (run) => work(async (sql, ...params) => (await run(sql, params)).rows as never));
}

/** Runs statements that change rows, in order, on one connection; answers the rows each changed. */
export function execute(target: DatabaseOf, ...statements: [sql: string, ...params: unknown[]][]): Promise<number[]> {
  return withConnection(target, true, async (run) => {
    const changes: number[] = [];
    for (const [sql, ...params] of statements) changes.push((await run(sql, params)).changes);
    return changes;
  });
}

/** Counts rows straight from the database, to show a refusal recorded nothing. */
export async function countRows(target: DatabaseOf, table: Table, where = '1=1', ...params: unknown[]): Promise<number> {
  const [row] = await queryRows<{ n: number }>(target, `SELECT COUNT(*) AS n FROM "${table}" WHERE ${where}`, ...params);
  return row?.n ?? 0;
}

/** The row count of every table but Prisma's migration record, by table name. */
export function rowCounts(target: DatabaseOf): Promise<Record<string, number>> {
  const tables = onPostgres(target)
    ? "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'"
    : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations'";
  return withConnection(target, false, async (run) => {
    const names = ((await run(tables, [])).rows as { name: string }[]).map((t) => t.name).sort();
    // One statement for all the counts: this runs before and after every call of the access and property tests.
    const [counts] = (await run(`SELECT ${names.map((name) => `(SELECT COUNT(*) FROM "${name}") AS "${name}"`).join(', ')}`, []))
      .rows as Record<string, number>[];
    return { ...counts };
  });
}

/**
 * Another process's writer holding the database until `release()`: SQLite's write lock (BEGIN IMMEDIATE) on the
 * file, or on PostgreSQL every table locked IN EXCLUSIVE MODE (reads go on, writes wait) by another connection.
 */
export async function holdWriteLock(target: DatabaseOf): Promise<() => Promise<void>> {
  if (!onPostgres(target)) {
    const db = new Database(target.databaseFile, { fileMustExist: true });
    db.exec('BEGIN IMMEDIATE');
    return async () => {
      if (!db.open) return;
      db.exec('ROLLBACK');
      db.close();
    };
  }
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'",
  );
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${rows.map((t) => `"${t.name}"`).join(', ')} IN EXCLUSIVE MODE`);
  let released: Promise<void> | undefined;
  return () =>
    (released ??= (async () => {
      await client.query('ROLLBACK');
      await client.end();
    })());
}
