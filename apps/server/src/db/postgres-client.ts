// Opens Prisma clients on PostgreSQL through @prisma/adapter-pg, typed as the SQLite client the repositories use
// (both clients are generated from the same models: prisma/schema.prisma and its twin prisma/schema.postgres.prisma).
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma-postgres/client.ts';
import type { Db, DbHandle } from './client.ts';
import type { SqliteConnection } from './sqlite-adapter.ts';

/** Distinct SQL texts that get a name (prepared once per connection); later ones run unnamed, so memory stays bounded. */
const MAX_NAMED_STATEMENTS = 2_000;

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
 * A pool of `max` connections; with `lockTimeoutMs`, a statement waiting longer for a lock fails with 55P03 (answered
 * "busy", 503), as SQLite's busy timeout does. The handle has no SQLite connection: the group commit must not take savepoints on it,
 * so the store runs each write in its own transaction on PostgreSQL (maxBatch 1).
 */
export async function openPostgresDb(url: string, options: { max?: number; lockTimeoutMs?: number } = {}): Promise<DbHandle> {
  const lockTimeout = options.lockTimeoutMs === undefined ? {} : { lock_timeout: options.lockTimeoutMs };
  const adapter = new PrismaPg(
    { connectionString: url, max: options.max ?? 10, ...lockTimeout },
    { statementNameGenerator: statementNames() },
  );
  const db = new PrismaClient({ adapter });
  await db.$connect();
  const connection = new Proxy({} as SqliteConnection, {
    get() {
      throw new Error('PostgreSQL has no SQLite connection: run writes with maxBatch 1');
    },
  });
  return { db: db as unknown as Db, connection };
}
