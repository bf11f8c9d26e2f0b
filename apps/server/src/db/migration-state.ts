// Which migrations a database file lacks (read without the schema engine, so an up-to-date start stays fast), and
// readiness: the database answers a query and every migration in prisma/migrations is recorded as applied.
import { existsSync, readdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Db } from './client.ts';

const APPLIED = 'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL';

export const migrationNames = (migrationsDir: string) =>
  readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

/** The migrations not yet applied to the file (all of them for a new file or one without the bookkeeping table). */
export function pendingMigrations(databaseFile: string, migrationsDir: string): string[] {
  const expected = migrationNames(migrationsDir);
  if (!existsSync(databaseFile)) return expected;
  const db = new Database(databaseFile, { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get();
    if (!table) return expected;
    const applied = new Set((db.prepare(APPLIED).all() as { migration_name: string }[]).map((row) => row.migration_name));
    return expected.filter((name) => !applied.has(name));
  } finally {
    db.close();
  }
}

export function migrationState(db: Db, migrationsDir: string) {
  const expected = migrationNames(migrationsDir);
  return {
    async check(): Promise<{ ready: true } | { ready: false; reason: string }> {
      try {
        const rows = await db.$queryRawUnsafe<{ migration_name: string }[]>(APPLIED);
        const applied = new Set(rows.map((row) => row.migration_name));
        const missing = expected.filter((name) => !applied.has(name));
        if (missing.length > 0) return { ready: false, reason: `migrations not applied: ${missing.join(', ')}` };
        return { ready: true };
      } catch {
        return { ready: false, reason: 'the database does not answer' };
      }
    },
  };
}
