// Opens the Prisma client on a SQLite file through the better-sqlite3 driver adapter.
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;

export function openDb(databaseFile: string): Db {
  const adapter = new PrismaBetterSqlite3({ url: `file:${databaseFile}` }, { timestampFormat: 'unixepoch-ms' });
  return new PrismaClient({ adapter });
}
