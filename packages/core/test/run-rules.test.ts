// Unit tests of the checklist run rules (seed 002): ordering by prerequisites, remarks, the cursor and its steps, revision.
import { describe, expect, it } from 'vitest';
import type { ChecklistEntry } from '@agent-tasks/schema';
import {
  PENDING_OUTCOME,
  type RunRecord,
  applyName,
  applyRevision,
  applyStep,
  applyTeleport,
  asWritten,
  currentTask,
  orderChecklist,
  placeRemarks,
  presentRun,
  requireRunning,
} from '../src/index.ts';
import { expectThrows, runTask, runTasks } from './fixtures.ts';
import { runRecord } from './record-builders.ts';

const T0 = new Date('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

/** A running run on task 1 of `tasks`, current since T0. */
const running = runRecord;

/** A running run whose first `done` tasks were acknowledged, one minute each ("Outcome N"). */
function advanced(tasks: ChecklistEntry[], done: number): RunRecord {
  const run = running(tasks);
  for (let n = 1; n <= done; n++) applyStep(run, n, `Outcome ${n}`, at(n * 60_000));
  return run;
}

const actions = (tasks: readonly ChecklistEntry[]) => tasks.map((t) => t.action);
const revision = (tasks: ChecklistEntry[], resumeFrom: number) => ({
  tasks,
  resumeFrom,
  checklistOutcome: 'Revised list',
  executionOutcome: 'Revised work',
});
/** A run at its revision node, given a new name within the revision (the naming call, then the jump's revision). */
const namedInRevision = (run: RunRecord, name: string) => applyName(applyTeleport(run, at(0)), name);

describe('orderChecklist: a ready list keeps its written order where it can', () => {
  it('with no prerequisites: the written order, no moves, the same tasks', () => {
    const tasks = runTasks(5);
    const out = orderChecklist(tasks);
    expect(out.order).toEqual([1, 2, 3, 4, 5]);
    expect(out.tasks).toEqual(tasks);
    expect(out.moves).toEqual([]);
  });

  it('when every prerequisite already comes first: nothing moves', () => {
    const out = orderChecklist(runTasks(4), [
      { task: 3, needs: [1, 2] },
      { task: 4, needs: [3] },
    ]);
    expect(out.order).toEqual([1, 2, 3, 4]);
    expect(out.moves).toEqual([]);
  });

  it('defers a task until what it needs is done, and records the move with the dependency behind it', () => {
    const tasks = [runTask('Deploy the service'), runTask('Write the changelog'), runTask('Build the image')];
    const out = orderChecklist(tasks, [{ task: 1, needs: [3] }]);
    expect(out.order).toEqual([2, 3, 1]);
    expect(actions(out.tasks)).toEqual(['Write the changelog', 'Build the image', 'Deploy the service']);
    expect(out.moves).toEqual([{ task: 1, from: 1, to: 3, because: 'task 1 needs the result of task 3 (Build the image)' }]);
  });

  it('minimal moves: only the task that must wait moves; every other task keeps its relative order', () => {
    const out = orderChecklist(runTasks(6), [{ task: 2, needs: [5] }]);
    expect(out.order).toEqual([1, 3, 4, 5, 2, 6]);
    expect(out.moves).toEqual([{ task: 2, from: 2, to: 5, because: 'task 2 needs the result of task 5 (Task 5)' }]);
  });

  it('a task that needs several others waits for the last of them, and names that one', () => {
    const out = orderChecklist(runTasks(4), [{ task: 1, needs: [2, 4] }]);
    expect(out.order).toEqual([2, 3, 4, 1]);
    expect(out.moves).toEqual([{ task: 1, from: 1, to: 4, because: 'task 1 needs the result of task 4 (Task 4)' }]);
  });

  it('merges repeated `needs` entries for the same task', () => {
    const out = orderChecklist(runTasks(5), [
      { task: 1, needs: [5] },
      { task: 1, needs: [4, 5] },
    ]);
    expect(out.order).toEqual([2, 3, 4, 5, 1]);
    expect(out.moves).toHaveLength(1);
  });

  it('a chain of prerequisites reverses the chain: both ends move, each with its dependency; the middle keeps its place', () => {
    const out = orderChecklist(runTasks(3), [
      { task: 1, needs: [2] },
      { task: 2, needs: [3] },
    ]);
    expect(out.order).toEqual([3, 2, 1]);
    expect(out.moves).toEqual([
      { task: 3, from: 3, to: 1, because: 'task 2 needs the result of task 3 (Task 3)' },
      { task: 1, from: 1, to: 3, because: 'task 1 needs the result of task 2 (Task 2)' },
    ]);
  });

  it('every position change is shown: a prerequisite that comes forward past the tasks needing it is a move of its own', () => {
    const tasks = [runTask('Publish'), runTask('Left'), runTask('Right'), runTask('Collect')];
    const out = orderChecklist(tasks, [
      { task: 1, needs: [2, 3] },
      { task: 2, needs: [4] },
      { task: 3, needs: [4] },
    ]);
    expect(actions(out.tasks)).toEqual(['Collect', 'Left', 'Right', 'Publish']);
    expect(out.moves).toEqual([
      { task: 4, from: 4, to: 1, because: 'task 2 needs the result of task 4 (Collect)' },
      { task: 1, from: 1, to: 4, because: 'task 1 needs the result of task 3 (Right)' },
    ]);
  });

  it('keeps every task with its wording: nothing dropped, nothing added, nothing reworded', () => {
    const tasks = [runTask('  Keep  my spacing? '), runTask('Ünïcödé ✓ & <tags>', 'Exactly "this"'), runTask('Last')];
    const out = orderChecklist(tasks, [{ task: 1, needs: [3] }]);
    expect(out.tasks).toHaveLength(3);
    expect([...out.tasks].sort((a, b) => a.action.localeCompare(b.action))).toEqual(
      [...tasks].sort((a, b) => a.action.localeCompare(b.action)),
    );
  });

  // Known bug (run-rules.ts orderChecklist: `holders` keeps only needs with a higher written position, then falls back to
  // the last overtaking task): task 2 needs task 1, which waits for task 4, and the move reads "task 2 needs the result
  // of task 4 (Task 4)", a dependency the author never wrote. Marked `fails` until fixed.
  it('a task deferred only because its prerequisite was deferred names that prerequisite', () => {
    const out = orderChecklist(runTasks(4), [
      { task: 1, needs: [4] },
      { task: 2, needs: [1] },
    ]);
    expect(out.order).toEqual([3, 4, 1, 2]);
    expect(out.moves.find((m) => m.task === 2)).toEqual({ task: 2, from: 2, to: 4, because: 'task 2 needs the result of task 1 (Task 1)' });
  });
});

describe('orderChecklist refusals', () => {
  it('a 2-cycle names the pair', () => {
    expectThrows(
      () =>
        orderChecklist(runTasks(4), [
          { task: 2, needs: [3] },
          { task: 3, needs: [2] },
        ]),
      'INVALID_CHECKLIST',
      'Error: invalid checklist: tasks 2 ("Task 2") and 3 ("Task 3") each need the other\'s result; no order satisfies both.',
    );
  });

  it('a 2-cycle behind a task that needs it still names the pair', () => {
    expect(() =>
      orderChecklist(runTasks(3), [
        { task: 1, needs: [3] },
        { task: 3, needs: [2] },
        { task: 2, needs: [3] },
      ]),
    ).toThrow(
      /^Error: invalid checklist: tasks 2 \("Task 2"\) and 3 \("Task 3"\) each need the other's result; no order satisfies both\.$/,
    );
  });

  it('a longer cycle is named the whole way round', () => {
    expectThrows(
      () =>
        orderChecklist(runTasks(3), [
          { task: 1, needs: [2] },
          { task: 2, needs: [3] },
          { task: 3, needs: [1] },
        ]),
      'INVALID_CHECKLIST',
      "Error: invalid checklist: tasks 1 → 2 → 3 → 1 need each other's results in a cycle; no order satisfies them.",
    );
    expectThrows(
      () =>
        orderChecklist(runTasks(6), [
          { task: 2, needs: [5] },
          { task: 5, needs: [4] },
          { task: 4, needs: [3] },
          { task: 3, needs: [2] },
          { task: 6, needs: [1] },
        ]),
      'INVALID_CHECKLIST',
      "Error: invalid checklist: tasks 2 → 5 → 4 → 3 → 2 need each other's results in a cycle; no order satisfies them.",
    );
  });

  it('a task that needs its own result', () => {
    expectThrows(
      () => orderChecklist(runTasks(3), [{ task: 2, needs: [1, 2] }]),
      'INVALID_CHECKLIST',
      'Error: invalid checklist: task 2 cannot need its own result.',
    );
  });

  it('positions past the end of the list, on either side of a need', () => {
    expectThrows(
      () => orderChecklist(runTasks(3), [{ task: 4, needs: [1] }]),
      'INVALID_CHECKLIST',
      'Error: invalid checklist: `needs` names task 4, but the checklist has 3 tasks.',
    );
    expectThrows(
      () => orderChecklist(runTasks(3), [{ task: 1, needs: [2, 7] }]),
      'INVALID_CHECKLIST',
      'Error: invalid checklist: `needs` names task 7, but the checklist has 3 tasks.',
    );
    expectThrows(
      () => orderChecklist(runTasks(1), [{ task: 1, needs: [2] }]),
      'INVALID_CHECKLIST',
      'Error: invalid checklist: `needs` names task 2, but the checklist has 1 task.',
    );
  });
});

describe('asWritten: a ready checklist from the task context keeps its written order', () => {
  const [a, b, c] = runTasks(3) as [ChecklistEntry, ChecklistEntry, ChecklistEntry];
  it('without a task context, or submitted as written, the submission is the written list', () => {
    const needs = [{ task: 1, needs: [3] }];
    expect(asWritten(null, { tasks: [c, a], needs })).toEqual({ tasks: [c, a], needs, remarks: [], reordered: false });
    expect(asWritten([a, b, c], { tasks: [a, b, c], needs })).toEqual({ tasks: [a, b, c], needs, remarks: [], reordered: false });
  });

  it('submitted in another order: the written list, with needs and remarks translated to its positions', () => {
    const written = asWritten([a, b, c], {
      tasks: [c, a, b],
      needs: [{ task: 2, needs: [1] }],
      remarks: [{ text: 'Careful', tasks: [2, 3] }],
    });
    expect(written).toEqual({
      tasks: [a, b, c],
      needs: [{ task: 1, needs: [3] }],
      remarks: [{ text: 'Careful', tasks: [1, 2] }],
      reordered: true,
    });
    expect(orderChecklist(written.tasks, written.needs).moves).toEqual([
      { task: 1, from: 1, to: 3, because: 'task 1 needs the result of task 3 (Task 3)' },
    ]);
  });

  it('an item given twice maps to its occurrences in written order; a position past the end stays, to be refused', () => {
    const written = asWritten([a, b, a], { tasks: [b, a, a], needs: [{ task: 1, needs: [9] }] });
    expect(written).toMatchObject({ tasks: [a, b, a], needs: [{ task: 2, needs: [9] }], reordered: true });
  });
});

describe('placeRemarks: a remark governs the tasks it constrains, by their executed positions', () => {
  it('translates written positions to executed positions, sorted and without repeats', () => {
    const { order } = orderChecklist(runTasks(3), [{ task: 1, needs: [3] }]); // executed: 2, 3, 1
    expect(placeRemarks([{ text: 'Never touch production', tasks: [1, 3, 1] }], order)).toEqual([
      { text: 'Never touch production', tasks: [2, 3] },
    ]);
    expect(placeRemarks([{ text: 'Keep the API stable', tasks: [2] }], order)).toEqual([{ text: 'Keep the API stable', tasks: [1] }]);
    expect(placeRemarks([], order)).toEqual([]);
  });

  it('refuses a position past the end', () => {
    expectThrows(
      () => placeRemarks([{ text: 'Careful', tasks: [1, 4] }], [1, 2, 3]),
      'INVALID_CHECKLIST',
      'Error: invalid checklist: `remarks` names task 4, but the checklist has 3 tasks.',
    );
  });
});

describe('the cursor and its projection', () => {
  it('projects the current task as Task N/M with its action and expected result', () => {
    const run = running([runTask('A', 'A works'), runTask('B', 'B works')], { cursor: 2 });
    expect(currentTask(run)).toEqual({ label: 'Task 2/2', action: 'B', expected_result: 'B works' });
    expect(currentTask({ ...run, cursor: 3 })).toBeNull();
    expect(currentTask({ ...run, status: 'intake' })).toBeNull();
  });

  it('requireRunning refuses intake and completed runs with their texts', () => {
    expectThrows(
      () => requireRunning({ id: 'run_9', status: 'intake' }),
      'CONFLICT',
      'Error: run run_9 has no checklist yet; submit it first.',
    );
    expectThrows(
      () => requireRunning({ id: 'run_9', status: 'completed' }),
      'CONFLICT',
      'Error: run run_9 is completed; it takes no more steps.',
    );
    expect(() => requireRunning({ id: 'run_9', status: 'running' })).not.toThrow();
  });
});

describe('applyStep: a schema-valid acknowledgement advances the cursor exactly once', () => {
  it('advances from the current task to the next, recording the outcome and clearing the blocker', () => {
    const run = running(runTasks(3), { blocker: 'CI is down' });
    applyStep(run, 1, 'Task 1 verified', at(1000));
    expect(run).toMatchObject({ cursor: 2, status: 'running', executionOutcome: 'Task 1 verified', blocker: null, currentSince: at(1000) });
    expect(run.taskOutcomes).toEqual(['Task 1 verified', PENDING_OUTCOME, PENDING_OUTCOME]);
  });

  it('refuses the same task number again (stale) with the exact text, changing nothing', () => {
    const run = advanced(runTasks(3), 1);
    const before = JSON.stringify(run);
    const error = expectThrows(
      () => applyStep(run, 1, 'again', at(999_000)),
      'STALE_STEP',
      'Error: stale step: task 1/3 was already acknowledged; the current task is 2/3.',
    );
    expect(error.details).toEqual({ cursor: 2, total: 3 });
    expect(JSON.stringify(run)).toBe(before);
  });

  it('refuses a future task number with the exact text, changing nothing', () => {
    const run = running(runTasks(3));
    const before = JSON.stringify(run);
    expectThrows(
      () => applyStep(run, 3, 'skip', at(5)),
      'STALE_STEP',
      'Error: stale step: task 3/3 is not current; the current task is 1/3.',
    );
    expectThrows(
      () => applyStep(run, 2, 'skip', at(5)),
      'STALE_STEP',
      'Error: stale step: task 2/3 is not current; the current task is 1/3.',
    );
    expect(JSON.stringify(run)).toBe(before);
  });

  it('exhausting the list completes the run; it then takes no more steps', () => {
    const run = advanced(runTasks(2), 2);
    expect(run).toMatchObject({ status: 'completed', cursor: 3 });
    expect(currentTask(run)).toBeNull();
    expectThrows(() => applyStep(run, 3, 'more', at(0)), 'CONFLICT', 'Error: run run_1 is completed; it takes no more steps.');
  });

  it('a run in intake takes no step', () => {
    const run = running([], { status: 'intake', cursor: 0, currentSince: null });
    expectThrows(() => applyStep(run, 1, 'x', at(0)), 'CONFLICT', 'Error: run run_1 has no checklist yet; submit it first.');
  });

  it('accounts the time each task was current to that task', () => {
    const run = running(runTasks(3));
    applyStep(run, 1, 'one', at(45_000));
    applyStep(run, 2, 'two', at(100_000));
    expect(run.taskTimes).toEqual([45_000, 55_000, 0]);
    // The view adds the live time of the task in progress.
    const view = presentRun(run, at(130_000));
    expect(view.blocks.work.tasks.map((t) => t.timeMs)).toEqual([45_000, 55_000, 30_000]);
  });

  it('a clock that went backwards adds no negative time', () => {
    const run = running(runTasks(2), { currentSince: at(10_000) });
    applyStep(run, 1, 'one', at(5_000));
    expect(run.taskTimes).toEqual([0, 0]);
  });
});

describe('applyRevision: the complete corrected checklist and the position to continue from', () => {
  it('refuses a change to an executed task, naming its position; the run is unchanged', () => {
    const run = advanced(runTasks(4), 2);
    const before = JSON.stringify(run);
    const changed = [runTask('Task 1'), runTask('Task 2, reworded'), runTask('Task 3'), runTask('Task 4')];
    const error = expectThrows(
      () => applyRevision(run, revision(changed, 3), at(999_000)),
      'INVALID_REVISION',
      'Error: invalid revision: task 2 was already executed and must stay unchanged at position 2.',
    );
    expect(error.details).toEqual({ position: 2 });
    expect(JSON.stringify(run)).toBe(before);
  });

  it('refuses an executed task that moved, lost its place, or changed its expected result', () => {
    const run = advanced(runTasks(3), 2);
    const text = (p: number) => `Error: invalid revision: task ${p} was already executed and must stay unchanged at position ${p}.`;
    const [t1, t2, t3] = runTasks(3) as [ChecklistEntry, ChecklistEntry, ChecklistEntry];
    expectThrows(() => applyRevision(run, revision([t2, t1, t3], 3), at(0)), 'INVALID_REVISION', text(1));
    expectThrows(() => applyRevision(run, revision([t1], 2), at(0)), 'INVALID_REVISION', text(2));
    expectThrows(() => applyRevision(run, revision([t1, runTask('Task 2', 'another result'), t3], 3), at(0)), 'INVALID_REVISION', text(2));
  });

  it('continues from resume_from_task: everything before it counts as done, the total is recomputed', () => {
    const run = advanced(runTasks(3), 1);
    const tasks = [...runTasks(3), runTask('Task 4'), runTask('Task 5')];
    applyRevision(run, revision(tasks, 3), at(200_000));
    expect(run).toMatchObject({
      status: 'running',
      cursor: 3,
      revision: 1,
      checklistOutcome: 'Revised list',
      executionOutcome: 'Revised work',
    });
    const view = presentRun(run, at(200_000));
    expect(view.total).toBe(5);
    expect(view.blocks.prepare).toEqual({ length: 5, cursor: 3, action: 'Task 3', expected_result: 'Task 3: done' });
    expect(view.blocks.work.label).toBe('Task 3/5');
    expect(view.blocks.work.tasks.map((t) => t.state)).toEqual(['done', 'done', 'in_progress', 'pending', 'pending']);
    expect(view.blocks.work.done).toBe(2);
  });

  it('a position past the end of the new list completes the run', () => {
    for (const resumeFrom of [3, 4, 50]) {
      const run = advanced(runTasks(4), 1);
      applyRevision(run, revision(runTasks(2), resumeFrom), at(0));
      expect(run).toMatchObject({ status: 'completed', cursor: 3 });
      expect(presentRun(run, at(0)).output).toEqual({});
    }
  });

  it('removing the whole unfinished tail at the cursor completes the run', () => {
    const run = advanced(runTasks(4), 2);
    applyRevision(run, revision(runTasks(2), 3), at(0));
    expect(run).toMatchObject({ status: 'completed', cursor: 3 });
    expect(presentRun(run, at(0)).blocks.work.label).toBe('Done 2/2');
  });

  it('resuming before the cursor runs those tasks again', () => {
    const run = advanced(runTasks(3), 2);
    applyRevision(run, revision(runTasks(3), 2), at(0));
    expect(run.cursor).toBe(2);
    expect(run.taskOutcomes).toEqual(['Outcome 1', PENDING_OUTCOME, PENDING_OUTCOME]);
  });

  it('keeps a completed outcome only for the preserved prefix; every other task is Pending', () => {
    const run = advanced(runTasks(4), 2);
    // Executed 1-2 preserved, task 3 replaced, resume after a skipped task 3.
    const tasks = [runTask('Task 1'), runTask('Task 2'), runTask('Task 3 done differently'), runTask('Task 4')];
    applyRevision(run, revision(tasks, 4), at(0));
    expect(run.taskOutcomes).toEqual(['Outcome 1', 'Outcome 2', PENDING_OUTCOME, PENDING_OUTCOME]);
    expect(presentRun(run, at(0)).blocks.work.tasks.map((t) => [t.state, t.outcome])).toEqual([
      ['done', 'Outcome 1'],
      ['done', 'Outcome 2'],
      ['done', PENDING_OUTCOME],
      ['in_progress', PENDING_OUTCOME],
    ]);
  });

  it('keeps the time of the preserved prefix; new and remaining tasks start at zero', () => {
    const run = advanced(runTasks(3), 2); // one minute each
    applyRevision(run, revision([...runTasks(2), runTask('New 3'), runTask('New 4')], 3), at(180_000));
    expect(run.taskTimes).toEqual([60_000, 60_000, 0, 0]);
    expect(run.currentSince).toEqual(at(180_000));
  });

  // Doubtful (run-rules.ts applyRevision): closePass adds the current pass to taskTimes[cursor - 1], then the new
  // taskTimes keep only indexes < executed, so the time spent on the current task before the revision is dropped even
  // when the revision keeps that task unchanged at its position. Marked `fails` until decided.
  it('keeps the time already spent on the current task when the revision keeps it at its position', () => {
    const run = advanced(runTasks(3), 1); // task 2 current since 60 s
    applyRevision(run, revision(runTasks(3), 2), at(660_000));
    expect(run.taskTimes).toEqual([60_000, 600_000, 0]);
  });

  it('a task moved by the revision keeps the time its passes spent, at its new position', () => {
    const run = advanced(runTasks(3), 1); // task 2 current since 60 s
    applyRevision(run, revision([runTask('Task 1'), runTask('Task 3'), runTask('Task 2')], 2), at(660_000));
    expect(actions(run.tasks)).toEqual(['Task 1', 'Task 3', 'Task 2']);
    expect(run.taskTimes).toEqual([60_000, 0, 600_000]);
  });

  it('a reorder alone never changes the name, even when one was given within the revision; the notice says why', () => {
    const run = advanced(runTasks(4), 1);
    const [t1, t2, t3, t4] = runTasks(4) as [ChecklistEntry, ChecklistEntry, ChecklistEntry, ChecklistEntry];
    namedInRevision(run, 'A new name');
    expect(run).toMatchObject({ name: 'Ship the release', pendingName: 'A new name', revising: true });
    applyRevision(run, revision([t1, t4, t2, t3], 2), at(0));
    expect(run).toMatchObject({ name: 'Ship the release', pendingName: null, revising: false });
    expect(run.notice).toBe(
      'The name stays "Ship the release": this revision only reorders the checklist, and ordering alone retains the name (a new name applies only when the scope changes).',
    );
    expect(actions(run.tasks)).toEqual(['Task 1', 'Task 4', 'Task 2', 'Task 3']);
  });

  it('a change of scope takes the name given within the revision, and keeps the old one otherwise', () => {
    const added = namedInRevision(advanced(runTasks(2), 1), 'Ship and announce');
    applyRevision(added, revision([...runTasks(2), runTask('Task 3')], 2), at(0));
    expect(added).toMatchObject({ name: 'Ship and announce', notice: null });

    const dropped = namedInRevision(advanced(runTasks(3), 1), 'Ship less');
    applyRevision(dropped, revision(runTasks(2), 2), at(0));
    expect(dropped.name).toBe('Ship less');

    const unnamed = advanced(runTasks(2), 1);
    applyRevision(unnamed, revision([...runTasks(2), runTask('Task 3')], 2), at(0));
    expect(unnamed.name).toBe('Ship the release');
  });

  it('remarks follow their tasks to their new positions; a remark whose tasks are gone is dropped', () => {
    const run = advanced(runTasks(4), 1);
    run.remarks = [
      { text: 'Use the staging cluster', tasks: [3, 4] },
      { text: 'Only for task 2', tasks: [2] },
    ];
    const [t1, , t3, t4] = runTasks(4) as [ChecklistEntry, ChecklistEntry, ChecklistEntry, ChecklistEntry];
    applyRevision(run, revision([t1, t4, runTask('New'), t3], 2), at(0));
    expect(run.remarks).toEqual([{ text: 'Use the staging cluster', tasks: [2, 4] }]);
    expect(presentRun(run, at(0)).blocks.work.tasks.map((t) => t.remarks)).toEqual([
      [],
      ['Use the staging cluster'],
      [],
      ['Use the staging cluster'],
    ]);
  });

  it('clears the blocker and counts the revision', () => {
    const run = advanced(runTasks(3), 1);
    run.blocker = 'Blocked on review';
    applyRevision(run, revision(runTasks(3), 2), at(0));
    expect(run).toMatchObject({ blocker: null, revision: 1 });
  });

  it('refuses a completed run and a run in intake', () => {
    expectThrows(
      () => applyRevision(advanced(runTasks(1), 1), revision(runTasks(1), 2), at(0)),
      'CONFLICT',
      'Error: run run_1 is completed; it takes no more steps.',
    );
    expectThrows(
      () => applyRevision(running([], { status: 'intake', cursor: 0 }), revision(runTasks(1), 1), at(0)),
      'CONFLICT',
      'Error: run run_1 has no checklist yet; submit it first.',
    );
  });
});

describe("a run's view: remarks and notes under their tasks", () => {
  it('shows each remark under every task it names once, in remark order, and notes only on tasks that have some', () => {
    const run = running(runTasks(3), {
      remarks: [
        { text: 'Never on Fridays', tasks: [1, 3] },
        { text: 'Ask first', tasks: [3, 3] },
      ],
      personNotes: [
        { task: 3, text: 'Use staging', author: 'ops key', at: T0.toISOString() },
        { task: 1, text: 'Done twice before', author: 'lead key', at: T0.toISOString() },
        { task: 3, text: 'Then production', author: 'ops key', at: T0.toISOString() },
      ],
    });
    const entries = presentRun(run, at(0)).blocks.work.tasks;
    expect(entries.map((t) => t.remarks)).toEqual([['Never on Fridays'], [], ['Never on Fridays', 'Ask first']]);
    expect(entries.map((t) => t.notes)).toEqual([
      ['lead key: Done twice before'],
      undefined,
      ['ops key: Use staging', 'ops key: Then production'],
    ]);
    expect('notes' in entries[1]!).toBe(false);
  });
});
