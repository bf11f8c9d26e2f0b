// A run's row kept as last committed: read again by its version only, right whoever wrote the run since, never kept
// from a transaction that was rolled back, and bounded.
import type { RunRecord, Store } from '@agent-tasks/core';
import { describe, expect, it } from 'vitest';
import { intakeRunRecord as run, stepRecord as stepRow } from '../../../packages/core/test/record-builders.ts';
import { installSqlProbe } from '../../../tests/bench/sql-probe.ts';
import { CommittedRunRows } from '../src/repositories/run-rows.ts';
import { type StoreKind, postgresKind, prismaKind, withSeededStore } from './support/stores.ts';

const row = (id: string, version: number, text = '') => ({ id, workspaceId: 'ws_1', version, text });

describe('CommittedRunRows', () => {
  it('keeps the latest version of each run, never an earlier one over a later one', () => {
    const rows = new CommittedRunRows<ReturnType<typeof row>>();
    rows.remember(row('run_1', 2, 'two'));
    rows.remember(row('run_1', 1, 'one'));
    expect(rows.get('run_1')).toEqual(row('run_1', 2, 'two'));
    rows.remember(row('run_1', 3, 'three'));
    expect(rows.get('run_1')).toEqual(row('run_1', 3, 'three'));
    expect(rows.get('run_2')).toBeUndefined();
  });

  it('keeps at most its capacity in characters, least recently used runs dropped first', () => {
    const text = 'x'.repeat(1_000);
    const rows = new CommittedRunRows<ReturnType<typeof row>>(2_100);
    rows.remember(row('run_1', 1, text));
    rows.remember(row('run_2', 1, text));
    expect(rows.get('run_1')?.version).toBe(1);
    rows.remember(row('run_3', 1, text));
    // run_2 was the least recently used.
    expect(rows.get('run_2')).toBeUndefined();
    expect(rows.get('run_1')?.version).toBe(1);
    expect(rows.get('run_3')?.version).toBe(1);
    expect(rows.size).toBeLessThanOrEqual(2_100);
    // A later version of a kept run replaces it, counted once.
    rows.remember(row('run_3', 2, text));
    expect(rows.size).toBeLessThanOrEqual(2_100);
    expect(rows.get('run_3')?.version).toBe(2);
  });
});

const checklist = [
  { action: 'A', expected_result: 'B' },
  { action: 'C', expected_result: 'D' },
  { action: 'E', expected_result: 'F' },
];

/** The run read and changed in a write transaction of `store`, saved as its next version. */
const stepIn = (store: Store, outcome: string, fail = false) =>
  store.transaction(async (repos) => {
    // Changed in place, as core's services change the record they read.
    const changed: RunRecord = (await repos.runs.get('ws_1', 'run_1'))!;
    const from = changed.version;
    Object.assign(changed, { version: from + 1, taskOutcomes: [outcome, 'Pending', 'Pending'], cursor: 2 });
    if (!(await repos.runs.save(changed, from, stepRow('run_1', from)))) throw new Error('lost the race');
    if (fail) throw new Error('refused after the save');
    return changed;
  });

/** The run as read in a write transaction. */
const readIn = (store: Store) => store.transaction(async (repos) => repos.runs.get('ws_1', 'run_1'));

describe.each([prismaKind(), postgresKind()] as StoreKind[])('runs read in a write on $name', (kind) => {
  it(
    'answer what another store (process or replica) wrote since, and the same as a store that keeps nothing',
    () =>
      withSeededStore(kind, async (under) => {
        const { store } = under;
        await store.runs.create(run('run_1', { tasks: checklist, taskOutcomes: ['Pending', 'Pending', 'Pending'], taskTimes: [0, 0, 0] }));
        await stepIn(store, 'first');
        // Kept now at version 2: another writer moves the run on; this store reads its change, not what it kept.
        const other = await under.another!();
        await stepIn(other, 'from another writer');
        expect(await readIn(store)).toMatchObject({ version: 3, taskOutcomes: ['from another writer', 'Pending', 'Pending'] });
        await stepIn(store, 'again here');
        // What this store answers from its kept row is what a store that kept nothing reads from the database.
        const kept = await readIn(store);
        const fresh = await (await under.another!()).runs.get('ws_1', 'run_1');
        expect(kept).toEqual(fresh);
        expect(kept).toMatchObject({ version: 4, taskOutcomes: ['again here', 'Pending', 'Pending'] });
      }),
    120_000,
  );

  it(
    'never keep a row from a transaction that was rolled back',
    () =>
      withSeededStore(kind, async (under) => {
        const { store } = under;
        await store.runs.create(run('run_1', { tasks: checklist, taskOutcomes: ['Pending', 'Pending', 'Pending'], taskTimes: [0, 0, 0] }));
        await readIn(store);
        // Saved as version 2, then refused: rolled back. Had its row been kept, the next write of version 2 by another
        // writer would be taken for it.
        await expect(stepIn(store, 'rolled back', true)).rejects.toThrow('refused after the save');
        await stepIn(await under.another!(), 'committed elsewhere');
        expect(await readIn(store)).toMatchObject({ version: 2, taskOutcomes: ['committed elsewhere', 'Pending', 'Pending'] });
      }),
    120_000,
  );
});

describe('a run read in a write on SQLite', () => {
  it('reads only its version once its row is kept', () =>
    withSeededStore(prismaKind(), async ({ store }) => {
      await store.runs.create(run('run_1', { tasks: checklist, taskOutcomes: ['Pending', 'Pending', 'Pending'], taskTimes: [0, 0, 0] }));
      await stepIn(store, 'first');
      const probe = installSqlProbe();
      try {
        probe.reset(true);
        await stepIn(store, 'second');
        const reads = probe.tally().sources.filter((sql) => /^\s*SELECT/.test(sql));
        expect(reads).toEqual([expect.stringMatching(/^\s*SELECT "version" FROM "Run" WHERE/)]);
      } finally {
        probe.uninstall();
      }
      expect(await readIn(store)).toMatchObject({ version: 3, taskOutcomes: ['second', 'Pending', 'Pending'] });
    }));
});
