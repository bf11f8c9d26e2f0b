// Prisma's driver adapter for better-sqlite3, made for a server: prepared statements kept, write transactions
// that take SQLite's write lock up front (BEGIN IMMEDIATE) and wait for it without blocking the event loop, and a
// "database busy" error (Prisma P1008) once the busy timeout has passed. The store also runs its raw statements and
// its write transactions on the connection directly (`rawRows`, `storeTransaction`), with Prisma's raw-query answers.
import {
  type ArgType,
  type ColumnType,
  ColumnTypeEnum,
  DriverAdapterError,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
} from '@prisma/driver-adapter-utils';
import Database from 'better-sqlite3';

type Statement = Database.Statement<unknown[]>;

const ADAPTER_NAME = 'agent-tasks-sqlite';

/** SQLite column declarations as Prisma's column types (null: infer from the values). */
function declaredType(decl: string | null): ColumnType | null {
  switch ((decl ?? '').toUpperCase()) {
    case 'INTEGER':
    case 'INT':
    case 'SMALLINT':
    case 'TINYINT':
    case 'MEDIUMINT':
    case 'INT2':
    case 'SERIAL':
      return ColumnTypeEnum.Int32;
    case 'BIGINT':
    case 'INT8':
    case 'UNSIGNED BIG INT':
      return ColumnTypeEnum.Int64;
    case 'REAL':
    case 'DOUBLE':
    case 'DOUBLE PRECISION':
    case 'NUMERIC':
      return ColumnTypeEnum.Double;
    case 'FLOAT':
      return ColumnTypeEnum.Float;
    case 'DECIMAL':
      return ColumnTypeEnum.Numeric;
    case 'DATETIME':
    case 'TIMESTAMP':
      return ColumnTypeEnum.DateTime;
    case 'DATE':
      return ColumnTypeEnum.Date;
    case 'TIME':
      return ColumnTypeEnum.Time;
    case 'TEXT':
    case 'CLOB':
    case 'VARCHAR':
    case 'CHARACTER':
    case 'NVARCHAR':
    case 'NCHAR':
    case 'VARYING CHARACTER':
    case 'NATIVE CHARACTER':
      return ColumnTypeEnum.Text;
    case 'BLOB':
      return ColumnTypeEnum.Bytes;
    case 'BOOLEAN':
      return ColumnTypeEnum.Boolean;
    case 'JSONB':
      return ColumnTypeEnum.Json;
    default:
      return null;
  }
}

function inferredType(value: unknown): ColumnType {
  switch (typeof value) {
    case 'string':
      return ColumnTypeEnum.Text;
    case 'bigint':
      return ColumnTypeEnum.Int64;
    case 'number':
      return ColumnTypeEnum.UnknownNumber;
    case 'boolean':
      return ColumnTypeEnum.Boolean;
    default:
      return value instanceof Uint8Array ? ColumnTypeEnum.Bytes : ColumnTypeEnum.Int32;
  }
}

/** A statement prepared once, with what Prisma needs to read its rows. */
interface Prepared {
  statement: Statement;
  reader: boolean;
  names: string[];
  declared: (ColumnType | null)[];
  /** Whether any column's type has to be inferred from the values. */
  untyped: boolean;
}

function toArg(value: unknown, type: ArgType | undefined, dates: 'unixepoch-ms' | 'iso8601'): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    switch (type?.scalarType) {
      case 'int':
        return Number.parseInt(value, 10);
      case 'float':
      case 'decimal':
        return Number.parseFloat(value);
      case 'bigint':
        return BigInt(value);
      case 'bytes':
        return Buffer.from(value, 'base64');
      case 'datetime':
        value = new Date(value);
        break;
      default:
        return value;
    }
  }
  if (value instanceof Date) return dates === 'unixepoch-ms' ? value.getTime() : value.toISOString().replace('Z', '+00:00');
  return value;
}

function toRow(row: unknown[], types: ColumnType[]): unknown[] {
  for (let i = 0; i < row.length; i++) {
    const value = row[i];
    if (typeof value === 'number') {
      const type = types[i];
      if (type === ColumnTypeEnum.DateTime) row[i] = new Date(value).toISOString();
      else if ((type === ColumnTypeEnum.Int32 || type === ColumnTypeEnum.Int64) && !Number.isInteger(value)) row[i] = Math.trunc(value);
    } else if (typeof value === 'bigint') {
      const asNumber = Number(value);
      row[i] = Number.isSafeInteger(asNumber) ? asNumber : value.toString();
    }
  }
  return row;
}

/** A bound value as Prisma's $queryRaw would hand it to this adapter: dates as epoch milliseconds, booleans as 1/0. */
function rawArg(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'bigint':
      return value;
    case 'boolean':
      return value ? 1 : 0;
    default:
      if (value instanceof Date) return value.getTime();
      if (value instanceof Uint8Array) return value;
      return JSON.stringify(value);
  }
}

/** A column's value as Prisma's $queryRaw answers it for the column's type (its serialisation, then its reading). */
function rawValue(value: unknown, type: ColumnType): unknown {
  if (value === null) return null;
  switch (type) {
    case ColumnTypeEnum.DateTime:
      return typeof value === 'number' || typeof value === 'string' ? new Date(value) : value;
    case ColumnTypeEnum.Boolean:
      return typeof value === 'number' ? value === 1 : typeof value === 'string' ? value === 'true' || value === '1' : value;
    case ColumnTypeEnum.Int32:
      return typeof value === 'number' ? Math.trunc(value) : typeof value === 'bigint' ? Number(value) : value;
    case ColumnTypeEnum.Int64:
      return typeof value === 'number' ? BigInt(Math.trunc(value)) : value;
    case ColumnTypeEnum.Json:
      return typeof value === 'string' ? JSON.parse(value) : value;
    case ColumnTypeEnum.Bytes:
      return value instanceof Uint8Array ? new Uint8Array(value) : value;
    default:
      return typeof value === 'bigint' && Number.isSafeInteger(Number(value)) ? Number(value) : value;
  }
}

/** An error code better-sqlite3 gives for a locked database (SQLITE_BUSY and its extended codes). */
export const isBusy = (error: unknown) =>
  typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');

function driverError(error: unknown): never {
  const e = error as { code?: unknown; message?: unknown };
  if (typeof e?.code !== 'string' || typeof e.message !== 'string') throw error;
  const code = e.code;
  const message = e.message;
  const base = { originalCode: code, originalMessage: message };
  const fields = () =>
    message
      .split('constraint failed: ')
      .at(1)
      ?.split(', ')
      .map((f) => f.split('.').pop() ?? f);
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const list = fields();
    throw new DriverAdapterError({ ...base, kind: 'UniqueConstraintViolation', ...(list ? { constraint: { fields: list } } : {}) });
  }
  if (code === 'SQLITE_CONSTRAINT_NOTNULL') {
    const list = fields();
    throw new DriverAdapterError({ ...base, kind: 'NullConstraintViolation', ...(list ? { constraint: { fields: list } } : {}) });
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === 'SQLITE_CONSTRAINT_TRIGGER') {
    throw new DriverAdapterError({ ...base, kind: 'ForeignKeyConstraintViolation', constraint: { foreignKey: {} } });
  }
  if (isBusy(error)) throw new DriverAdapterError({ ...base, kind: 'SocketTimeout' });
  throw new DriverAdapterError({ ...base, kind: 'sqlite', extendedCode: 1, message });
}

export interface SqliteConnectionOptions {
  /** How long a statement or a transaction waits for another connection's write lock before "database busy". */
  busyTimeoutMs: number;
  /** With several workers: a turn at the write lock, asked for before BEGIN IMMEDIATE and given back after. */
  writeGate?: { acquire(timeoutMs: number): Promise<boolean>; release(): void };
  /** Prepared statements kept (least recently used dropped first). */
  statementCache?: number;
}

/** Waits that let the event loop run while another connection holds the write lock: 0, 1, 2, 4 … 20 ms. */
const backoff = (attempt: number) =>
  new Promise<void>((resolve) => (attempt === 0 ? setImmediate(resolve) : setTimeout(resolve, Math.min(20, 2 ** (attempt - 1)))));

/**
 * One SQLite connection. Prisma's queries run on it; the store's group commit also uses `savepoint`/`release`/
 * `rollbackTo` directly. Only one transaction is open at a time (callers queue for it).
 */
export class SqliteConnection {
  readonly db: Database.Database;
  readonly #cache = new Map<string, Prepared>();
  readonly #size: number;
  readonly #busyTimeoutMs: number;
  readonly #gate: SqliteConnectionOptions['writeGate'];
  #queue: Promise<void> = Promise.resolve();
  /** Set while a transaction is open, with its own statements' handle. */
  inTransaction = false;
  /** Set while the store's own transaction (`storeTransaction`) is open: Prisma's transactions nest in savepoints. */
  storeTransactionOpen = false;
  #nested = 0;
  #nestedQueue: Promise<void> = Promise.resolve();

  constructor(file: string, options: SqliteConnectionOptions) {
    // busy_timeout 0: SQLite's own busy handler sleeps on this thread; we wait asynchronously instead.
    this.db = new Database(file, { timeout: 0 });
    this.#size = options.statementCache ?? 500;
    this.#busyTimeoutMs = options.busyTimeoutMs;
    this.#gate = options.writeGate;
  }

  prepare(sql: string): Prepared {
    let prepared = this.#cache.get(sql);
    if (prepared) {
      // Map keeps insertion order: re-inserting marks it recently used.
      this.#cache.delete(sql);
      this.#cache.set(sql, prepared);
      return prepared;
    }
    const statement = this.db.prepare(sql) as Statement;
    const reader = statement.reader;
    const columns = reader ? statement.columns() : [];
    const declared = columns.map((c) => declaredType(c.type));
    prepared = { statement, reader, names: columns.map((c) => c.name), declared, untyped: declared.includes(null) };
    if (reader) statement.raw(true);
    this.#cache.set(sql, prepared);
    if (this.#cache.size > this.#size) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    return prepared;
  }

  /** Runs a statement now; SQLITE_BUSY outside a transaction is retried asynchronously up to the busy timeout. */
  async run<T>(work: () => T): Promise<T> {
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return work();
      } catch (error) {
        if (!isBusy(error) || this.inTransaction || performance.now() - started > this.#busyTimeoutMs) driverError(error);
      }
      await backoff(attempt);
    }
  }

  query(query: SqlQuery, dates: 'unixepoch-ms' | 'iso8601'): SqlResultSet {
    const prepared = this.prepare(query.sql);
    const args = query.args.map((a, i) => toArg(a, query.argTypes[i], dates));
    if (!prepared.reader) {
      const info = prepared.statement.run(args);
      return { columnNames: [], columnTypes: [], rows: [], lastInsertId: String(info.lastInsertRowid) };
    }
    const rows = prepared.statement.all(args) as unknown[][];
    let types = prepared.declared as ColumnType[];
    if (prepared.untyped) {
      types = prepared.declared.map((t, i) => {
        if (t !== null) return t;
        const sample = rows.find((row) => row[i] !== null)?.[i];
        return sample === undefined ? ColumnTypeEnum.Int32 : inferredType(sample);
      });
    }
    for (const row of rows) toRow(row, types);
    return { columnNames: prepared.names, columnTypes: types, rows };
  }

  /**
   * A raw statement's rows as objects, valued as Prisma's $queryRaw answers them (DATETIME columns as Date, BOOLEAN
   * as boolean, other types inferred from the values as this adapter tells Prisma), without Prisma's client: its
   * request pipeline costs several times the statement. A statement that returns no rows answers [].
   */
  rawRows(sql: string, values: readonly unknown[]): Record<string, unknown>[] {
    const prepared = this.prepare(sql);
    const args = values.map(rawArg);
    if (!prepared.reader) {
      prepared.statement.run(args);
      return [];
    }
    const rows = prepared.statement.all(args) as unknown[][];
    const { names, declared } = prepared;
    const types = declared.map((t, i) => {
      if (t !== null) return t;
      const sample = rows.find((row) => row[i] !== null)?.[i];
      return sample === undefined ? ColumnTypeEnum.Int32 : inferredType(sample);
    });
    const out = new Array<Record<string, unknown>>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r] as unknown[];
      const record: Record<string, unknown> = {};
      for (let i = 0; i < row.length; i++) record[names[i] as string] = rawValue(row[i], types[i] as ColumnType);
      out[r] = record;
    }
    return out;
  }

  /** A raw statement run for its count of changed rows, as Prisma's $executeRaw answers. */
  rawChanges(sql: string, values: readonly unknown[]): number {
    return this.prepare(sql).statement.run(values.map(rawArg)).changes;
  }

  /**
   * Runs `work` in a write transaction of the store's own (BEGIN IMMEDIATE … COMMIT, or ROLLBACK when it throws) on
   * this connection, without Prisma's interactive transaction: Prisma's queries on this connection's client run
   * inside it, and a transaction Prisma starts for one of its queries becomes a savepoint.
   */
  async storeTransaction<T>(work: () => Promise<T>): Promise<T> {
    const end = await this.begin();
    this.storeTransactionOpen = true;
    try {
      const value = await work();
      this.exec('COMMIT');
      return value;
    } catch (error) {
      if (this.db.inTransaction) this.exec('ROLLBACK');
      throw error;
    } finally {
      this.storeTransactionOpen = false;
      end();
    }
  }

  /**
   * A turn for a transaction Prisma starts inside the store's: one at a time, each in its own savepoint (two open at
   * once would nest, and ending the outer one would end the inner one with it). Resolves with its savepoint's name and
   * the function that gives the turn back.
   */
  async nestedTurn(): Promise<{ name: string; done: () => void }> {
    let done!: () => void;
    const previous = this.#nestedQueue;
    this.#nestedQueue = new Promise<void>((resolve) => (done = resolve));
    await previous;
    return { name: `prisma_nested_${++this.#nested}`, done };
  }

  execute(query: SqlQuery, dates: 'unixepoch-ms' | 'iso8601'): number {
    const prepared = this.prepare(query.sql);
    return prepared.statement.run(query.args.map((a, i) => toArg(a, query.argTypes[i], dates))).changes;
  }

  /**
   * Opens a write transaction: waits for this connection's previous transaction, then takes SQLite's write lock
   * (BEGIN IMMEDIATE), retrying while another connection or process holds it; "busy" past the busy timeout.
   * Resolves with the function that ends it (after COMMIT or ROLLBACK).
   */
  async begin(): Promise<() => void> {
    let release!: () => void;
    const previous = this.#queue;
    this.#queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    const started = performance.now();
    const gate = this.#gate;
    if (gate && !(await gate.acquire(this.#busyTimeoutMs))) {
      release();
      throw new DriverAdapterError({
        kind: 'SocketTimeout',
        originalCode: 'SQLITE_BUSY',
        originalMessage: 'no turn at the write lock in time',
      });
    }
    for (let attempt = 0; ; attempt++) {
      try {
        this.prepare('BEGIN IMMEDIATE').statement.run();
        this.inTransaction = true;
        return () => {
          this.inTransaction = false;
          gate?.release();
          release();
        };
      } catch (error) {
        if (!isBusy(error) || performance.now() - started > this.#busyTimeoutMs) {
          gate?.release();
          release();
          driverError(error);
        }
      }
      // Another process (not a worker: an operator command, say) holds the lock.
      await backoff(attempt);
    }
  }

  exec(sql: string): void {
    try {
      this.prepare(sql).statement.run();
    } catch (error) {
      driverError(error);
    }
  }

  close(): void {
    this.#cache.clear();
    this.db.close();
  }
}

class SqliteQueryable {
  readonly provider = 'sqlite' as const;
  readonly adapterName = ADAPTER_NAME;
  constructor(
    protected readonly conn: SqliteConnection,
    protected readonly dates: 'unixepoch-ms' | 'iso8601',
  ) {}

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.conn.run(() => this.conn.query(query, this.dates));
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.conn.run(() => this.conn.execute(query, this.dates));
  }
}

/** What both kinds of transaction do alike: the savepoints Prisma sets inside them. */
abstract class SqliteSavepoints extends SqliteQueryable {
  createSavepoint(name: string): Promise<void> {
    this.conn.exec(`SAVEPOINT ${name}`);
    return Promise.resolve();
  }

  rollbackToSavepoint(name: string): Promise<void> {
    this.conn.exec(`ROLLBACK TO ${name}`);
    return Promise.resolve();
  }

  releaseSavepoint(name: string): Promise<void> {
    this.conn.exec(`RELEASE ${name}`);
    return Promise.resolve();
  }
}

class SqliteTransaction extends SqliteSavepoints implements Transaction {
  // Prisma sends COMMIT and ROLLBACK itself as statements; commit()/rollback() then only end our bookkeeping.
  readonly options = { usePhantomQuery: false };
  constructor(
    conn: SqliteConnection,
    dates: 'unixepoch-ms' | 'iso8601',
    private readonly end: () => void,
  ) {
    super(conn, dates);
  }

  commit(): Promise<void> {
    this.end();
    return Promise.resolve();
  }

  rollback(): Promise<void> {
    if (this.conn.db.inTransaction) this.conn.exec('ROLLBACK');
    this.end();
    return Promise.resolve();
  }
}

/** A transaction Prisma starts for one of its queries inside the store's own: a savepoint, ended by Prisma's calls. */
class SavepointTransaction extends SqliteSavepoints implements Transaction {
  readonly options = { usePhantomQuery: true };
  constructor(
    conn: SqliteConnection,
    dates: 'unixepoch-ms' | 'iso8601',
    private readonly name: string,
    private readonly done: () => void,
  ) {
    super(conn, dates);
    try {
      conn.exec(`SAVEPOINT ${name}`);
    } catch (error) {
      done();
      throw error;
    }
  }

  commit(): Promise<void> {
    try {
      this.conn.exec(`RELEASE ${this.name}`);
    } finally {
      this.done();
    }
    return Promise.resolve();
  }

  rollback(): Promise<void> {
    try {
      this.conn.exec(`ROLLBACK TO ${this.name}`);
      this.conn.exec(`RELEASE ${this.name}`);
    } finally {
      this.done();
    }
    return Promise.resolve();
  }
}

class SqliteAdapter extends SqliteQueryable implements SqlDriverAdapter {
  executeScript(script: string): Promise<void> {
    try {
      this.conn.db.exec(script);
    } catch (error) {
      driverError(error);
    }
    return Promise.resolve();
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    if (isolationLevel && isolationLevel !== 'SERIALIZABLE') {
      throw new DriverAdapterError({ kind: 'InvalidIsolationLevel', level: isolationLevel });
    }
    if (this.conn.storeTransactionOpen) {
      const { name, done } = await this.conn.nestedTurn();
      return new SavepointTransaction(this.conn, this.dates, name, done);
    }
    const end = await this.conn.begin();
    return new SqliteTransaction(this.conn, this.dates, end);
  }

  dispose(): Promise<void> {
    this.conn.close();
    return Promise.resolve();
  }
}

/** The factory Prisma's client takes; `connection` is the one connection it opened (for the store's savepoints). */
export class SqliteAdapterFactory implements SqlDriverAdapterFactory {
  readonly provider = 'sqlite' as const;
  readonly adapterName = ADAPTER_NAME;
  connection: SqliteConnection | undefined;

  constructor(
    private readonly file: string,
    private readonly options: SqliteConnectionOptions & { pragmas?: string[] },
  ) {}

  connect(): Promise<SqlDriverAdapter> {
    const conn = new SqliteConnection(this.file, this.options);
    // Opening may wait for another process (switching to WAL needs a moment alone): blocking here is fine.
    conn.db.pragma(`busy_timeout = ${this.options.busyTimeoutMs}`);
    for (const pragma of this.options.pragmas ?? []) conn.db.pragma(pragma);
    conn.db.pragma('busy_timeout = 0');
    this.connection = conn;
    return Promise.resolve(new SqliteAdapter(conn, 'unixepoch-ms'));
  }
}
