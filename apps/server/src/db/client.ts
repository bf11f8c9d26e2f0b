// Opens Prisma clients on a SQLite file through our better-sqlite3 driver adapter (db/sqlite-adapter.ts), in WAL mode.
import { type Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { runRawOn } from './direct-sql.ts';
import { SAVEPOINT, type Savepoints } from './savepoints.ts';
import { WRITER_CHECKPOINT_PAGES, type WalCheckpointer, startWalCheckpointer } from './wal-checkpointer.ts';
import { SqliteAdapterFactory, type SqliteConnection, type SqliteConnectionOptions } from './sqlite-adapter.ts';

export type Db = PrismaClient;

/** A Prisma client and the savepoints the store's group commit sets on its write transactions. */
export interface DbHandle {
  db: Db;
  savepoints: Savepoints;
  /** Most writes one transaction may hold (unset: the group commit's own limit). */
  maxBatch?: number;
  /** Set on a PostgreSQL database's handle (unset: SQLite), so the store writes PostgreSQL's SQL whoever opened it. */
  postgres?: true;
  /**
   * A write transaction of the store's own on the client's one connection, with the client itself as its handle
   * (SQLite, and PostgreSQL's writer); unset, the group commit opens Prisma's interactive transaction.
   */
  transaction?: <T>(work: (tx: Prisma.TransactionClient) => Promise<T>) => Promise<T>;
  /**
   * Statements sent while others are still being answered go out at once, answered in order (PostgreSQL's writer, in
   * pipeline mode): writes of distinct footprints may then run side by side in a transaction (repositories/group-commit.ts).
   */
  pipelined?: true;
  /** The WAL's checkpoint thread of a SQLite writer's handle (db/wal-checkpointer.ts): stopped as the handle closes. */
  checkpointer?: WalCheckpointer;
}

/** On SQLite's one connection, at once (better-sqlite3 answers synchronously). */
const sqliteSavepoints = (connection: SqliteConnection): Savepoints => ({
  open() {
    connection.exec(`SAVEPOINT ${SAVEPOINT}`);
    return undefined;
  },
  close(kept) {
    if (!kept) connection.exec(`ROLLBACK TO ${SAVEPOINT}`);
    connection.exec(`RELEASE ${SAVEPOINT}`);
    return undefined;
  },
});

/** How long a write waits for another process's write lock before the call is answered "busy" (503). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * One connection. WAL lets readers see only committed data and never wait for a writer, and lets several processes
 * share the file; synchronous=NORMAL is durable across process crashes (the WAL is synced at checkpoints).
 * `checkpoints` (the connection a server writes through): who checkpoints the WAL — a thread of this process, told of
 * a failure there, or (`elsewhere`) the process that runs the writes, for a worker that hands its writes on; this
 * connection checkpoints by itself only past WRITER_CHECKPOINT_PAGES all the same. Unset: SQLite's own threshold.
 */
export async function openDb(
  databaseFile: string,
  options: {
    busyTimeoutMs?: number;
    writeGate?: SqliteConnectionOptions['writeGate'];
    checkpoints?: { onFailure: (message: string) => void } | 'elsewhere';
  } = {},
): Promise<DbHandle> {
  const { checkpoints } = options;
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const factory = new SqliteAdapterFactory(databaseFile, {
    busyTimeoutMs,
    ...(options.writeGate ? { writeGate: options.writeGate } : {}),
    pragmas: [
      'journal_mode = WAL',
      'synchronous = NORMAL',
      'foreign_keys = ON',
      'mmap_size = 268435456',
      ...(checkpoints ? [`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`] : []),
    ],
  });
  const db = new PrismaClient({ adapter: factory });
  await db.$connect();
  const connection = factory.connection;
  if (!connection) throw new Error('the SQLite connection did not open');
  runRawOn(db, connection);
  return {
    db,
    savepoints: sqliteSavepoints(connection),
    transaction: (work) => connection.storeTransaction(() => work(db)),
    // Started once the connection is open: the file is in WAL mode by then.
    ...(typeof checkpoints === 'object'
      ? { checkpointer: startWalCheckpointer(databaseFile, { busyTimeoutMs, onFailure: checkpoints.onFailure }) }
      : {}),
  };
}
