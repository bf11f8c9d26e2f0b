// Unit tests of the run card's view model (seed 002 "Execution progress"): every word the card shows, block by block.
import { describe, expect, it } from 'vitest';
import { type RunRecord, applyStep, displayText, formatDuration, presentRun, runCardModel } from '../src/index.ts';
import { runTask, runTasks } from './fixtures.ts';
import { runRecord } from './record-builders.ts';

const T0 = new Date('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function record(tasks = runTasks(3), patch: Partial<RunRecord> = {}): RunRecord {
  return runRecord(tasks, { id: 'run_abc', checklistOutcome: 'Three ordered tasks are ready', ...patch });
}

/** The card of a run with `done` tasks acknowledged ("Outcome N", 65 s each), viewed `liveMs` into the current task. */
function cardOf(run: RunRecord, done = 0, liveMs = 0) {
  for (let n = 1; n <= done; n++) applyStep(run, n, `Outcome ${n}`, at(n * 65_000));
  return runCardModel(presentRun(run, at(done * 65_000 + liveMs)));
}

describe('runCardModel', () => {
  it('heading, title and footer of a running run', () => {
    const card = cardOf(record(), 1, 5_000);
    expect(card.flow).toBe('Todo List');
    expect(card.status).toEqual({ word: 'Running', tone: 'in_progress' });
    expect(card.name).toBe('Ship the release');
    expect(card.title).toBe('Todo List — Ship the release');
    expect(card.desc).toBe('Task 2/3 · 1 of 3 tasks done');
    expect(card.footer).toMatch(/^Run run_abc · revision 0 · updated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  });

  it('the status of each kind of run', () => {
    expect(cardOf(record(), 3).status).toEqual({ word: 'Completed', tone: 'done' });
    expect(cardOf(record([], { status: 'intake', name: null, cursor: 0, currentSince: null })).status).toEqual({
      word: 'Checklist intake',
      tone: 'pending',
    });
    expect(cardOf(record(runTasks(2), { blocker: 'CI is down' })).status).toEqual({ word: 'Blocked', tone: 'blocker' });
    expect(cardOf(record(runTasks(2), { revising: true })).status).toEqual({ word: 'Revising', tone: 'in_progress' });
  });

  it('Checklist: the synopsis, the facts, and at most five moves then "+N more"', () => {
    const moves = Array.from({ length: 7 }, (_, i) => ({ task: i + 1, from: i + 1, to: 8, because: `reason ${i + 1}` }));
    const card = cardOf(record(runTasks(8), { moves, revision: 2, remarks: [{ text: 'r', tasks: [1] }] }));
    expect(card.checklist.synopsis).toBe('Three ordered tasks are ready');
    expect(card.checklist.facts).toBe('8 tasks · revised 2× · 1 remark');
    expect(card.checklist.moves).toEqual([...moves.slice(0, 5).map((m) => `Written task ${m.task} → position 8: ${m.because}`), '+2 more']);
    expect(cardOf(record(runTasks(1))).checklist).toMatchObject({ facts: '1 task', moves: [] });
  });

  it('Prepare: length, cursor and the current action, or why there is none', () => {
    expect(cardOf(record([runTask('One'), runTask('Two')]), 1).prepare).toEqual({
      facts: [
        ['Length', '2'],
        ['Cursor', '2'],
      ],
      action: 'Two',
      hasAction: true,
    });
    expect(cardOf(record(), 3).prepare).toMatchObject({ action: 'None: the checklist is exhausted', hasAction: false });
    const intake = cardOf(record([], { status: 'intake', cursor: 0, currentSince: null }));
    expect(intake.prepare).toEqual({
      facts: [
        ['Length', '0'],
        ['Cursor', '—'],
      ],
      action: 'Waiting for the checklist',
      hasAction: false,
    });
  });

  it('Work: label, counts, blocker and one row per task with mark, outcome, remarks and time', () => {
    const run = record([runTask('Build the image'), runTask('Deploy the service'), runTask('Announce it')], {
      remarks: [{ text: 'Never on Fridays', tasks: [3] }],
    });
    applyStep(run, 1, 'Outcome 1', at(65_000));
    run.blocker = 'Waiting for approval'; // a step clears a blocker: set it after
    const { work } = cardOf(run, 0, 95_000);
    expect(work).toMatchObject({ label: 'Task 2/3', doneText: '1 of 3 done', fraction: 1 / 3, blocker: 'Blocked: Waiting for approval' });
    expect(work.tasks).toEqual([
      {
        number: 1,
        state: 'done',
        mark: '✓',
        title: 'Build the image',
        wholeTitle: false,
        outcome: 'Done · Outcome 1',
        remarks: [],
        time: '1m 05s',
      },
      {
        number: 2,
        state: 'in_progress',
        mark: '▶',
        title: 'Deploy the service',
        wholeTitle: true,
        outcome: 'In progress',
        remarks: [],
        time: '30s',
      },
      {
        number: 3,
        state: 'pending',
        mark: '○',
        title: 'Announce it',
        wholeTitle: false,
        outcome: 'Pending',
        remarks: ['Remark: Never on Fridays'],
        time: '—',
      },
    ]);
  });
});

describe('card text helpers', () => {
  it('formatDuration: the time each task spent current', () => {
    expect([0, 400, 45_000, 65_000, 3_723_000, 90_061_000].map(formatDuration)).toEqual(['0s', '<1s', '45s', '1m 05s', '1h 02m', '1d 01h']);
  });

  it('displayText: one line, without characters XML cannot carry', () => {
    expect(displayText('Bell\u0007 and\nnew\tline \uD800 lone  ')).toBe('Bell and new line \uFFFD lone');
  });
});
