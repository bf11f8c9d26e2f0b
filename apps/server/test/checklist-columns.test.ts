// A run's checklist parsed once per text: shared and frozen while the text is the same, parsed again when it is not,
// known again on save (its text without writing it out), and bounded; and the Prisma store reading through it.
import { describe, expect, it } from 'vitest';
import { ChecklistColumns } from '../src/repositories/checklist-columns.ts';
import { intakeRunRecord as run, stepRecord as stepRow } from '../../../packages/core/test/record-builders.ts';
import { type StoreKind, postgresKind, prismaKind, withSeededStore } from './support/stores.ts';

const tasks = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ action: `Task ${i + 1}`, expected_result: 'Done' })));

describe('ChecklistColumns', () => {
  it('answers the same frozen value for the same text of a run, and a new one for another text', () => {
    const columns = new ChecklistColumns();
    const text = tasks(3);
    const first = columns.parse<{ action: string }[]>('run_1', 'tasks', text);
    expect(first).toEqual(JSON.parse(text));
    expect(Object.isFrozen(first) && Object.isFrozen(first[0])).toBe(true);
    expect(columns.parse('run_1', 'tasks', `${text}`.slice(0))).toBe(first);
    // Another run, or another column, with the same text has its own.
    expect(columns.parse('run_2', 'tasks', text)).not.toBe(first);
    expect(columns.parse('run_1', 'moves', '[]')).toEqual([]);
    const changed = columns.parse('run_1', 'tasks', tasks(4));
    expect(changed).not.toBe(first);
    expect(changed).toHaveLength(4);
  });

  it('knows the text of a value it handed out, and of no other', () => {
    const columns = new ChecklistColumns();
    const text = tasks(2);
    const value = columns.parse('run_1', 'tasks', text);
    expect(columns.textOf('run_1', 'tasks', value)).toBe(text);
    expect(columns.textOf('run_1', 'tasks', JSON.parse(text))).toBeUndefined();
    expect(columns.textOf('run_1', 'remarks', value)).toBeUndefined();
    expect(columns.textOf('run_2', 'tasks', value)).toBeUndefined();
    // Once the run's column is read as another text, the old value is not known again.
    columns.parse('run_1', 'tasks', tasks(5));
    expect(columns.textOf('run_1', 'tasks', value)).toBeUndefined();
  });

  it('keeps at most its capacity in characters, least recently used runs dropped first', () => {
    const text = tasks(10);
    const columns = new ChecklistColumns(text.length * 2);
    const one = columns.parse('run_1', 'tasks', text);
    columns.parse('run_2', 'tasks', text);
    expect(columns.parse('run_1', 'tasks', text)).toBe(one);
    columns.parse('run_3', 'tasks', text);
    expect(columns.size).toBe(text.length * 2);
    // run_2 was the least recently used: dropped; run_1 is still kept.
    expect(columns.textOf('run_1', 'tasks', one)).toBe(text);
    // Reading run_2 again drops run_1, now the least recently read (a lookup of a text does not count as a read).
    const two = columns.parse('run_2', 'tasks', text);
    expect(columns.parse('run_2', 'tasks', text)).toBe(two);
    expect(columns.textOf('run_1', 'tasks', one)).toBeUndefined();
    expect(columns.size).toBeLessThanOrEqual(text.length * 2);
  });

  it('keeps the one run it was asked for even when its text alone passes the capacity', () => {
    const columns = new ChecklistColumns(10);
    const text = tasks(3);
    const value = columns.parse('run_1', 'tasks', text);
    expect(columns.parse('run_1', 'tasks', text)).toBe(value);
    columns.parse('run_2', 'tasks', text);
    expect(columns.textOf('run_1', 'tasks', value)).toBeUndefined();
  });
});

describe('the Prisma store on SQLite reads a run through it', () => {
  it("shares an unchanged run's checklist between reads, and reads a replaced one anew", () =>
    withSeededStore(prismaKind(), async ({ store }) => {
      await store.runs.create(run('run_1', { tasks: [{ action: 'A', expected_result: 'B' }], taskOutcomes: ['Pending'] }));
      const first = (await store.runs.get('ws_1', 'run_1'))!;
      const second = (await store.runs.get('ws_1', 'run_1'))!;
      expect(second.tasks).toBe(first.tasks);
      expect(second).not.toBe(first);
      // A step that leaves the checklist as read, then one that replaces it: each read after answers what was saved.
      second.taskOutcomes = ['Verified'];
      second.version = 2;
      expect(await store.runs.save(second, 1, stepRow('run_1', 1))).toBe(true);
      const third = (await store.runs.get('ws_1', 'run_1'))!;
      expect(third).toMatchObject({ version: 2, taskOutcomes: ['Verified'], tasks: [{ action: 'A', expected_result: 'B' }] });
      expect(third.tasks).toBe(first.tasks);
      third.tasks = [...third.tasks, { action: 'C', expected_result: 'D' }];
      third.version = 3;
      expect(await store.runs.save(third, 2, { ...stepRow('run_1', 2), kind: 'revise', label: 'Revision', task: null })).toBe(true);
      const fourth = (await store.runs.get('ws_1', 'run_1'))!;
      expect(fourth.tasks).toEqual([
        { action: 'A', expected_result: 'B' },
        { action: 'C', expected_result: 'D' },
      ]);
      expect(fourth.tasks).not.toBe(first.tasks);
      expect(Object.isFrozen(fourth.tasks)).toBe(true);
    }));
});

/** A run's row and its checklist's row as stored, from the store under test's snapshot of every table. */
function stored(snapshot: unknown, runId: string) {
  // SQLite's snapshot holds rows; PostgreSQL's, each row's [column, value] pairs as JSON text.
  const rows = (table: string) =>
    ((snapshot as Record<string, (string | Record<string, unknown>)[]>)[table] ?? []).map((row) =>
      typeof row === 'string' ? (Object.fromEntries(JSON.parse(row) as [string, unknown][]) as Record<string, unknown>) : row,
    );
  const pick = (row: Record<string, unknown> | undefined) =>
    row && { taskContext: row.taskContext, tasks: row.tasks, moves: row.moves, remarks: row.remarks };
  return { run: pick(rows('Run').find((r) => r.id === runId)), checklist: pick(rows('RunChecklist').find((r) => r.runId === runId)) };
}

describe.each([
  { kind: prismaKind(), legacy: 'empty' },
  { kind: postgresKind(), legacy: 'written' },
] as { kind: StoreKind; legacy: 'empty' | 'written' }[])("the run's own checklist columns on $kind.name", ({ kind, legacy }) => {
  it(
    `are ${legacy === 'written' ? 'written with the checklist, for replicas of the version before' : 'left empty'}, at creation and at a revision`,
    () =>
      withSeededStore(kind, async (under) => {
        const { store } = under;
        const context = [{ action: 'A', expected_result: 'B' }];
        await store.runs.create(run('run_1', { tasks: context, taskContext: context, taskOutcomes: ['Pending'] }));
        const expected = (tasks: unknown) => ({
          taskContext: JSON.stringify(context),
          tasks: JSON.stringify(tasks),
          moves: '[]',
          remarks: '[]',
        });
        const empty = { taskContext: null, tasks: '[]', moves: '[]', remarks: '[]' };
        let rows = stored(await under.snapshot(), 'run_1');
        expect(rows.checklist).toEqual(expected(context));
        expect(rows.run).toEqual(legacy === 'written' ? expected(context) : empty);

        const read = (await store.runs.get('ws_1', 'run_1'))!;
        const revised = [...context, { action: 'C', expected_result: 'D' }];
        read.tasks = revised;
        read.version = 2;
        const step = { ...stepRow('run_1', 1), kind: 'revise' as const, label: 'Revision', task: null };
        expect(await store.runs.save(read, 1, step)).toBe(true);
        rows = stored(await under.snapshot(), 'run_1');
        expect(rows.checklist).toEqual(expected(revised));
        expect(rows.run).toEqual(legacy === 'written' ? expected(revised) : empty);
        expect((await store.runs.get('ws_1', 'run_1'))?.tasks).toEqual(revised);
      }),
    120_000,
  );
});
