// `pnpm exec tsx tests/bench/pg-trip-cost.ts`: the CPU one statement costs this process on PostgreSQL — raw pg
// (simple and named), through Prisma (adapter-pg), an empty and a one-statement interactive transaction — beside
// the same through Prisma on SQLite (our better-sqlite3 adapter). Sequential, so it is CPU per round trip.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDb } from '../../apps/server/src/db/client.ts';
import { migrationsDir } from '../../apps/server/src/db/database-file.ts';
import { openPostgresDb } from '../../apps/server/src/db/postgres-client.ts';
import { applyPostgresMigrations } from '../../apps/server/src/db/postgres-migrations.ts';
import { postgresMigrationsDir } from '../../apps/server/src/db/postgres-schema.ts';
import { applyMigrations } from '../../apps/server/src/db/schema-engine.ts';
import { createTestDatabase, stopTestPostgres } from '../support/postgres.ts';

const N = Number(process.env.BENCH_CALLS) > 0 ? Number(process.env.BENCH_CALLS) : 3_000;

async function cpu(label: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < Math.min(300, N); i++) await fn();
  const before = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < N; i++) await fn();
  const used = process.cpuUsage(before);
  const cpuUs = ((used.user + used.system) / N).toFixed(0).padStart(6);
  const wallUs = ((1000 * (performance.now() - start)) / N).toFixed(0).padStart(6);
  process.stdout.write(`${label.padEnd(46)} ${cpuUs} µs CPU ${wallUs} µs wall\n`);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-trip-cost-'));
const database = await createTestDatabase();
try {
  process.stdout.write(
    `${N} calls each; load average ${os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' / ')}\n`,
  );
  await applyPostgresMigrations({ url: database.url, migrationsDir: postgresMigrationsDir });
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await cpu('PostgreSQL, pg: simple SELECT 1', () => client.query('SELECT 1'));
  await cpu('PostgreSQL, pg: named SELECT $1', () => client.query({ name: 'one', text: 'SELECT $1::int AS x', values: [1] }));
  await client.end();
  const { db: onPg } = await openPostgresDb(database.url, { max: 1 });
  await cpu('PostgreSQL, Prisma: $queryRaw', () => onPg.$queryRaw`SELECT ${1}::int AS x`);
  await cpu('PostgreSQL, Prisma: empty $transaction', () => onPg.$transaction(async () => {}));
  await cpu('PostgreSQL, Prisma: $transaction of one $queryRaw', () => onPg.$transaction((tx) => tx.$queryRaw`SELECT ${1}::int AS x`));
  await onPg.$disconnect();
  const file = path.join(dir, 'trip-cost.db');
  await applyMigrations({ databaseFile: file, migrationsDir });
  const { db: onSqlite } = await openDb(file);
  await cpu('SQLite, Prisma: $queryRaw', () => onSqlite.$queryRaw`SELECT ${1} AS x`);
  await cpu('SQLite, Prisma: empty $transaction', () => onSqlite.$transaction(async () => {}));
  await cpu('SQLite, Prisma: $transaction of one $queryRaw', () => onSqlite.$transaction((tx) => tx.$queryRaw`SELECT ${1} AS x`));
  await onSqlite.$disconnect();
} finally {
  await database.drop();
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
}
