// Unit tests of the checklist run use cases (seed 002) on the in-memory store: start, intake, steps, blockers,
// revision, notifications through the outbox and their delivery, and who may change a run.
import { beforeEach, describe, expect, it } from 'vitest';
import { runIntakeInput, runReviseInput, runStepInput } from '@agent-tasks/schema';
import { type Actor, type OutboxRecord, channels, resolveActor, runTopic, runs, workspaces } from '../src/index.ts';
import {
  type World,
  addChannel,
  agentSession,
  expectRefused,
  makeWorld,
  otherAgentSession,
  runTask,
  runTasks,
  startRun,
  startedRun,
} from './fixtures.ts';
import { FakeSender, PUBLIC_URL } from './memory-store.ts';
import { outboxRecord } from './record-builders.ts';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});

const NO_CHANNEL =
  'Error: Todo List notifies when the checklist is ready and when all tasks are done, but this workspace has no notification channel. Ask an admin to add one, or prepare the start again with skipNotificationCheck: true.';

/** The run's current step attempt, as its view shows it. */
const currentAttempt = async (runId: string) => (await runs.get(w.deps, w.admin, { runId })).attemptId ?? 'none';

const step = async (runId: string, task: number, extra: { attemptId?: string; actor?: Actor; outcome?: string } = {}) =>
  runs.step(w.deps, extra.actor ?? w.session, {
    runId,
    task,
    attemptId: extra.attemptId ?? (await currentAttempt(runId)),
    evidence: `Checked task ${task}`,
    progress_execution_outcome: extra.outcome ?? `Task ${task} verified`,
  });

/** The n-th UUID the test world issues: run, start attempt and step attempt ids are UUIDs. */
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const outbox = (): OutboxRecord[] => [...w.store.snapshot().outbox.values()];
const stepsOf = async (runId: string) => (await runs.history(w.deps, w.admin, { runId })).steps;

/** What a refused change must leave untouched: the whole store and the published events. */
const state = () => ({ snapshot: w.store.snapshot(), events: w.events.published.length });
function expectUnchanged(before: ReturnType<typeof state>) {
  const after = state();
  expect(after.events).toBe(before.events);
  expect(after.snapshot).toEqual(before.snapshot);
}

describe('prepare: the two-phase start', () => {
  it('refuses a workspace without a notification channel, with the instruction, writing nothing', async () => {
    const before = state();
    await expectRefused(runs.prepareStart(w.deps, w.session, { parentExecutionId: 'none' }), 'NO_CHANNEL', NO_CHANNEL);
    await expectRefused(
      runs.prepareStart(w.deps, w.session, { parentExecutionId: 'none', skipNotificationCheck: false }),
      'NO_CHANNEL',
      NO_CHANNEL,
    );
    expectUnchanged(before);
  });

  it('prepares with skipNotificationCheck: true, or once the workspace has a channel', async () => {
    const skipped = await runs.prepareStart(w.deps, w.session, { parentExecutionId: 'none', skipNotificationCheck: true });
    expect(skipped).toEqual({ startAttemptId: uuid(1) });
    expect(skipped.startAttemptId).toMatch(/^[a-f0-9-]+$/);
    expect(w.store.snapshot().runStarts.get(uuid(1))).toMatchObject({
      sessionId: w.sessionId,
      skipNotificationCheck: true,
      runId: null,
      parentRunId: null,
    });
    await addChannel(w);
    expect(await runs.prepareStart(w.deps, w.session, { parentExecutionId: 'none' })).toEqual({ startAttemptId: uuid(2) });
  });

  it('needs an agent session: an API key alone, or a viewer key, is refused', async () => {
    const before = state();
    await expectRefused(
      runs.prepareStart(w.deps, w.agent, { parentExecutionId: 'none', skipNotificationCheck: true }),
      'NO_OWNING_SESSION',
      'Error: a checklist run requires an owning agent session before anything is written.',
    );
    await expectRefused(
      runs.prepareStart(w.deps, w.viewer, { parentExecutionId: 'none', skipNotificationCheck: true }),
      'FORBIDDEN',
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
    expectUnchanged(before);
  });

  it('a child run names its parent; an unknown parent is refused', async () => {
    const parent = await startedRun(w);
    const child = await startRun(w, { parentExecutionId: parent.id });
    expect(child.parentRunId).toBe(parent.id);
    await expectRefused(
      runs.prepareStart(w.deps, w.session, { parentExecutionId: 'run_nope', skipNotificationCheck: true }),
      'NOT_FOUND',
      'Error: run run_nope not found.',
    );
  });

  it('naming a run as parent follows the rule for acting on it: a session that may not act on the run is refused, recording nothing', async () => {
    const parent = await startedRun(w);
    const other = await otherAgentSession(w, 'other');
    const before = state();
    const text = `Error: forbidden: run ${parent.id} belongs to another agent.`;
    await expectRefused(runs.prepareStart(w.deps, other, { parentExecutionId: parent.id, skipNotificationCheck: true }), 'FORBIDDEN', text);
    await expectRefused(runs.reportBlocker(w.deps, other, { runId: parent.id, blocker: 'Not mine' }), 'FORBIDDEN', text);
    expectUnchanged(before);
  });
});

describe('execute: starts the run from its attempt, once', () => {
  it('starts a run in intake, owned by the session, and publishes it', async () => {
    const { startAttemptId } = await runs.prepareStart(w.deps, w.session, { parentExecutionId: 'none', skipNotificationCheck: true });
    const run = await runs.executeStart(w.deps, w.session, { startAttemptId });
    expect(run).toMatchObject({
      id: uuid(2),
      flow: 'Todo List',
      name: null,
      status: 'intake',
      sessionId: w.sessionId,
      tasks: [],
      cursor: 0,
      total: 0,
      current: null,
      output: null,
      version: 1,
    });
    expect(run.blocks.work.label).toBe('Checklist intake');
    expect(w.events.published.at(-1)).toMatchObject({ topic: runTopic(uuid(2)), id: '1', data: { version: 1, run } });
    expect(w.store.snapshot().runStarts.get(startAttemptId)?.runId).toBe(uuid(2));
  });

  it('a second execute of the same attempt is refused and starts nothing', async () => {
    const { startAttemptId } = await runs.prepareStart(w.deps, w.session, { parentExecutionId: 'none', skipNotificationCheck: true });
    await runs.executeStart(w.deps, w.session, { startAttemptId });
    const before = state();
    await expectRefused(
      runs.executeStart(w.deps, w.session, { startAttemptId }),
      'CONFLICT',
      `Error: start attempt ${startAttemptId} was already executed (run ${uuid(2)}).`,
    );
    expectUnchanged(before);
    expect(w.store.snapshot().runs.size).toBe(1);
  });

  it("another agent cannot execute this agent's attempt; an unknown attempt is not found", async () => {
    const { startAttemptId } = await runs.prepareStart(w.deps, w.session, { parentExecutionId: 'none', skipNotificationCheck: true });
    const other = await otherAgentSession(w, 'other');
    const before = state();
    await expectRefused(
      runs.executeStart(w.deps, other, { startAttemptId }),
      'NOT_FOUND',
      `Error: start attempt ${startAttemptId} not found for this agent.`,
    );
    await expectRefused(
      runs.executeStart(w.deps, w.session, { startAttemptId: 'start_99' }),
      'NOT_FOUND',
      'Error: start attempt start_99 not found for this agent.',
    );
    expectUnchanged(before);
  });

  it('another session of the same agent key (a restarted agent) executes it', async () => {
    const { startAttemptId } = await runs.prepareStart(w.deps, w.session, { parentExecutionId: 'none', skipNotificationCheck: true });
    const restarted = await agentSession(w, 'restarted');
    const run = await runs.executeStart(w.deps, restarted, { startAttemptId });
    expect(run.sessionId).toBe(w.sessionId);
  });
});

describe('intake: the checklist, ordered by prerequisites; work starts on task 1', () => {
  it('limits: 1 to 100 tasks of action and expected_result only, each 1 to 1,000 characters; a note of at most 120', () => {
    const base = { runId: 'run_1', progress_checklist_outcome: 'Ready' };
    const message = (input: unknown) => {
      const parsed = runIntakeInput.safeParse(input);
      return parsed.success ? 'ok' : parsed.error.issues[0]?.message;
    };
    expect(message({ ...base, tasks: [] })).toBe('Error: invalid input: a checklist holds 1 to 100 tasks (got 0).');
    expect(message({ ...base, tasks: runTasks(101) })).toBe('Error: invalid input: a checklist holds 1 to 100 tasks (got 101).');
    expect(message({ ...base, tasks: runTasks(100) })).toBe('ok');
    expect(message({ ...base, tasks: runTasks(1) })).toBe('ok');
    expect(message({ ...base, tasks: [runTask('x'.repeat(1000), 'y'.repeat(1000))] })).toBe('ok');
    expect(message({ ...base, tasks: [runTask('x'.repeat(1001))] })).toBe(
      'Error: invalid input: `action` must be at most 1000 characters (got 1001).',
    );
    expect(message({ ...base, tasks: [runTask('x', '   ')] })).toBe('Error: invalid input: `expected_result` must be a non-empty string.');
    expect(message({ ...base, tasks: [{ ...runTask('x'), id: 1 }] })).toBe(
      'Error: invalid input: unknown task field `id`; a task is only `action` and `expected_result` (no ids, cursors, totals, statuses or result codes).',
    );
    expect(message({ ...base, tasks: runTasks(1), execution_note: 'n'.repeat(121) })).toBe(
      'Error: invalid input: `execution_note` must be at most 120 characters (got 121).',
    );
    expect(message({ ...base, tasks: runTasks(1), execution_note: 'n'.repeat(120) })).toBe('ok');
  });

  it('a ready list supplied by a caller is kept as written: same wording, same order, nothing dropped or added', async () => {
    const written = [
      runTask('Check the implemented requirement', "The caller's domain report contains the verified result"),
      runTask('Ünïcödé & <markup> "quoted" \'single\'', 'Stays exactly as written'),
      runTask('Same action', 'First result'),
      runTask('Same action', 'Second result'),
      ...runTasks(96, 'Item'),
    ];
    const parsed = runIntakeInput.parse({
      runId: 'run_1',
      tasks: written,
      progress_checklist_outcome: 'One hundred ordered tasks are ready',
    });
    const run = await startRun(w);
    await runs.name(w.deps, w.session, { runId: run.id, name: 'Caller list' });
    const view = await runs.intake(w.deps, w.session, { ...parsed, runId: run.id });
    expect(view.tasks).toEqual(written);
    expect(view.total).toBe(100);
    expect(view.moves).toEqual([]);
    expect(view.blocks.work.tasks.map((t) => t.title)).toEqual(written.map((t) => t.action));
    expect(view.current).toEqual({ label: 'Task 1/100', action: written[0]?.action, expected_result: written[0]?.expected_result });
  });

  it('orders by `needs`, shows each move and its dependency, and attaches remarks to the tasks they constrain', async () => {
    const run = await startRun(w);
    await runs.name(w.deps, w.session, { runId: run.id, name: 'Deploy' });
    const view = await runs.intake(w.deps, w.session, {
      runId: run.id,
      tasks: [runTask('Deploy the service'), runTask('Write the changelog'), runTask('Build the image')],
      needs: [{ task: 1, needs: [3] }],
      remarks: [{ text: 'Never deploy on a Friday', tasks: [1] }],
      progress_checklist_outcome: 'Three tasks, reordered',
      execution_note: 'Reordered by dependency',
    });
    expect(view.tasks.map((t) => t.action)).toEqual(['Write the changelog', 'Build the image', 'Deploy the service']);
    expect(view.moves).toEqual([{ task: 1, from: 1, to: 3, because: 'task 1 needs the result of task 3 (Build the image)' }]);
    expect(view.remarks).toEqual([{ text: 'Never deploy on a Friday', tasks: [3] }]);
    expect(view.blocks.work.tasks.map((t) => t.remarks)).toEqual([[], [], ['Never deploy on a Friday']]);
    expect(view).toMatchObject({ status: 'running', cursor: 1, name: 'Deploy', executionNote: 'Reordered by dependency', version: 3 });
    expect(view.blocks.checklist.synopsis).toBe('Three tasks, reordered');
    expect(await stepsOf(run.id)).toEqual([
      { seq: 1, label: 'Name', kind: 'name', task: null, evidence: null, outcome: 'Deploy', at: '2025-01-01T00:00:00.000Z' },
      {
        seq: 2,
        label: 'Checklist intake',
        kind: 'intake',
        task: null,
        evidence: null,
        outcome: 'Three tasks, reordered',
        at: '2025-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('a refused checklist (a cycle) records nothing: the run stays in intake', async () => {
    await addChannel(w);
    const run = await startRun(w);
    await runs.name(w.deps, w.session, { runId: run.id, name: 'Cycle' });
    const before = state();
    await expectRefused(
      runs.intake(w.deps, w.session, {
        runId: run.id,
        tasks: runTasks(3),
        needs: [
          { task: 2, needs: [3] },
          { task: 3, needs: [2] },
        ],
        progress_checklist_outcome: 'x',
      }),
      'INVALID_CHECKLIST',
      'Error: invalid checklist: tasks 2 ("Task 2") and 3 ("Task 3") each need the other\'s result; no order satisfies both.',
    );
    expectUnchanged(before);
    expect(outbox()).toEqual([]);
  });

  it('takes the checklist once; afterwards it is revised, not submitted again', async () => {
    const run = await startedRun(w);
    const before = state();
    await expectRefused(
      runs.intake(w.deps, w.session, { runId: run.id, tasks: runTasks(1), progress_checklist_outcome: 'x' }),
      'CONFLICT',
      `Error: run ${run.id} already has its checklist; revise it instead.`,
    );
    expectUnchanged(before);
  });
});

describe('step: a schema-valid acknowledgement advances the cursor exactly once', () => {
  it('advances, records the evidence in the history, and shows the outcome', async () => {
    const run = await startedRun(w);
    w.clock.advance(45_000);
    const view = await step(run.id, 1);
    expect(view).toMatchObject({ cursor: 2, version: 4, current: { label: 'Task 2/3', action: 'Task 2' } });
    expect(view.blocks.work).toMatchObject({ label: 'Task 2/3', done: 1, inProgress: 2, synopsis: 'Task 1 verified' });
    expect(view.blocks.work.tasks[0]).toMatchObject({ state: 'done', outcome: 'Task 1 verified', timeMs: 45_000 });
    expect((await stepsOf(run.id)).at(-1)).toEqual({
      seq: 3,
      label: 'Task 1/3',
      kind: 'step',
      task: 1,
      evidence: 'Checked task 1',
      outcome: 'Task 1 verified',
      at: '2025-01-01T00:00:45.000Z',
    });
    expect(w.events.published.at(-1)).toMatchObject({ topic: runTopic(run.id), id: '4' });
  });

  it('a replayed attempt publishes no second live event', async () => {
    const run = await startedRun(w);
    const attemptId = run.attemptId ?? '';
    await step(run.id, 1, { attemptId });
    const published = w.events.published.length;
    await step(run.id, 1, { attemptId });
    expect(w.events.published.length).toBe(published);
  });

  it('a run started with skipNotificationCheck runs without notifications, even when a channel exists', async () => {
    await addChannel(w);
    const run = await startedRun(w, {}, { skipNotificationCheck: true });
    for (const n of [1, 2, 3]) await step(run.id, n);
    expect(outbox()).toEqual([]);
  });

  it('the run issues each step attempt; a retried attempt answers without advancing again, and records one step', async () => {
    const run = await startedRun(w);
    const attempt1 = run.attemptId ?? '';
    // Hex digits and dashes only, as Moira's clients read an attempt id back from an answer.
    expect(attempt1).toMatch(/^[a-f0-9-]+$/);
    expect(run.id).toMatch(/^[a-f0-9-]+$/);
    const first = await step(run.id, 1, { attemptId: attempt1 });
    expect(first.attemptId).not.toBe(attempt1);
    const again = await step(run.id, 1, { attemptId: attempt1 });
    expect(again).toEqual(first);
    // A retry of an earlier attempt after the run moved on does not advance either: it answers what it answered then.
    await step(run.id, 2, { attemptId: first.attemptId ?? '' });
    const before = state();
    const late = await step(run.id, 1, { attemptId: attempt1 });
    expect(late).toEqual(first);
    expect(late.cursor).toBe(2);
    expectUnchanged(before);
    expect((await stepsOf(run.id)).filter((s) => s.kind === 'step').map((s) => s.task)).toEqual([1, 2]);
  });

  it('without the task guard, the attempt alone keeps the step exactly once; an attempt the run never issued is refused', async () => {
    const run = await startedRun(w);
    const attemptId = run.attemptId ?? '';
    const ack = {
      runId: run.id,
      attemptId,
      evidence: 'The focused test command passed.',
      progress_execution_outcome: 'The affected test suite passed',
    };
    const first = await runs.step(w.deps, w.session, ack);
    const retried = await runs.step(w.deps, w.session, ack);
    expect([first.cursor, retried.cursor]).toEqual([2, 2]);
    const before = state();
    await expectRefused(
      runs.step(w.deps, w.session, { ...ack, attemptId: 'att_made_up' }),
      'STALE_STEP',
      `Error: stale attempt: att_made_up is not the current step attempt of run ${run.id}; the current one is ${first.attemptId}. Read the run and answer its current step.`,
    );
    expectUnchanged(before);
  });

  it('refuses a stale or future task number with the exact text, recording nothing', async () => {
    const run = await startedRun(w);
    await step(run.id, 1);
    const before = state();
    const stale = await expectRefused(
      step(run.id, 1),
      'STALE_STEP',
      'Error: stale step: task 1/3 was already acknowledged; the current task is 2/3.',
    );
    expect(stale.details).toEqual({ cursor: 2, total: 3 });
    await expectRefused(step(run.id, 3), 'STALE_STEP', 'Error: stale step: task 3/3 is not current; the current task is 2/3.');
    expectUnchanged(before);
  });

  it('a step before the checklist is refused', async () => {
    const run = await startRun(w);
    await expectRefused(step(run.id, 1), 'CONFLICT', `Error: run ${run.id} has no checklist yet; submit it first.`);
  });

  it('exhausting the list completes the run with the empty terminal output; no more steps', async () => {
    const run = await startedRun(w);
    for (const n of [1, 2, 3]) await step(run.id, n);
    const done = await runs.get(w.deps, w.session, { runId: run.id });
    expect(done).toMatchObject({ status: 'completed', cursor: 4, current: null, output: {} });
    expect(done.blocks.work).toMatchObject({ label: 'Done 3/3', done: 3, inProgress: null });
    expect(done.blocks.work.tasks.map((t) => t.state)).toEqual(['done', 'done', 'done']);
    await expectRefused(step(run.id, 4), 'CONFLICT', `Error: run ${run.id} is completed; it takes no more steps.`);
  });

  it('the step contract is strict: evidence and outcome are 1 to 500 characters, the task a position', () => {
    const message = (input: unknown) => {
      const parsed = runStepInput.safeParse(input);
      return parsed.success ? 'ok' : parsed.error.issues[0]?.message;
    };
    const ok = { runId: 'run_1', attemptId: 'att_1', evidence: 'e', progress_execution_outcome: 'o' };
    expect(message(ok)).toBe('ok');
    expect(message({ ...ok, task: 1 })).toBe('ok');
    const { attemptId: _, ...withoutAttempt } = ok;
    expect(message(withoutAttempt)).toBe('Error: invalid input: `attemptId` must be the step attempt id of the run (its `attemptId`).');
    expect(message({ ...ok, evidence: 'e'.repeat(501) })).toBe(
      'Error: invalid input: `evidence` must be at most 500 characters (got 501).',
    );
    expect(message({ ...ok, progress_execution_outcome: '' })).toBe(
      'Error: invalid input: `progress_execution_outcome` must be a non-empty string.',
    );
    expect(message({ ...ok, task: 0 })).toBe('Error: invalid input: `task` must be a task position (a whole number from 1).');
    expect(message({ ...ok, cursor: 2 })).toBe('Error: invalid input: unknown field `cursor`.');
    expect(Object.keys(runStepInput.shape).sort()).toEqual(['attemptId', 'evidence', 'progress_execution_outcome', 'runId', 'task']);
  });
});

describe('blockers: the cursor stays on the current task', () => {
  it('records a blocker for display without moving the cursor; the next step clears it', async () => {
    const run = await startedRun(w);
    await step(run.id, 1);
    const blocked = await runs.reportBlocker(w.deps, w.session, { runId: run.id, blocker: 'The CI runner is down' });
    expect(blocked).toMatchObject({ cursor: 2, blocker: 'The CI runner is down', current: { label: 'Task 2/3' } });
    expect(blocked.blocks.work.tasks.map((t) => t.state)).toEqual(['done', 'in_progress', 'pending']);
    expect((await stepsOf(run.id)).at(-1)).toMatchObject({ kind: 'blocker', label: 'Blocker', task: 2, outcome: 'The CI runner is down' });
    const cleared = await runs.reportBlocker(w.deps, w.session, { runId: run.id, blocker: null });
    expect(cleared).toMatchObject({ cursor: 2, blocker: null });
    await runs.reportBlocker(w.deps, w.session, { runId: run.id, blocker: 'Again' });
    expect(await step(run.id, 2)).toMatchObject({ cursor: 3, blocker: null });
  });

  it('a run that is not running has no task to be blocked', async () => {
    const run = await startRun(w);
    await expectRefused(
      runs.reportBlocker(w.deps, w.session, { runId: run.id, blocker: 'x' }),
      'CONFLICT',
      `Error: run ${run.id} is not running; there is no task to be blocked.`,
    );
  });
});

describe('revise: a deliberate correction of the checklist', () => {
  it('replaces the checklist, continues from resume_from_task and records a Revise checklist step', async () => {
    const run = await startedRun(w);
    await step(run.id, 1);
    await runs.teleport(w.deps, w.session, { runId: run.id });
    await runs.name(w.deps, w.session, { runId: run.id, name: 'Ship after the repair' });
    const input = runReviseInput.parse({
      runId: run.id,
      tasks: [
        runTask('Task 1'),
        runTask('Repair the configuration the first task revealed as wrong', 'The service starts'),
        runTask('Task 3'),
      ],
      resume_from_task: 2,
      progress_checklist_outcome: 'The corrected list contains the preserved prefix and two remaining tasks',
      progress_execution_outcome: 'The first task remains verified',
    });
    const view = await runs.revise(w.deps, w.session, input);
    expect(view).toMatchObject({ name: 'Ship after the repair', cursor: 2, total: 3, revision: 1, current: { label: 'Task 2/3' } });
    expect(view.blocks.checklist.synopsis).toBe('The corrected list contains the preserved prefix and two remaining tasks');
    expect(view.blocks.work.tasks.map((t) => t.outcome)).toEqual(['Task 1 verified', 'Pending', 'Pending']);
    expect((await stepsOf(run.id)).at(-1)).toMatchObject({ kind: 'revise', label: 'Revise checklist', task: 2 });
  });

  it('a refused revision records nothing', async () => {
    const run = await startedRun(w);
    await step(run.id, 1);
    const before = state();
    await expectRefused(
      runs.revise(w.deps, w.session, {
        runId: run.id,
        tasks: [runTask('Task 1 changed'), runTask('Task 2')],
        resume_from_task: 2,
        progress_checklist_outcome: 'x',
        progress_execution_outcome: 'y',
      }),
      'INVALID_REVISION',
      'Error: invalid revision: task 1 was already executed and must stay unchanged at position 1.',
    );
    expectUnchanged(before);
  });
});

describe('notifications: checklist ready and all tasks done, once per channel', () => {
  // As Moira writes it: the linked heading, the title, the progress line, then the checklist.
  const readyText = (runId: string) =>
    [
      `[Todo List · Ship the release](${PUBLIC_URL}/runs/${runId})`,
      'Checklist ready',
      '📝 0/3',
      '▶ 1. Task 1',
      '○ 2. Task 2',
      '○ 3. Task 3',
    ].join('\n');

  it('queues "Checklist ready" on intake for each channel: ▶ on the first task, ○ on the rest, the run link', async () => {
    const ops = await addChannel(w, 'ops');
    const dev = await addChannel(w, 'dev');
    const run = await startedRun(w);
    const messages = outbox();
    expect(messages).toHaveLength(2);
    expect(messages.map((m) => [m.channelId, m.url, m.kind, m.idempotencyKey, m.attempts, m.deliveredAt])).toEqual([
      [ops.id, 'https://hooks.example.com/ops', 'checklist_ready', `${run.id}:checklist_ready:${ops.id}`, 0, null],
      [dev.id, 'https://hooks.example.com/dev', 'checklist_ready', `${run.id}:checklist_ready:${dev.id}`, 0, null],
    ]);
    expect(messages[0]?.payload).toEqual({
      kind: 'checklist_ready',
      flow: 'Todo List',
      title: 'Checklist ready',
      heading: 'Todo List · Ship the release',
      progress: '📝 0/3',
      run: { id: run.id, name: 'Ship the release', url: `${PUBLIC_URL}/runs/${run.id}` },
      checklist: [
        { position: 1, mark: '▶', action: 'Task 1' },
        { position: 2, mark: '○', action: 'Task 2' },
        { position: 3, mark: '○', action: 'Task 3' },
      ],
      moves: [],
      text: readyText(run.id),
      idempotencyKey: `${run.id}:checklist_ready:${ops.id}`,
    });
  });

  it('queues "All tasks done" once when the last task is acknowledged, every task ✓; nothing in between', async () => {
    await addChannel(w, 'ops');
    const run = await startedRun(w);
    await step(run.id, 1);
    await runs.reportBlocker(w.deps, w.session, { runId: run.id, blocker: 'wait' });
    await step(run.id, 2);
    expect(outbox()).toHaveLength(1);
    await step(run.id, 3);
    const done = outbox().filter((m) => m.kind === 'all_tasks_done');
    expect(done).toHaveLength(1);
    expect(done[0]?.payload.text).toBe(
      [
        `[Todo List · Ship the release](${PUBLIC_URL}/runs/${run.id})`,
        'All tasks done',
        '📝 3/3',
        '✓ 1. Task 1',
        '✓ 2. Task 2',
        '✓ 3. Task 3',
      ].join('\n'),
    );
    const notes = await channels.runNotifications(w.deps, w.viewer, { runId: run.id });
    expect(notes.notifications.map((n) => [n.kind, n.delivered, n.attempts])).toEqual([
      ['checklist_ready', false, 0],
      ['all_tasks_done', false, 0],
    ]);
  });

  it('after a revision that completes the run, "All tasks done" lists the revised checklist', async () => {
    await addChannel(w, 'ops');
    const run = await startedRun(w);
    await step(run.id, 1);
    await runs.revise(w.deps, w.session, {
      runId: run.id,
      tasks: [runTask('Task 1'), runTask('Task 2 instead')],
      resume_from_task: 3,
      progress_checklist_outcome: 'The rest became obsolete',
      progress_execution_outcome: 'Done early',
    });
    const done = outbox().filter((m) => m.kind === 'all_tasks_done');
    expect(done).toHaveLength(1);
    expect(done[0]?.payload.checklist).toEqual([
      { position: 1, mark: '✓', action: 'Task 1' },
      { position: 2, mark: '✓', action: 'Task 2 instead' },
    ]);
  });

  it('a run started without a channel queues nothing', async () => {
    const run = await startedRun(w);
    for (const n of [1, 2, 3]) await step(run.id, n);
    expect(outbox()).toEqual([]);
  });

  it('child runs notify like top-level runs; channels of another workspace are not used', async () => {
    const other = await workspaces.createWorkspace(w.deps, w.admin, { name: 'other' });
    await channels.create(w.deps, new FakeSender(), await resolveActor(w.deps, other.adminKey), {
      name: 'theirs',
      url: 'https://hooks.example.com/theirs',
    });
    const ours = await addChannel(w, 'ours');
    const parent = await startedRun(w);
    const child = await startedRun(w, { name: 'Child work', tasks: runTasks(1) }, { parentExecutionId: parent.id });
    await step(child.id, 1);
    expect(outbox().map((m) => [m.runId, m.kind, m.channelId])).toEqual([
      [parent.id, 'checklist_ready', ours.id],
      [child.id, 'checklist_ready', ours.id],
      [child.id, 'all_tasks_done', ours.id],
    ]);
  });
});

describe('deliverDue: at-least-once delivery with exponential backoff', () => {
  const policy = { baseMs: 1_000, maxMs: 8_000, maxAgeMs: 86_400_000, batch: 50 };

  it('posts each due message with its idempotency key and marks it delivered', async () => {
    await addChannel(w, 'ops');
    const run = await startedRun(w);
    const sender = new FakeSender();
    w.clock.advance(10);
    expect(await channels.deliverDue(w.deps, sender, policy)).toEqual({ attempted: 1, delivered: 1 });
    expect(sender.calls).toEqual([
      { url: 'https://hooks.example.com/ops', body: outbox()[0]?.payload, idempotencyKey: `${run.id}:checklist_ready:ch_1` },
    ]);
    expect(outbox()[0]).toMatchObject({ deliveredAt: new Date('2025-01-01T00:00:00.010Z'), attempts: 1, lastError: null });
    expect(await channels.deliverDue(w.deps, sender, policy)).toEqual({ attempted: 0, delivered: 0 });
    expect((await channels.runNotifications(w.deps, w.admin, { runId: run.id })).notifications[0]).toMatchObject({ delivered: true });
  });

  it('a failure is retried later, with a doubling delay capped at the maximum, until the receiver accepts', async () => {
    await addChannel(w, 'ops');
    await startedRun(w);
    const sender = new FakeSender().answer('HTTP 500', 'HTTP 502', 'timeout', 'HTTP 503', 'HTTP 503', true);
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const failedAt = w.clock.now().getTime();
      expect(await channels.deliverDue(w.deps, sender, policy)).toEqual({ attempted: 1, delivered: 0 });
      const message = outbox()[0]!;
      expect(message.attempts).toBe(attempt);
      delays.push(message.nextAttemptAt.getTime() - failedAt);
      // Not due before its time.
      w.clock.set(new Date(message.nextAttemptAt.getTime() - 1));
      expect(await channels.deliverDue(w.deps, sender, policy)).toEqual({ attempted: 0, delivered: 0 });
      w.clock.advance(1);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 8_000]);
    expect(outbox()[0]?.lastError).toBe('HTTP 503');
    expect(await channels.deliverDue(w.deps, sender, policy)).toEqual({ attempted: 1, delivered: 1 });
    // Every try counts, the accepted one included; the last error is cleared.
    expect(outbox()[0]).toMatchObject({ attempts: 6, deliveredAt: w.clock.now(), lastError: null });
    expect(new Set(sender.calls.map((c) => c.idempotencyKey)).size).toBe(1);
  });

  it('takes at most a batch per pass, oldest first; a failure does not hold up the others', async () => {
    await addChannel(w, 'a');
    await addChannel(w, 'b');
    await addChannel(w, 'c');
    await startedRun(w);
    const sender = new FakeSender().answer('down', true, true, true);
    expect(await channels.deliverDue(w.deps, sender, { ...policy, batch: 2 })).toEqual({ attempted: 2, delivered: 1 });
    expect(sender.calls.map((c) => c.url)).toEqual(['https://hooks.example.com/a', 'https://hooks.example.com/b']);
    expect(await channels.deliverDue(w.deps, sender, { ...policy, batch: 2 })).toEqual({ attempted: 1, delivered: 1 });
    expect(sender.calls.at(-1)?.url).toBe('https://hooks.example.com/c');
    w.clock.advance(1_000);
    expect(await channels.deliverDue(w.deps, sender, { ...policy, batch: 2 })).toEqual({ attempted: 1, delivered: 1 });
    expect(outbox().every((m) => m.deliveredAt !== null)).toBe(true);
  });
});

describe('a receiver that does not answer in time is backed off', () => {
  const policy = { baseMs: 1_000, maxMs: 8_000, maxAgeMs: 86_400_000, batch: 50, afterTimeoutMs: 20_000 };

  it('after a timeout the next attempt waits at least afterTimeoutMs; after an ordinary failure, the backoff; each attempt is reported', async () => {
    await addChannel(w, 'ops');
    await startedRun(w);
    const sender = new FakeSender().timeout().answer('HTTP 500', true);
    const heard: { attempts: number; timedOut: boolean; delayMs: number | null }[] = [];
    const lane = async () => {
      const due = await w.deps.store.outbox.due(w.clock.now(), 10);
      await channels.deliverLane(w.deps, sender, policy, due, undefined, (_m, a) =>
        heard.push({ attempts: a.attempts, timedOut: a.timedOut, delayMs: a.delayMs }),
      );
    };
    await lane();
    expect(outbox()[0]?.nextAttemptAt.getTime()).toBe(w.clock.now().getTime() + 20_000);
    w.clock.advance(20_000);
    await lane();
    expect(outbox()[0]?.nextAttemptAt.getTime()).toBe(w.clock.now().getTime() + 2_000);
    w.clock.advance(2_000);
    await lane();
    expect(heard).toEqual([
      { attempts: 1, timedOut: true, delayMs: 20_000 },
      { attempts: 2, timedOut: false, delayMs: 2_000 },
      { attempts: 3, timedOut: false, delayMs: null },
    ]);
    expect(outbox()[0]).toMatchObject({ attempts: 3, lastError: null, deliveredAt: w.clock.now() });
  });
});

describe('fairLanes: the lanes shared across workspaces', () => {
  const message = (channelId: string, workspaceId: string, order: number) =>
    outboxRecord(`msg_${channelId}_${order}`, { channelId, workspaceId, nextAttemptAt: new Date(order) });

  it('no workspace past its share (the lanes it runs counted); the workspaces take turns, so the one running fewest goes first', () => {
    const due = [
      ...['a1', 'a2', 'a3', 'a4', 'a5'].map((c, i) => message(c, 'ws_a', i)),
      message('a1', 'ws_a', 5),
      message('b1', 'ws_b', 6),
      message('b2', 'ws_b', 7),
      message('c1', 'ws_c', 8),
    ];
    const share = { perWorkspace: 4, running: new Map([['ws_a', 2]]) };
    const lanes = channels.fairLanes(due, share, 16);
    expect([...lanes.keys()]).toEqual(['b1', 'c1', 'b2', 'a1', 'a2']);
    // A lane keeps its channel's messages in order.
    expect(lanes.get('a1')?.map((m) => m.id)).toEqual(['msg_a1_0', 'msg_a1_5']);
    expect([...channels.fairLanes(due, share, 2).keys()]).toEqual(['b1', 'c1']);
    expect(channels.workspacesAtShare({ perWorkspace: 2, running: share.running })).toEqual(['ws_a']);
    expect([...channels.fairLanes(due, { perWorkspace: 2, running: share.running }, 16).keys()]).toEqual(['b1', 'c1', 'b2']);
  });
});

describe('deliverLane: stopping hands back what was claimed but not tried', () => {
  const policy = { baseMs: 1_000, maxMs: 8_000, maxAgeMs: 86_400_000, batch: 50 };

  it('a lane that starts after the stop signal sends nothing and makes its claimed message due now', async () => {
    await addChannel(w, 'ops');
    await startedRun(w);
    const [message] = await w.deps.store.outbox.due(w.clock.now(), 10);
    // As a PostgreSQL replica's claim does: the message is leased, its next attempt moved a minute ahead.
    await w.deps.store.outbox.markFailed(message!.id, 0, new Date(w.clock.now().getTime() + 60_000), 'leased');
    const stopped = { aborted: true, addEventListener: () => undefined, removeEventListener: () => undefined };
    const sender = new FakeSender();
    expect(await channels.deliverLane(w.deps, sender, policy, [message!], stopped)).toBe(0);
    expect(sender.calls).toEqual([]);
    expect(outbox()[0]).toMatchObject({ nextAttemptAt: w.clock.now(), attempts: 0, deliveredAt: null });
    expect(await channels.deliverDue(w.deps, sender, policy)).toEqual({ attempted: 1, delivered: 1 });
  });
});

describe('delivery gives up after the maximum age, per channel, with jitter; an admin retries', () => {
  const policy = { baseMs: 1_000, maxMs: 8_000, maxAgeMs: 10_000, batch: 50 };

  it('a message whose next attempt would fall past its maximum age is dead: no more attempts until an admin retries it', async () => {
    await addChannel(w, 'ops');
    await startedRun(w);
    const sender = new FakeSender();
    sender.fallback = { ok: false, error: 'HTTP 503' };
    // Attempts at 0, 1 s, 3 s, 7 s; the next would be at 15 s, past 10 s: dead after the fourth.
    for (let i = 0; i < 4; i++) {
      await channels.deliverDue(w.deps, sender, policy);
      w.clock.set(outbox()[0]!.nextAttemptAt);
    }
    expect(outbox()[0]).toMatchObject({ attempts: 4, deadAt: expect.any(Date), lastError: 'HTTP 503', deliveredAt: null });
    expect(channels.outboxState(outbox()[0]!)).toBe('dead');
    w.clock.advance(60_000);
    expect(await channels.deliverDue(w.deps, sender, policy)).toEqual({ attempted: 0, delivered: 0 });
    expect(sender.calls).toHaveLength(4);

    // Only an admin retries it; it is due at once, with a fresh maximum age.
    const id = outbox()[0]!.id;
    await expectRefused(
      channels.retryDelivery(w.deps, w.session, { id }),
      'FORBIDDEN',
      'Error: forbidden: this call needs an admin key (this key is agent).',
    );
    await expectRefused(
      channels.retryDelivery(w.deps, w.admin, { id: 'msg_nope' }),
      'NOT_FOUND',
      'Error: notification msg_nope not found.',
    );
    const retried = await channels.retryDelivery(w.deps, w.admin, { id });
    expect(retried).toMatchObject({
      id,
      state: 'retrying',
      deadAt: null,
      nextAttemptAt: w.clock.now().toISOString(),
      lastError: 'HTTP 503',
    });
    sender.fallback = { ok: true };
    expect(await channels.deliverDue(w.deps, sender, policy)).toEqual({ attempted: 1, delivered: 1 });
    expect(outbox()[0]).toMatchObject({ attempts: 5, deadAt: null, lastError: null });
    await expectRefused(channels.retryDelivery(w.deps, w.admin, { id }), 'CONFLICT', `Error: notification ${id} was already delivered.`);
  });

  it('retry delays are stretched by a random 0–50 %', async () => {
    expect(channels.jitteredDelay(1, { ...policy, jitter: () => 0 })).toBe(1_000);
    expect(channels.jitteredDelay(1, { ...policy, jitter: () => 0.999 })).toBe(1_500);
    expect(channels.jitteredDelay(3, { ...policy, jitter: () => 0.5 })).toBe(5_000);
    expect(channels.jitteredDelay(9, { ...policy, jitter: () => 0.5 })).toBe(10_000);
  });

  it("a failure stops its channel's lane and defers the channel's other messages; other channels go on", async () => {
    const ops = await addChannel(w, 'ops');
    await addChannel(w, 'dev');
    const run = await startedRun(w);
    await step(run.id, 1);
    await step(run.id, 2);
    await step(run.id, 3);
    const sender = new FakeSender();
    sender.answer('HTTP 500'); // ops' checklist_ready (first in line) fails
    expect(await channels.deliverDue(w.deps, sender, policy)).toEqual({ attempted: 4, delivered: 2 });
    const opsMessages = outbox().filter((m) => m.channelId === ops.id);
    expect(sender.calls.filter((c) => c.url.endsWith('/ops'))).toHaveLength(1);
    expect(opsMessages.map((m) => [m.kind, m.attempts, m.deliveredAt])).toEqual([
      ['checklist_ready', 1, null],
      ['all_tasks_done', 0, null],
    ]);
    // Both wait for the failed one's retry time; dev's two were delivered in order.
    expect(opsMessages.map((m) => m.nextAttemptAt.getTime())).toEqual([
      opsMessages[0]!.nextAttemptAt.getTime(),
      opsMessages[0]!.nextAttemptAt.getTime(),
    ]);
    expect(sender.calls.filter((c) => c.url.endsWith('/dev')).map((c) => c.idempotencyKey.split(':')[1])).toEqual([
      'checklist_ready',
      'all_tasks_done',
    ]);
  });

  it('a run notification shows its last error to an admin only', async () => {
    await addChannel(w, 'ops');
    const run = await startedRun(w);
    await channels.deliverDue(w.deps, new FakeSender().answer('connection refused'), policy);
    expect((await channels.runNotifications(w.deps, w.admin, { runId: run.id })).notifications[0]).toMatchObject({
      lastError: 'connection refused',
    });
    expect((await channels.runNotifications(w.deps, w.session, { runId: run.id })).notifications[0]).toMatchObject({
      attempts: 1,
      lastError: null,
    });
  });

  it('a channel whose URL may not be reached is refused with the reason and nothing is recorded', async () => {
    const sender = new FakeSender();
    sender.refusals.set('http://127.0.0.1/hook', 'must point to a public address: 127.0.0.1 is a loopback address');
    await expectRefused(
      channels.create(w.deps, sender, w.admin, { name: 'internal', url: 'http://127.0.0.1/hook' }),
      'INVALID_INPUT',
      'Error: invalid input: `url` must point to a public address: 127.0.0.1 is a loopback address (an operator can allow internal receivers with AGENT_TASKS_CHANNEL_ALLOWLIST).',
    );
    expect(w.store.snapshot().channels.size).toBe(0);
  });
});

describe('deleting a channel', () => {
  it('drops its undelivered messages and keeps the delivered ones and those of other channels', async () => {
    const ops = await addChannel(w, 'ops');
    const dev = await addChannel(w, 'dev');
    const run = await startedRun(w);
    await channels.deliverDue(w.deps, new FakeSender().answer(true, 'down'), {
      baseMs: 1_000,
      maxMs: 8_000,
      maxAgeMs: 86_400_000,
      batch: 50,
    });
    await step(run.id, 1);
    await step(run.id, 2);
    await step(run.id, 3);
    await channels.deleteChannel(w.deps, w.admin, { id: ops.id });
    expect(outbox().map((m) => [m.kind, m.channelId, m.deliveredAt !== null])).toEqual([
      ['checklist_ready', ops.id, true],
      ['checklist_ready', dev.id, false],
      ['all_tasks_done', dev.id, false],
    ]);
  });
});

describe('the run belongs to the agent that started it', () => {
  it("a session stepping its own run reads its session once (the owner is the caller); another session's, both", async () => {
    const run = await startedRun(w);
    const attemptId = await currentAttempt(run.id);
    let reads = 0;
    for (let i = 0; i < 4; i++) w.store.once('sessions.get', async () => void reads++);
    await step(run.id, 1, { attemptId });
    expect(reads).toBe(1);
    const other = await otherAgentSession(w, 'intruder');
    const before = reads;
    await expectRefused(step(run.id, 2, { actor: other }), 'FORBIDDEN', `Error: forbidden: run ${run.id} belongs to another agent.`);
    expect(reads - before).toBe(2);
  });

  it('another agent cannot step, revise, block or submit its checklist; nothing is recorded', async () => {
    const run = await startedRun(w);
    const intakeRun = await startRun(w);
    const other = await otherAgentSession(w, 'intruder');
    const forbidden = (id: string) => `Error: forbidden: run ${id} belongs to another agent.`;
    const before = state();
    await expectRefused(step(run.id, 1, { actor: other }), 'FORBIDDEN', forbidden(run.id));
    await expectRefused(runs.reportBlocker(w.deps, other, { runId: run.id, blocker: 'x' }), 'FORBIDDEN', forbidden(run.id));
    await expectRefused(
      runs.revise(w.deps, other, {
        runId: run.id,
        tasks: runTasks(1),
        resume_from_task: 1,
        progress_checklist_outcome: 'x',
        progress_execution_outcome: 'y',
      }),
      'FORBIDDEN',
      forbidden(run.id),
    );
    await expectRefused(
      runs.intake(w.deps, other, { runId: intakeRun.id, tasks: runTasks(1), progress_checklist_outcome: 'x' }),
      'FORBIDDEN',
      forbidden(intakeRun.id),
    );
    await expectRefused(
      step(run.id, 1, { actor: w.agent }),
      'NO_OWNING_SESSION',
      'Error: a checklist run requires an owning agent session before anything is written.',
    );
    expectUnchanged(before);
  });

  it("the key's own sessions drive it (a restarted agent); a subagent drives its own tree's runs, never its parent's", async () => {
    const run = await startedRun(w);
    const restarted = await agentSession(w, 'restarted');
    expect((await step(run.id, 1, { actor: restarted })).cursor).toBe(2);
    const sub = await agentSession(w, 'sub', w.session);
    const before = state();
    await expectRefused(step(run.id, 2, { actor: sub }), 'FORBIDDEN', `Error: forbidden: run ${run.id} belongs to another agent.`);
    expectUnchanged(before);
    const subRun = await startedRun(w, {}, { actor: sub });
    expect((await step(subRun.id, 1, { actor: sub })).cursor).toBe(2);
    expect((await step(subRun.id, 2, { actor: w.session })).cursor).toBe(3);
  });

  it('the workspace may read it (viewer included); another workspace cannot see it', async () => {
    const run = await startedRun(w);
    expect((await runs.get(w.deps, w.viewer, { runId: run.id })).id).toBe(run.id);
    expect((await runs.list(w.deps, w.viewer, { sessionId: w.sessionId })).runs.map((r) => r.id)).toEqual([run.id]);
    const other = await workspaces.createWorkspace(w.deps, w.admin, { name: 'other' });
    const stranger = await resolveActor(w.deps, other.adminKey);
    await expectRefused(runs.get(w.deps, stranger, { runId: run.id }), 'NOT_FOUND', `Error: run ${run.id} not found.`);
    // The run page link is the capability: it needs no key.
    expect((await runs.getByLink(w.deps, run.id))?.id).toBe(run.id);
    expect(await runs.getByLink(w.deps, 'run_nope')).toBeNull();
  });
});

describe('concurrent changes', () => {
  it('a lost version race is retried; a run that keeps changing is refused', async () => {
    const run = await startedRun(w);
    // A rival write bumps the version just before ours lands (`times` attempts in a row).
    const rival = (times: number) => {
      let left = times;
      const hook = async (repos: Parameters<Parameters<typeof w.store.once>[1]>[0]) => {
        const current = (await repos.runs.get(w.workspaceId, run.id))!;
        const rivalStep = { runId: run.id, seq: current.version, kind: 'note' as const, label: 'Rival', task: null, attemptId: null };
        await repos.runs.save({ ...current, version: current.version + 1 }, current.version, {
          ...rivalStep,
          evidence: null,
          outcome: null,
          at: new Date(),
        });
        if (--left > 0) w.store.once('runs.save', hook);
      };
      w.store.once('runs.save', hook);
    };
    rival(1);
    const retried = await step(run.id, 1);
    expect(retried).toMatchObject({ cursor: 2, version: 4 });
    expect(w.store.rollbacks).toBeGreaterThan(0);
    rival(5);
    const before = state();
    await expectRefused(step(run.id, 2), 'CONFLICT', 'Error: the run kept changing under concurrent calls; read it and try again.');
    expectUnchanged(before);
  });
});
