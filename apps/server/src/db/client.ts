// Opens Prisma clients on a SQLite file through the better-sqlite3 driver adapter, in WAL mode.
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;

/**
 * One connection. WAL lets a reader connection see only committed data and never wait for the writer;
 * synchronous=NORMAL is durable across process restarts (the WAL is synced at checkpoints).
 */
export async function openDb(databaseFile: string): Promise<Db> {
  const adapter = new PrismaBetterSqlite3({ url: `file:${databaseFile}`, timeout: 5_000 }, { timestampFormat: 'unixepoch-ms' });
  const db = new PrismaClient({ adapter });
  await db.$queryRawUnsafe('PRAGMA journal_mode = WAL');
  await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL');
  await db.$queryRawUnsafe('PRAGMA foreign_keys = ON');
  return db;
}
