// Opens Prisma clients on a SQLite file through our better-sqlite3 driver adapter (db/sqlite-adapter.ts), in WAL mode.
import { PrismaClient } from '../generated/prisma/client.ts';
import { SqliteAdapterFactory, type SqliteConnection, type SqliteConnectionOptions } from './sqlite-adapter.ts';

export type Db = PrismaClient;

/** A Prisma client and the one SQLite connection under it (the store's group commit sets savepoints on it). */
export interface DbHandle {
  db: Db;
  connection: SqliteConnection;
}

/** How long a write waits for another process's write lock before the call is answered "busy" (503). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * One connection. WAL lets readers see only committed data and never wait for a writer, and lets several processes
 * share the file; synchronous=NORMAL is durable across process crashes (the WAL is synced at checkpoints).
 */
export async function openDb(
  databaseFile: string,
  options: { busyTimeoutMs?: number; writeGate?: SqliteConnectionOptions['writeGate'] } = {},
): Promise<DbHandle> {
  const factory = new SqliteAdapterFactory(databaseFile, {
    busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
    ...(options.writeGate ? { writeGate: options.writeGate } : {}),
    pragmas: ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'mmap_size = 268435456'],
  });
  const db = new PrismaClient({ adapter: factory });
  await db.$connect();
  if (!factory.connection) throw new Error('the SQLite connection did not open');
  return { db, connection: factory.connection };
}
