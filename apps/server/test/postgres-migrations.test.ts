// PostgreSQL's migrations that move data keep it: a run's checklist moving to its own row keeps every run's checklist.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, stopTestPostgres } from '../../../tests/support/postgres.ts';
import { applyPostgresMigrations } from '../src/db/postgres-migrations.ts';
import { postgresMigrationsDir } from '../src/db/postgres-schema.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-pg-migrations-'));
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await stopTestPostgres();
});

describe('PostgreSQL migrations', () => {
  it("a run's checklist moves to a row of its own, every run keeping its checklist, steps and the rest", async () => {
    const split = readdirSync(postgresMigrationsDir).find((name) => name.endsWith('_run_checklist'));
    expect(split).toBeDefined();
    const before = path.join(tmp, 'before-run-checklist');
    mkdirSync(before);
    for (const name of readdirSync(postgresMigrationsDir).filter((n) => n < split! || n === 'migration_lock.toml'))
      cpSync(path.join(postgresMigrationsDir, name), path.join(before, name), { recursive: true });
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    try {
      await applyPostgresMigrations({ url: database.url, migrationsDir: before });
      await client.connect();
      const tasks = JSON.stringify([{ action: 'Build', expected_result: 'It builds' }]);
      await client.query(`INSERT INTO "Workspace" ("id", "name", "createdAt") VALUES ('ws_1', 'one', now())`);
      await client.query(
        `INSERT INTO "Run" ("id", "workspaceId", "sessionId", "startAttemptId", "status", "taskContext", "tasks", "moves", "remarks",
                            "cursor", "checklistOutcome", "executionOutcome", "taskOutcomes", "taskTimes", "revision", "version",
                            "createdAt", "updatedAt")
         VALUES ('run_1', 'ws_1', 'ses_1', 'start_1', 'running', $1, $1, '[]', '[{"text":"mind it","tasks":[1]}]', 1, 'ready', '',
                 '["Pending"]', '[0]', 0, 2, now(), now()),
                ('run_2', 'ws_1', 'ses_1', 'start_2', 'intake', NULL, '[]', '[]', '[]', 0, '', '', '[]', '[]', 0, 1, now(), now())`,
        [tasks],
      );
      await client.query(
        `INSERT INTO "RunStep" ("runId", "seq", "kind", "label", "at") VALUES ('run_1', 1, 'intake', 'Checklist intake', now())`,
      );
      const runs = async () =>
        (await client.query('SELECT "id", "status", "cursor", "taskOutcomes", "version" FROM "Run" ORDER BY "id"')).rows;
      const held = await runs();

      expect((await applyPostgresMigrations({ url: database.url, migrationsDir: postgresMigrationsDir })).applied).toEqual(
        readdirSync(postgresMigrationsDir).filter((n) => n >= split! && n !== 'migration_lock.toml'),
      );
      expect(await runs()).toEqual(held);
      expect((await client.query('SELECT * FROM "RunChecklist" ORDER BY "runId"')).rows).toEqual([
        { runId: 'run_1', taskContext: tasks, tasks, moves: '[]', remarks: '[{"text":"mind it","tasks":[1]}]' },
        { runId: 'run_2', taskContext: null, tasks: '[]', moves: '[]', remarks: '[]' },
      ]);
      expect((await client.query('SELECT "runId", "seq" FROM "RunStep"')).rows).toEqual([{ runId: 'run_1', seq: 1 }]);

      // A replica of the version before, during a rolling upgrade, reads and writes the run's own columns only: what it
      // writes there (a revision, a new run) is carried to the checklist's row.
      const revised = JSON.stringify([
        { action: 'Build', expected_result: 'It builds' },
        { action: 'Ship', expected_result: 'Out' },
      ]);
      await client.query(`UPDATE "Run" SET "tasks" = $1, "version" = 3 WHERE "id" = 'run_1'`, [revised]);
      await client.query(
        `INSERT INTO "Run" ("id", "workspaceId", "sessionId", "startAttemptId", "status", "tasks", "moves", "remarks", "cursor",
                            "checklistOutcome", "executionOutcome", "taskOutcomes", "taskTimes", "revision", "version", "createdAt",
                            "updatedAt")
         VALUES ('run_3', 'ws_1', 'ses_1', 'start_3', 'running', $1, '[]', '[]', 1, 'ready', '', '["Pending"]', '[0]', 0, 2, now(), now())`,
        [tasks],
      );
      const checklists = await client.query('SELECT "runId", "tasks" FROM "RunChecklist" ORDER BY "runId"');
      expect(checklists.rows).toEqual([
        { runId: 'run_1', tasks: revised },
        { runId: 'run_2', tasks: '[]' },
        { runId: 'run_3', tasks },
      ]);
      // A change of the run that leaves its checklist (a step) leaves the checklist's row alone.
      await client.query(`UPDATE "RunChecklist" SET "remarks" = '["kept"]' WHERE "runId" = 'run_1'`);
      await client.query(`UPDATE "Run" SET "cursor" = 2, "version" = 4 WHERE "id" = 'run_1'`);
      expect((await client.query(`SELECT "remarks" FROM "RunChecklist" WHERE "runId" = 'run_1'`)).rows).toEqual([{ remarks: '["kept"]' }]);
      // The checklist goes with its run.
      await client.query(`DELETE FROM "Run" WHERE "id" = 'run_1'`);
      expect((await client.query('SELECT "runId" FROM "RunChecklist" ORDER BY "runId"')).rows).toEqual([
        { runId: 'run_2' },
        { runId: 'run_3' },
      ]);
    } finally {
      await client.end().catch(() => undefined);
      await database.drop();
    }
  }, 120_000);
});
