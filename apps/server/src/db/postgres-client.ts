// Opens Prisma clients on PostgreSQL through @prisma/adapter-pg, typed as the SQLite client the repositories use
// (both clients are generated from the same models: prisma/schema.prisma and its twin prisma/schema.postgres.prisma).
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma-postgres/client.ts';
import type { Db, DbHandle } from './client.ts';
import type { SqliteConnection } from './sqlite-adapter.ts';

/**
 * A pool of `max` connections; with `lockTimeoutMs`, a statement waiting longer for a lock fails with 55P03 (answered
 * "busy", 503), as SQLite's busy timeout does. The handle has no SQLite connection: the group commit must not take savepoints on it,
 * so the store runs each write in its own transaction on PostgreSQL (maxBatch 1).
 */
export async function openPostgresDb(url: string, options: { max?: number; lockTimeoutMs?: number } = {}): Promise<DbHandle> {
  const lockTimeout = options.lockTimeoutMs === undefined ? {} : { lock_timeout: options.lockTimeoutMs };
  const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: options.max ?? 10, ...lockTimeout }) });
  await db.$connect();
  const connection = new Proxy({} as SqliteConnection, {
    get() {
      throw new Error('PostgreSQL has no SQLite connection: run writes with maxBatch 1');
    },
  });
  return { db: db as unknown as Db, connection };
}
