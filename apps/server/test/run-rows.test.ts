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

/** The run read and changed in a write transaction of `store`, saved as its next version (columns of every kind). */
const stepIn = (store: Store, outcome: string, fail = false, runId = 'run_1') =>
  store.transaction(async (repos) => {
    // Changed in place, as core's services change the record they read.
    const changed: RunRecord = (await repos.runs.get('ws_1', runId))!;
    const from = changed.version;
    const at = new Date(Date.UTC(2025, 0, 1, 0, 0, from));
    Object.assign(changed, {
      version: from + 1,
      taskOutcomes: [outcome, 'Pending', 'Pending'],
      taskTimes: [from * 1000, 0, 0],
      cursor: 2,
      updatedAt: at,
      currentSince: from % 2 ? null : at,
      revising: from % 2 === 1,
      blocker: from % 2 ? `waiting on ${outcome}` : null,
      personNotes: [{ task: 1, text: outcome, author: 'lead key', at: at.toISOString() }],
    });
    if (!(await repos.runs.save(changed, from, stepRow(runId, from)))) throw new Error('lost the race');
    if (fail) throw new Error('refused after the save');
    return changed;
  });

/** A three-task run, every task pending. */
const createRun = (store: Store, id = 'run_1') =>
  store.runs.create(run(id, { tasks: checklist, taskOutcomes: ['Pending', 'Pending', 'Pending'], taskTimes: [0, 0, 0] }));

/** The run as read in a write transaction. */
const readIn = (store: Store, runId = 'run_1') => store.transaction(async (repos) => repos.runs.get('ws_1', runId));

describe.each([prismaKind(), postgresKind()] as StoreKind[])('runs read in a write on $name', (kind) => {
  it(
    'answer what another store (process or replica) wrote since, and the same as a store that keeps nothing',
    () =>
      withSeededStore(kind, async (under) => {
        const { store } = under;
        await createRun(store);
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
        await createRun(store);
        await readIn(store);
        // Saved as version 2, then refused: rolled back. Had its row been kept, the next write of version 2 by another
        // writer would be taken for it.
        await expect(stepIn(store, 'rolled back', true)).rejects.toThrow('refused after the save');
        await stepIn(await under.another!(), 'committed elsewhere');
        expect(await readIn(store)).toMatchObject({ version: 2, taskOutcomes: ['committed elsewhere', 'Pending', 'Pending'] });
      }),
    120_000,
  );

  it(
    'never keep a row of a write refused in a batch that committed others',
    () =>
      withSeededStore(kind, async (under) => {
        const { store } = under;
        for (const id of ['run_1', 'run_2']) {
          await createRun(store, id);
          await readIn(store, id);
        }
        // Queued together, they share one transaction: run_1's step commits, run_2's is undone alone.
        const [kept, refused] = await Promise.allSettled([stepIn(store, 'kept'), stepIn(store, 'refused', true, 'run_2')]);
        expect(kept.status).toBe('fulfilled');
        expect(refused.status).toBe('rejected');
        await stepIn(await under.another!(), 'committed elsewhere', false, 'run_2');
        expect(await readIn(store, 'run_2')).toMatchObject({ version: 2, taskOutcomes: ['committed elsewhere', 'Pending', 'Pending'] });
        expect(await readIn(store)).toMatchObject({ version: 2, taskOutcomes: ['kept', 'Pending', 'Pending'] });
      }),
    120_000,
  );
});

describe('a run read in a write on SQLite', () => {
  it('is one statement, answered from the kept row while the version is the kept one, and read whole once it moved', () =>
    withSeededStore(prismaKind(), async (under) => {
      const { store } = under;
      await createRun(store);
      await stepIn(store, 'first');
      // A change behind the store that leaves the version as it was is not seen (the kept row is the run)…
      const other = await under.another!();
      await other.transaction(async (repos) => {
        const behind = (await repos.runs.get('ws_1', 'run_1'))!;
        await expect(repos.runs.save({ ...behind, name: 'Renamed behind' }, behind.version, stepRow('run_1', 90))).resolves.toBe(true);
      });
      const probe = installSqlProbe();
      try {
        probe.reset(true);
        expect(await readIn(store)).toMatchObject({ version: 2, name: null });
        const reads = probe.tally().sources.filter((sql) => /^\s*SELECT/.test(sql));
        expect(reads).toHaveLength(1);
        // …and once another writer moves it on, the same one statement answers the whole row.
        await stepIn(other, 'moved on');
        probe.reset(true);
        expect(await readIn(store)).toMatchObject({ version: 3, taskOutcomes: ['moved on', 'Pending', 'Pending'] });
        expect(probe.tally().sources.filter((sql) => /^\s*SELECT/.test(sql))).toHaveLength(1);
      } finally {
        probe.uninstall();
      }
    }));
});
