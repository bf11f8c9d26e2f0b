// A step's prior fields: a long text column kept as its difference from the value written (SQLite), whole on PostgreSQL
// for one release; the run at every version rebuilt from them exactly either way.
import type { RunRecord } from '@agent-tasks/core';
import { describe, expect, it } from 'vitest';
import { at, intakeRunRecord as run, stepRecord as stepRow } from '../../../packages/core/test/record-builders.ts';
import { spliceOf, unsplice } from '../src/repositories/text-splice.ts';
import { withLocalDatabase } from '../src/cli/local-database.ts';
import { createTestDatabase, stopTestPostgres } from '../../../tests/support/postgres.ts';
import { sessionRecord, workspaceRecord } from '../../../packages/core/test/record-builders.ts';
import pg from 'pg';
import { type StoreKind, postgresKind, prismaKind, withSeededStore } from './support/stores.ts';

describe('spliceOf', () => {
  it('gives back the text it was made from, for changes anywhere, growing, shrinking and repeating texts', () => {
    const pairs: [string, string][] = [
      ['["Pending","Pending","Pending"]'.repeat(3), '["Done","Pending","Pending"]'.repeat(3)],
      ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
      ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
      ['abcabcabcabcabcabcabcabcabcabcabcabc', 'abcabcabcabcabcabcabcabcabcabc'],
      [`[${'1,'.repeat(40)}2]`, `[${'1,'.repeat(40)}2,3]`],
      [`[${'"x",'.repeat(30)}"é"]`, `[${'"x",'.repeat(30)}"😀"]`],
      // Two characters sharing their first UTF-16 unit: the difference holds half a pair, and puts it back whole.
      [`[${'"x",'.repeat(30)}"😀"]`, `[${'"x",'.repeat(30)}"😁"]`],
    ];
    // And pseudo-random texts over a small alphabet, where common starts and ends overlap often.
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const text = () => Array.from({ length: 20 + (next() % 60) }, () => 'ab,"'[next() % 4]).join('');
    for (let i = 0; i < 500; i++) {
      const before = text();
      const cut = next() % before.length;
      pairs.push([before, before.slice(0, cut) + text().slice(0, next() % 5) + before.slice(cut + (next() % 4))]);
    }
    let spliced = 0;
    for (const [before, after] of pairs) {
      const splice = spliceOf(before, after);
      if (!splice) continue;
      spliced++;
      expect(unsplice(after, splice)).toBe(before);
      expect(JSON.stringify(splice).length).toBeLessThan(before.length);
    }
    expect(spliced).toBeGreaterThan(400);
  });

  it('is null when the difference would be no shorter than the text', () => {
    expect(spliceOf('step 1', 'step 2')).toBeNull();
    expect(spliceOf('a short text', 'an entirely different one')).toBeNull();
    expect(spliceOf('', 'anything')).toBeNull();
  });
});

const TASKS = 60;

/** Each step's prior fields as stored, from the store under test's snapshot of every table. */
function storedPriors(snapshot: unknown): Record<string, unknown>[] {
  // SQLite's snapshot holds rows; PostgreSQL's, each row's [column, value] pairs as JSON text.
  const rows = ((snapshot as Record<string, (string | Record<string, unknown>)[]>).RunStep ?? []).map((row) =>
    typeof row === 'string' ? (Object.fromEntries(JSON.parse(row) as [string, unknown][]) as Record<string, unknown>) : row,
  );
  return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map((row) => JSON.parse(row.prior as string) as Record<string, unknown>);
}

describe.each([
  { kind: prismaKind(), form: 'spliced' },
  { kind: postgresKind(), form: 'whole' },
] as { kind: StoreKind; form: 'spliced' | 'whole' }[])('step priors on $kind.name', ({ kind, form }) => {
  it(`keeps long columns ${form}, and rebuilds the run at every version from them`, () =>
    withSeededStore(kind, async (under) => {
      const { store } = under;
      const tasks = Array.from({ length: TASKS }, (_, i) => ({ action: `Check part ${i + 1}`, expected_result: 'It holds' }));
      await store.runs.create(
        run('run_1', { tasks, taskOutcomes: tasks.map(() => 'Pending'), taskTimes: tasks.map(() => 0), status: 'running', cursor: 1 }),
      );
      const versions: RunRecord[] = [(await store.runs.get('ws_1', 'run_1'))!];
      const change = async (i: number, edit: (r: RunRecord) => void) => {
        const current = (await store.runs.get('ws_1', 'run_1'))!;
        edit(current);
        const from = current.version;
        current.version = from + 1;
        current.updatedAt = at(10 + i);
        expect(await store.runs.save(current, from, stepRow('run_1', from, `att_${from}`))).toBe(true);
        versions.push((await store.runs.get('ws_1', 'run_1'))!);
      };
      for (let i = 0; i < 40; i++) {
        await change(i, (r) => {
          r.taskOutcomes = r.taskOutcomes.map((o, k) => (k === i ? `Part ${i + 1} verified: ${'é'.repeat(i % 3)}` : o));
          r.taskTimes = r.taskTimes.map((t, k) => (k === i ? 1000 + i : t));
          Object.assign(r, { cursor: i + 2, executionOutcome: `step ${i + 1}`, attemptId: `att_${i + 2}` });
        });
      }
      // A revision: the checklist cut to 45 tasks, their outcomes and times with it.
      await change(40, (r) => {
        r.tasks = r.tasks.slice(0, 45);
        r.taskOutcomes = r.taskOutcomes.slice(0, 45);
        r.taskTimes = r.taskTimes.slice(0, 45);
        Object.assign(r, { revision: 1, notice: 'Cut to 45 tasks' });
      });

      const priors = storedPriors(await under.snapshot());
      expect(priors).toHaveLength(41);
      const spliced = priors.filter((p) => Object.keys(p).some((k) => k.endsWith(':splice')));
      if (form === 'spliced') {
        // Every step: its outcome and time in place, not the whole arrays again.
        expect(spliced).toHaveLength(41);
        for (const prior of priors.slice(0, 40)) {
          expect(Object.keys(prior).sort()).toEqual(
            ['attemptId', 'cursor', 'executionOutcome', 'taskOutcomes:splice', 'taskTimes:splice', 'updatedAt', 'version'].sort(),
          );
          expect(JSON.stringify(prior).length).toBeLessThan(400);
        }
        expect(priors[40]).toHaveProperty(['tasks:splice']);
      } else {
        expect(spliced).toEqual([]);
        expect(priors[0]).toMatchObject({ taskOutcomes: JSON.stringify(tasks.map(() => 'Pending')) });
      }
      for (const version of versions) expect(await store.runs.atVersion('ws_1', 'run_1', version.version)).toEqual(version);
    }));
});

describe('step priors written by an operator command on PostgreSQL', () => {
  it('are whole, as the server keeps them there, though the command runs no replicas', async () => {
    const database = await createTestDatabase();
    try {
      await withLocalDatabase({ postgresUrl: database.url }, async ({ store }) => {
        await store.transaction(async (repos) => {
          await repos.workspaces.create(workspaceRecord('ws_1'));
          await repos.sessions.create(sessionRecord('ses_1'));
        });
        const outcomes = Array.from({ length: TASKS }, () => 'Pending');
        await store.runs.create(run('run_1', { taskOutcomes: outcomes, status: 'running', cursor: 1 }));
        const current = (await store.runs.get('ws_1', 'run_1'))!;
        current.taskOutcomes = outcomes.map((o, i) => (i === 0 ? 'Verified' : o));
        current.version = 2;
        expect(await store.runs.save(current, 1, stepRow('run_1', 1))).toBe(true);
      });
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ prior: string }>('SELECT "prior" FROM "RunStep" WHERE "runId" = $1', ['run_1']);
        expect(rows).toHaveLength(1);
        expect(JSON.parse(rows[0]!.prior)).toMatchObject({ taskOutcomes: JSON.stringify(Array.from({ length: TASKS }, () => 'Pending')) });
      } finally {
        await client.end();
      }
    } finally {
      await database.drop();
      await stopTestPostgres();
    }
  });
});
