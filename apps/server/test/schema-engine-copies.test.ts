// The WASM schema engine is instantiated once per process, whatever copies of db/schema-engine.ts load it: its glue
// module (one per process) keeps views of the memory of the instance it was first given, so a second instance set on
// it (a copy of the module after a test's module reset) made it read strings from the wrong memory
// (ERR_ENCODING_INVALID_ENCODED_DATA, seen twice in the test suite's shared workers).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';

const migrationsDir = path.resolve(import.meta.dirname, '../../../prisma/migrations');
const all = readdirSync(migrationsDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-engine-copies-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const applied = (file: string) =>
  new Database(file, { readonly: true }).prepare('SELECT migration_name FROM _prisma_migrations ORDER BY migration_name').pluck().all();

describe('the schema engine, loaded by two copies of its module', () => {
  it('applies every migration through each copy, the first again after the second', async () => {
    const first = await import('../src/db/schema-engine.ts');
    expect(await first.applyMigrations({ databaseFile: path.join(tmp, 'a.db'), migrationsDir })).toEqual({ applied: all });
    vi.resetModules();
    const second = await import('../src/db/schema-engine.ts');
    expect(second.applyMigrations).not.toBe(first.applyMigrations);
    expect(await second.applyMigrations({ databaseFile: path.join(tmp, 'b.db'), migrationsDir })).toEqual({ applied: all });
    expect(await first.applyMigrations({ databaseFile: path.join(tmp, 'c.db'), migrationsDir })).toEqual({ applied: all });
    for (const file of ['a.db', 'b.db', 'c.db']) expect(applied(path.join(tmp, file))).toEqual(all);
  });
});
