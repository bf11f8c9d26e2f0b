// The database an operator command works on (a SQLite file or a PostgreSQL URL): migrated on demand, then opened
// as the store's writer. The PostgreSQL driver is loaded only for a PostgreSQL URL.
import { migrationsDir } from './database-file.ts';
import { openDb, type DbHandle } from './client.ts';
import { pendingMigrations } from './migration-state.ts';
import { postgresMigrationsDir } from './postgres-schema.ts';
import { applyMigrations } from './schema-engine.ts';

export type DatabaseTarget = { databaseFile: string; postgresUrl?: undefined } | { postgresUrl: string };

/** How a command names the database in what it prints: the file path, or the URL without its password. */
export function databaseLabel(target: DatabaseTarget): string {
  if (target.postgresUrl === undefined) return target.databaseFile;
  const url = new URL(target.postgresUrl);
  url.password = '';
  return url.toString();
}

/** Applies the migrations the database lacks (prisma/migrations, or prisma/migrations-postgres); answers their names. */
export async function migrateDatabase(target: DatabaseTarget): Promise<string[]> {
  if (target.postgresUrl !== undefined) {
    const { applyPostgresMigrations } = await import('./postgres-migrations.ts');
    return (await applyPostgresMigrations({ url: target.postgresUrl, migrationsDir: postgresMigrationsDir })).applied;
  }
  // The schema engine (WASM, ~0.4 s to load) runs only when a migration is pending.
  if (pendingMigrations(target.databaseFile, migrationsDir).length === 0) return [];
  return (await applyMigrations({ databaseFile: target.databaseFile, migrationsDir })).applied;
}

/** Migrates and opens the database with one connection (its handle says how many writes the group commit may batch). */
export async function openMigrated(target: DatabaseTarget): Promise<{ handle: DbHandle }> {
  await migrateDatabase(target);
  if (target.postgresUrl === undefined) return { handle: await openDb(target.databaseFile) };
  const { openPostgresDb } = await import('./postgres-client.ts');
  return { handle: await openPostgresDb(target.postgresUrl, { max: 1 }) };
}
