// Known JSON texts: noted only for frozen values whose text they exactly are, and spliced into an answer's text in
// place of serialising those values again — the answer's text always exactly JSON.stringify's.
import { describe, expect, it } from 'vitest';
import { presentRun } from '@agent-tasks/core';
import { ChecklistColumns } from '../src/repositories/checklist-columns.ts';
import { jsonPiecesWithKnown, jsonWithKnown, knowJson, knownJson, utf8Of } from '../src/known-json.ts';
import { intakeRunRecord as run } from '../../../packages/core/test/record-builders.ts';
import { prismaKind, withSeededStore } from './support/stores.ts';

const checklist = (n: number) =>
  Object.freeze(Array.from({ length: n }, (_, i) => Object.freeze({ action: `Task ${i + 1} "é"`, expected_result: 'Done' })));

describe('known JSON texts', () => {
  it('are noted for a value frozen at every level whose text they are, and for nothing else', () => {
    const tasks = checklist(3);
    knowJson(tasks, JSON.stringify(tasks));
    expect(knownJson(tasks)).toBe(JSON.stringify(tasks));
    const spaced = checklist(2);
    knowJson(spaced, JSON.stringify(spaced, null, 1));
    expect(knownJson(spaced)).toBeUndefined();
    const open = [{ action: 'A' }];
    knowJson(open, JSON.stringify(open));
    expect(knownJson(open)).toBeUndefined();
    // Frozen on top only: what is inside could still change.
    const shallow = Object.freeze([{ action: 'A' }]);
    knowJson(shallow, JSON.stringify(shallow));
    expect(knownJson(shallow)).toBeUndefined();
    expect(knownJson('text')).toBeUndefined();
  });

  it('are spliced into the text of an object that holds them, which is exactly what JSON.stringify makes', () => {
    let serialised = 0;
    const value = Object.freeze({
      toJSON() {
        serialised++;
        return ['kept', '\u0000#0'];
      },
    });
    knowJson(value, JSON.stringify(value));
    // Once for the text given, once to check it.
    expect(serialised).toBe(2);
    const tasks = checklist(5);
    knowJson(tasks, JSON.stringify(tasks));
    const answers: unknown[] = [
      { id: 'run_1', name: '\u0000#0', tasks, held: value, cursor: 2, more: { tasks }, list: [tasks], when: new Date(0), gone: undefined },
      { a: value, b: value },
      [tasks, value],
      tasks,
      'text',
      null,
      42,
    ];
    const expected = answers.map((answer) => JSON.stringify(answer));
    serialised = 0;
    expect(answers.map((answer) => jsonWithKnown(answer))).toEqual(expected);
    // `value` shows in four places: serialised again only in the array; the three fields of plain objects took its text.
    expect(serialised).toBe(1);
  });

  it("give an answer in pieces, each known text a piece of its own, whose bytes together are the answer's", () => {
    const tasks = checklist(6);
    const text = JSON.stringify(tasks);
    knowJson(tasks, text);
    const answer = { id: 'run_1', tasks, note: 'é — 漢字 🙂', work: { tasks }, taskContext: { tasks: [...tasks] }, again: tasks };
    const pieces = jsonPiecesWithKnown(answer);
    expect(pieces.join('')).toBe(JSON.stringify(answer));
    // The two top-level fields take the known text as it is; the nested ones are serialised.
    expect(pieces.filter((piece) => piece === text)).toHaveLength(2);
    expect(utf8Of(pieces).equals(Buffer.from(JSON.stringify(answer)))).toBe(true);
    expect(jsonPiecesWithKnown(tasks)).toEqual([text]);
    expect(jsonPiecesWithKnown({ plain: 1 })).toEqual(['{"plain":1}']);
    expect(utf8Of(['a', '', 'é🙂', '\ud800']).equals(Buffer.from('aé🙂\ud800'))).toBe(true);
    // An object that says what its text is (its `toJSON`, enumerable or not) is serialised as it is.
    const hidden = { tasks };
    Object.defineProperty(hidden, 'toJSON', { value: () => 'replaced' });
    const twice = { tasks, toJSON: () => ({ a: tasks, b: tasks }) };
    for (const value of [hidden, twice]) expect(jsonPiecesWithKnown(value).join('')).toBe(JSON.stringify(value));
  });

  it("are noted for a run's checklist read from its column, when its text is JSON.stringify's", () => {
    const columns = new ChecklistColumns();
    const text = JSON.stringify(checklist(4));
    const tasks = columns.parse<object>('run_1', 'tasks', text);
    expect(knownJson(tasks)).toBe(text);
    const spaced = columns.parse<object>('run_2', 'tasks', JSON.stringify(checklist(4), null, 2));
    expect(knownJson(spaced)).toBeUndefined();
    expect(jsonWithKnown({ tasks: spaced })).toBe(JSON.stringify({ tasks: checklist(4) }));
  });
});

describe("a run's view read from the store", () => {
  it("shares the run's checklist, whose text is known, and is sent exactly as JSON.stringify makes it", () =>
    withSeededStore(prismaKind(), async ({ store }) => {
      const tasks = Array.from({ length: 20 }, (_, i) => ({ action: `Check part ${i + 1}`, expected_result: 'It holds' }));
      await store.runs.create(run('run_1', { tasks, taskOutcomes: tasks.map(() => 'Pending'), taskTimes: tasks.map(() => 0) }));
      const read = (await store.runs.get('ws_1', 'run_1'))!;
      const view = presentRun(read, new Date('2025-01-01T00:00:05.000Z'));
      expect(view.tasks).toBe(read.tasks);
      expect(knownJson(view.tasks)).toBe(JSON.stringify(tasks));
      expect(jsonWithKnown(view)).toBe(JSON.stringify(view));
    }));
});
