// Black-box tests of checklist runs (seed 002) over HTTP: start, intake and ordering, steps, revision, limits, tools.
import type { ChecklistEntry } from '@agent-tasks/schema';
import { createClient, openSessionClient, refusalOf, runTools } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Session,
  acknowledge,
  adminClient,
  keyClient,
  nameAndIntake,
  refused,
  sessionClient,
  startQuietRun,
  stepTask,
} from './support/fixtures.ts';
import { queryRows, rowCounts } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const tasks = (n: number) => Array.from({ length: n }, (_, i) => stepTask(i + 1));

async function runWith(s: Session, list: ChecklistEntry[], extra: Record<string, unknown> = {}) {
  const run = await startQuietRun(s);
  return nameAndIntake(s.client, {
    runId: run.id,
    name: 'Release 1.2',
    tasks: list,
    progress_checklist_outcome: `${list.length} tasks`,
    ...extra,
  });
}

describe('start', () => {
  it('prepares an attempt and executes it once; a second execute is refused', async () => {
    const s = await sessionClient(server);
    const { startAttemptId } = await s.client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
    const run = await s.client.runs.execute({ startAttemptId });
    expect(run).toMatchObject({ status: 'intake', flow: 'Todo List', sessionId: s.session.id, parentRunId: null, current: null });
    const again = await refused(s.client.runs.execute({ startAttemptId }));
    expect(again.message).toBe(`Error: start attempt ${startAttemptId} was already executed (run ${run.id}).`);
    expect((await s.client.runs.list()).runs.map((r) => r.id)).toEqual([run.id]);
  });

  it('refuses without a notification channel, naming skipNotificationCheck: true', async () => {
    const s = await sessionClient(server);
    const refusal = await refused(s.client.runs.prepare({ parentExecutionId: 'none' }));
    expect(refusal.message).toBe(
      'Error: Todo List notifies when the checklist is ready and when all tasks are done, but this workspace has no notification channel. Ask an admin to add one, or prepare the start again with skipNotificationCheck: true.',
    );
    expect(refusal.code).toBe('NO_CHANNEL');
  });

  it('a child run names its parent; an unknown parent is refused', async () => {
    const s = await sessionClient(server);
    const parent = await startQuietRun(s);
    const child = await startQuietRun(s, { parentExecutionId: parent.id });
    expect(child.parentRunId).toBe(parent.id);
    expect((await refused(s.client.runs.prepare({ parentExecutionId: 'run_nope', skipNotificationCheck: true }))).message).toBe(
      'Error: run run_nope not found.',
    );
  });

  it("naming a run as parent is acting on it: another agent's session is refused 403 as for a blocker, and nothing is recorded", async () => {
    const owner = await sessionClient(server, 'owner');
    const parent = await runWith(owner, tasks(2));
    const other = await sessionClient(server, 'another agent');
    const before = await rowCounts(server);
    const named = await refused(other.client.runs.prepare({ parentExecutionId: parent.id, skipNotificationCheck: true }));
    expect(named.message).toBe(`Error: forbidden: run ${parent.id} belongs to another agent.`);
    expect(named.code).toBe('FORBIDDEN');
    expect(await rowCounts(server)).toEqual(before);
    // The same answer as acting on the run.
    const blocker = await refused(other.client.runs.reportBlocker({ runId: parent.id, blocker: 'Not mine' }));
    expect({ message: blocker.message, code: blocker.code }).toEqual({ message: named.message, code: named.code });
    // The owner's run gained nothing: no child, no step, no success connection.
    const after = await owner.client.runs.get({ runId: parent.id });
    expect(after).toMatchObject({ version: parent.version, connections: [] });
    expect((await owner.client.runs.list()).runs.filter((r) => r.parentRunId === parent.id)).toEqual([]);
  });

  it('who may name a run as parent is who may act on it, for each kind of caller', async () => {
    const agent = await keyClient(server, 'agent');
    const owner = await openSessionClient(agent, { title: 'owner' });
    const parent = await runWith(owner, tasks(2));
    const callers = {
      owner: owner.client,
      'a sibling session of the same key': (await openSessionClient(agent, { title: 'sibling' })).client,
      'a subagent of the owner': (await openSessionClient(owner.client, { title: 'subagent' })).client,
      "another agent's session": (await sessionClient(server, 'another agent')).client,
    };
    const answer = (call: Promise<unknown>) =>
      call.then(
        () => 'accepted',
        (error: unknown) => refusalOf(error).message,
      );
    for (const [who, client] of Object.entries(callers)) {
      const acts = await answer(client.runs.reportBlocker({ runId: parent.id, blocker: null }));
      const names = await answer(client.runs.prepare({ parentExecutionId: parent.id, skipNotificationCheck: true }));
      expect(names, who).toBe(acts);
    }
  });

  it('needs a session token', async () => {
    const agent = await keyClient(server, 'agent');
    expect((await refused(agent.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true }))).message).toBe(
      'Error: a checklist run requires an owning agent session before anything is written.',
    );
  });
});

describe('intake', () => {
  it('records the name, keeps a ready list as written, and starts on task 1 with its projection', async () => {
    const s = await sessionClient(server);
    const written = [
      { action: '  Check the implemented requirement', expected_result: "The caller's domain report contains the verified result" },
      stepTask(2),
    ];
    const run = await runWith(s, written, { execution_note: 'Check the implemented requirement' });
    expect(run.name).toBe('Release 1.2');
    expect(run.executionNote).toBe('Check the implemented requirement');
    expect(run.tasks).toEqual([{ ...written[0], action: 'Check the implemented requirement' }, written[1]]);
    expect(run.moves).toEqual([]);
    expect(run.current).toEqual({
      label: 'Task 1/2',
      action: 'Check the implemented requirement',
      expected_result: written[0]?.expected_result,
    });
    expect(run.blocks.checklist.synopsis).toBe('2 tasks');
    expect(run.blocks.prepare).toEqual({
      length: 2,
      cursor: 1,
      action: 'Check the implemented requirement',
      expected_result: written[0]?.expected_result,
    });
  });

  it('orders prerequisites first, changing the written order as little as possible, and shows each move', async () => {
    const s = await sessionClient(server);
    const written = [stepTask('deploy'), stepTask('build'), stepTask('test'), stepTask('docs')];
    const run = await runWith(s, written, {
      needs: [
        { task: 1, needs: [2, 3] },
        { task: 3, needs: [2] },
      ],
    });
    expect(run.tasks.map((t) => t.action)).toEqual(['Do step build', 'Do step test', 'Do step deploy', 'Do step docs']);
    expect(run.moves).toEqual([{ task: 1, from: 1, to: 3, because: 'task 1 needs the result of task 3 (Do step test)' }]);
  });

  it('refuses two items that each need the other, naming them; nothing is recorded', async () => {
    const s = await sessionClient(server);
    const run = await startQuietRun(s);
    const named = await s.client.runs.name({ runId: run.id, name: 'x' });
    const refusal = await refused(
      s.client.runs.intake({
        runId: run.id,
        tasks: tasks(3),
        progress_checklist_outcome: 'x',
        needs: [
          { task: 2, needs: [3] },
          { task: 3, needs: [2] },
        ],
      }),
    );
    expect(refusal.message).toBe(
      'Error: invalid checklist: tasks 2 ("Do step 2") and 3 ("Do step 3") each need the other\'s result; no order satisfies both.',
    );
    expect(refusal.code).toBe('INVALID_CHECKLIST');
    expect(await s.client.runs.get({ runId: run.id })).toMatchObject({ status: 'intake', tasks: [], name: 'x', version: named.version });
  });

  it('attaches a whole-job remark to the tasks it constrains; it is never a task', async () => {
    const s = await sessionClient(server);
    const run = await runWith(s, tasks(3), { remarks: [{ text: 'Never touch production data', tasks: [2, 3] }] });
    expect(run.total).toBe(3);
    expect(run.blocks.work.tasks.map((t) => t.remarks)).toEqual([[], ['Never touch production data'], ['Never touch production data']]);
  });

  it('enforces every limit with a clear error and records nothing', async () => {
    const s = await sessionClient(server);
    const run = await startQuietRun(s);
    await s.client.runs.name({ runId: run.id, name: 'x' });
    const { version } = await s.client.runs.get({ runId: run.id });
    const base = { runId: run.id, progress_checklist_outcome: 'x' };
    const cases: [unknown, string][] = [
      [{ ...base, tasks: [] }, 'Error: invalid input: a checklist holds 1 to 100 tasks (got 0).'],
      [{ ...base, tasks: tasks(101) }, 'Error: invalid input: a checklist holds 1 to 100 tasks (got 101).'],
      [{ ...base, tasks: [{ action: ' ', expected_result: 'x' }] }, 'Error: invalid input: `tasks[0].action` must be a non-empty string.'],
      [
        { ...base, tasks: [...tasks(7), { action: 'a'.repeat(1001), expected_result: 'x' }] },
        'Error: invalid input: `tasks[7].action` must be at most 1000 characters (got 1001).',
      ],
      [
        { ...base, tasks: [{ action: 'a', expected_result: 'x'.repeat(1001) }] },
        'Error: invalid input: `tasks[0].expected_result` must be at most 1000 characters (got 1001).',
      ],
      [
        { ...base, tasks: [{ action: 'a', expected_result: 'x', id: 1 }] },
        'Error: invalid input: unknown task field `tasks[0].id`; a task is only `action` and `expected_result` (no ids, cursors, totals, statuses or result codes).',
      ],
      [
        { ...base, tasks: tasks(1), execution_note: 'n'.repeat(121) },
        'Error: invalid input: `execution_note` must be at most 120 characters (got 121).',
      ],
      [{ ...base, tasks: tasks(1), execution_note: '' }, 'Error: invalid input: `execution_note` must be a non-empty string.'],
      [
        { ...base, tasks: tasks(2), needs: [{ task: 1, needs: [5] }] },
        'Error: invalid checklist: `needs` names task 5, but the checklist has 2 tasks.',
      ],
    ];
    for (const [input, message] of cases) expect((await refused(s.client.runs.intake(input as never))).message).toBe(message);
    expect((await s.client.runs.get({ runId: run.id })).version).toBe(version);
    expect((await s.client.runs.history({ runId: run.id })).steps.map((st) => st.kind)).toEqual(['name']);
  });

  it("only the run's own agent drives it; a second intake is refused", async () => {
    const s = await sessionClient(server);
    const run = await runWith(s, tasks(2));
    const other = await sessionClient(server);
    expect((await refused(acknowledge(other.client, run.id, { task: 1, evidence: 'e', progress_execution_outcome: 'o' }))).message).toBe(
      `Error: forbidden: run ${run.id} belongs to another agent.`,
    );
    expect((await refused(s.client.runs.intake({ runId: run.id, tasks: tasks(1), progress_checklist_outcome: 'x' }))).message).toBe(
      `Error: run ${run.id} already has its checklist; revise it instead.`,
    );
  });
});

describe('execution', () => {
  it('advances one task per step, keeps evidence in history only, and completes with {}', async () => {
    const s = await sessionClient(server);
    let run = await runWith(s, tasks(3));
    for (const n of [1, 2]) {
      run = await acknowledge(s.client, run.id, { task: n, evidence: `evidence ${n}`, progress_execution_outcome: `outcome ${n}` });
      expect(run.current?.label).toBe(`Task ${n + 1}/3`);
      expect(run.blocks.work).toMatchObject({
        role: 'task',
        done: n,
        inProgress: n + 1,
        current_task: n + 1,
        total_tasks: 3,
        synopsis: `outcome ${n}`,
      });
    }
    expect(JSON.stringify(run)).not.toContain('evidence 1');
    run = await acknowledge(s.client, run.id, { task: 3, evidence: 'evidence 3', progress_execution_outcome: 'outcome 3' });
    expect(run).toMatchObject({ status: 'completed', output: {}, current: null });
    expect(run.blocks.work.tasks.map((t) => [t.title, t.state, t.outcome])).toEqual([
      ['Do step 1', 'done', 'outcome 1'],
      ['Do step 2', 'done', 'outcome 2'],
      ['Do step 3', 'done', 'outcome 3'],
    ]);
    const steps = (await s.client.runs.history({ runId: run.id })).steps;
    expect(steps.map((st) => [st.label, st.evidence])).toEqual([
      ['Name', null],
      ['Checklist intake', null],
      ['Task 1/3', 'evidence 1'],
      ['Task 2/3', 'evidence 2'],
      ['Task 3/3', 'evidence 3'],
    ]);
    expect((await refused(acknowledge(s.client, run.id, { task: 4, evidence: 'e', progress_execution_outcome: 'o' }))).message).toBe(
      `Error: run ${run.id} is completed; it takes no more steps.`,
    );
  });

  it('the attempt keeps a step exactly once: the same attempt sent concurrently or retried advances once; a stale task guard is refused', async () => {
    const s = await sessionClient(server);
    const run = await runWith(s, tasks(3));
    const ack = { runId: run.id, attemptId: run.attemptId ?? '', evidence: 'e', progress_execution_outcome: 'o' };
    const clients = Array.from({ length: 8 }, () => createClient({ url: server.url, token: s.token }));
    const results = await Promise.all(clients.map((c) => c.runs.step(ack)));
    expect(results.map((r) => r.cursor)).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
    expect(new Set(results.map((r) => r.attemptId)).size).toBe(1);
    expect((await s.client.runs.history({ runId: run.id })).steps.filter((st) => st.kind === 'step')).toHaveLength(1);

    const next = results[0]?.attemptId ?? '';
    expect((await refused(s.client.runs.step({ ...ack, attemptId: next, task: 1 }))).message).toBe(
      'Error: stale step: task 1/3 was already acknowledged; the current task is 2/3.',
    );
    expect((await refused(s.client.runs.step({ ...ack, attemptId: next, task: 3 + 1 }))).message).toBe(
      'Error: stale step: task 4/3 is not current; the current task is 2/3.',
    );
    const unknown = await refused(s.client.runs.step({ ...ack, attemptId: 'att_never_issued' }));
    expect(unknown.message).toBe(
      `Error: stale attempt: att_never_issued is not the current step attempt of run ${run.id}; the current one is ${next}. Read the run and answer its current step.`,
    );
    expect(unknown.code).toBe('STALE_STEP');
    expect(await s.client.runs.get({ runId: run.id })).toMatchObject({ cursor: 2, attemptId: next, version: results[0]?.version });
  });

  it('a step keeps only what it changed, not its whole answer; a retry of any earlier attempt still answers its first answer exactly', async () => {
    const s = await sessionClient(server);
    const checklist = Array.from({ length: 50 }, (_, i) => ({
      action: `Perform step ${i + 1} of the release checklist and record what was checked`,
      expected_result: `Step ${i + 1} is verified by its check`,
    }));
    let run = await runWith(s, checklist);
    const attempts: string[] = [];
    const answers: (typeof run)[] = [];
    const stepOf = (task: number, attemptId: string) =>
      s.client.runs.step({
        runId: run.id,
        attemptId,
        task,
        evidence: `check ${task} passed`,
        progress_execution_outcome: `step ${task} verified`,
      });
    for (let task = 1; task <= checklist.length; task++) {
      attempts.push(run.attemptId ?? '');
      run = await stepOf(task, run.attemptId ?? '');
      answers.push(run);
      if (task === 20) await s.client.runs.reportBlocker({ runId: run.id, blocker: 'The staging database is down' });
    }
    expect(run.status).toBe('completed');
    const sizes = await queryRows<{ size: number }>(
      server,
      `SELECT LENGTH(COALESCE("answer", '')) + LENGTH(COALESCE("prior", '')) AS "size" FROM "RunStep" WHERE "runId" = ?`,
      run.id,
    );
    expect(sizes.length).toBeGreaterThan(checklist.length + 1);
    // A whole answer is the view: its 50 tasks twice. A step keeps a few fields, the 50 outcomes the largest.
    const viewSize = JSON.stringify(answers[0]).length;
    expect(viewSize).toBeGreaterThan(10_000);
    expect(Math.max(...sizes.map((r) => Number(r.size)))).toBeLessThan(viewSize / 3);
    for (const i of [0, 18, 19, 20, 35, 49]) expect(await stepOf(i + 1, attempts[i] ?? '')).toEqual(answers[i]);
    expect((await s.client.runs.get({ runId: run.id })).version).toBe(run.version);
  });

  it('a blocker is recorded for display and never moves the cursor', async () => {
    const s = await sessionClient(server);
    const run = await runWith(s, tasks(2));
    const blocked = await s.client.runs.reportBlocker({ runId: run.id, blocker: 'The staging database is down' });
    expect(blocked).toMatchObject({ blocker: 'The staging database is down', cursor: 1 });
    expect(blocked.current?.label).toBe('Task 1/2');
    const cleared = await acknowledge(s.client, run.id, { task: 1, evidence: 'e', progress_execution_outcome: 'o' });
    expect(cleared.blocker).toBeNull();
  });

  it('refuses step texts over 500 characters or empty', async () => {
    const s = await sessionClient(server);
    const run = await runWith(s, tasks(1));
    expect(
      (await refused(acknowledge(s.client, run.id, { task: 1, evidence: 'e'.repeat(501), progress_execution_outcome: 'o' }))).message,
    ).toBe('Error: invalid input: `evidence` must be at most 500 characters (got 501).');
    expect((await refused(acknowledge(s.client, run.id, { task: 1, evidence: 'e', progress_execution_outcome: '' }))).message).toBe(
      'Error: invalid input: `progress_execution_outcome` must be a non-empty string.',
    );
    expect((await s.client.runs.get({ runId: run.id })).cursor).toBe(1);
  });
});

describe('revision', () => {
  it('keeps executed tasks, recomputes the total, resumes where told, and keeps the name for a reorder alone', async () => {
    const s = await sessionClient(server);
    let run = await runWith(s, tasks(4));
    run = await acknowledge(s.client, run.id, { task: 1, evidence: 'e', progress_execution_outcome: 'first verified' });
    const reordered = [stepTask(1), stepTask(3), stepTask(2), stepTask(4)];
    await s.client.runs.teleport({ runId: run.id, teleportTo: 'teleport-revise-tasks' });
    await s.client.runs.name({ runId: run.id, name: 'A new name' });
    run = await s.client.runs.revise({
      runId: run.id,
      tasks: reordered,
      resume_from_task: 2,
      progress_checklist_outcome: 'Reordered',
      progress_execution_outcome: 'The first task remains verified',
    });
    expect(run).toMatchObject({ name: 'Release 1.2', cursor: 2, total: 4, revision: 1 });
    expect(run.blocks.work.tasks.map((t) => t.outcome)).toEqual(['first verified', 'Pending', 'Pending', 'Pending']);
    expect(run.blocks.checklist.synopsis).toBe('Reordered');

    await s.client.runs.teleport({ runId: run.id, teleportTo: 'teleport-revise-tasks' });
    await s.client.runs.name({ runId: run.id, name: 'Release 1.2 with repair' });
    run = await s.client.runs.revise({
      runId: run.id,
      tasks: [stepTask(1), stepTask('repair'), stepTask(3)],
      resume_from_task: 2,
      progress_checklist_outcome: 'The corrected list',
      progress_execution_outcome: 'The first task remains verified',
    });
    expect(run).toMatchObject({ name: 'Release 1.2 with repair', total: 3, current: { label: 'Task 2/3', action: 'Do step repair' } });
    expect((await s.client.runs.history({ runId: run.id })).steps.at(-1)?.label).toBe('Revise checklist');
  });

  it('refuses a revision that changes an executed task, naming its position; nothing changes', async () => {
    const s = await sessionClient(server);
    let run = await runWith(s, tasks(3));
    run = await acknowledge(s.client, run.id, { task: 1, evidence: 'e', progress_execution_outcome: 'o' });
    const refusal = await refused(
      s.client.runs.revise({
        runId: run.id,
        tasks: [stepTask('changed'), stepTask(2)],
        resume_from_task: 2,
        progress_checklist_outcome: 'x',
        progress_execution_outcome: 'x',
      }),
    );
    expect(refusal.message).toBe('Error: invalid revision: task 1 was already executed and must stay unchanged at position 1.');
    expect(refusal.code).toBe('INVALID_REVISION');
    expect(await s.client.runs.get({ runId: run.id })).toMatchObject({ version: run.version, total: 3, revision: 0 });
  });

  it('a position past the end of the new list completes the run', async () => {
    const s = await sessionClient(server);
    let run = await runWith(s, tasks(3));
    run = await acknowledge(s.client, run.id, { task: 1, evidence: 'e', progress_execution_outcome: 'o' });
    run = await s.client.runs.revise({
      runId: run.id,
      tasks: [stepTask(1)],
      resume_from_task: 2,
      progress_checklist_outcome: 'Only one task was needed',
      progress_execution_outcome: 'o',
    });
    expect(run).toMatchObject({ status: 'completed', output: {}, total: 1 });
  });
});

describe('run tools for LLM function calling', () => {
  it('walk a run through prepare, execute, naming, intake, step and revise, answering with the directive', async () => {
    const s = await sessionClient(server);
    const tools = Object.fromEntries(runTools(s.client).map((t) => [t.name, t]));
    expect(Object.keys(tools)).toEqual([
      'checklist_prepare',
      'checklist_execute',
      'checklist_name',
      'checklist_intake',
      'checklist_step',
      'checklist_teleport',
      'checklist_revise',
      'checklist_report_blocker',
      'checklist_get',
    ]);
    const prepared = (await tools.checklist_prepare?.handler({ parentExecutionId: 'none' })) ?? '';
    expect(prepared).toMatch(/^Error: Todo List notifies/);
    const ok = (await tools.checklist_prepare?.handler({ parentExecutionId: 'none', skipNotificationCheck: true })) ?? '';
    const attempt = ok.match(/startAttemptId "([^"]+)"/)?.[1];
    const started = (await tools.checklist_execute?.handler({ startAttemptId: attempt })) ?? '';
    const runId = started.match(/^Run (\S+) is at checklist intake/)?.[1] ?? '';
    expect(started).toContain(`First persist the actual task name with checklist_name (runId "${runId}", name).`);
    expect(await tools.checklist_intake?.handler({ runId, tasks: tasks(2), progress_checklist_outcome: 'Two tasks' })).toBe(
      `Error: run ${runId} has no name yet: persist the actual task name first with checklist_name (runId "${runId}", name), then submit the checklist.`,
    );
    await tools.checklist_name?.handler({ runId, name: 'Tool run' });
    const first = (await tools.checklist_intake?.handler({ runId, tasks: tasks(2), progress_checklist_outcome: 'Two tasks' })) ?? '';
    expect(first).toContain('Task 1/2: Do step 1\nExpected result: Step 1 is done\n');
    const attempt1 = first.match(/attemptId "([^"]+)"/)?.[1];
    const second =
      (await tools.checklist_step?.handler({ runId, attemptId: attempt1, evidence: 'ok', progress_execution_outcome: 'ok' })) ?? '';
    expect(second).toContain('Task 2/2: Do step 2');
    expect(await tools.checklist_step?.handler({ runId, attemptId: attempt1, evidence: 'ok', progress_execution_outcome: 'ok' })).toBe(
      second,
    );
    const attempt2 = second.match(/attemptId "([^"]+)"/)?.[1];
    expect(await tools.checklist_step?.handler({ runId, attemptId: attempt2, evidence: 'ok', progress_execution_outcome: 'ok' })).toBe(
      `All tasks done (2/2). Run ${runId} is complete; its output is {}.`,
    );
  });
});

describe('isolation', () => {
  it('another workspace never sees a run', async () => {
    const s = await sessionClient(server);
    const run = await startQuietRun(s);
    const { adminKey } = await adminClient(server).workspaces.create({ name: 'elsewhere' });
    const outsider = createClient({ url: server.url, token: adminKey });
    expect((await refused(outsider.runs.get({ runId: run.id }))).message).toBe(`Error: run ${run.id} not found.`);
    expect((await outsider.runs.list()).runs).toEqual([]);
  });
});

describe('live run view', () => {
  it('a viewer watching a run receives each new version, and a reconnect brings it up to date', async () => {
    const s = await sessionClient(server);
    const run = await runWith(s, tasks(3));
    const viewer = await keyClient(server, 'viewer');
    const seen: { id: string; cursor: number }[] = [];
    let sub: { unsubscribe(): void } | undefined;
    await new Promise<void>((resolve) => {
      sub = viewer.runs.watch(
        { runId: run.id, from: 'start' },
        { onData: (e) => seen.push({ id: e.id, cursor: e.data.run.cursor }), onStarted: resolve },
      );
    });
    const until = async (n: number) => {
      for (let i = 0; i < 500 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 20));
    };
    await until(1);
    await acknowledge(s.client, run.id, { task: 1, evidence: 'e', progress_execution_outcome: 'o' });
    await until(2);
    expect(seen).toEqual([
      { id: String(run.version), cursor: 1 },
      { id: String(run.version + 1), cursor: 2 },
    ]);
    sub?.unsubscribe();

    await acknowledge(s.client, run.id, { task: 2, evidence: 'e', progress_execution_outcome: 'o' });
    const resumed: { id: string; cursor: number }[] = [];
    const again = viewer.runs.watch(
      { runId: run.id, lastEventId: String(run.version + 1) },
      { onData: (e) => resumed.push({ id: e.id, cursor: e.data.run.cursor }) },
    );
    for (let i = 0; i < 500 && resumed.length < 1; i++) await new Promise((r) => setTimeout(r, 20));
    expect(resumed).toEqual([{ id: String(run.version + 2), cursor: 3 }]);
    again.unsubscribe();
  });
});

describe('run tool answers', () => {
  it('show the order changes once, in the intake answer, and not in every later directive', async () => {
    const s = await sessionClient(server);
    const tools = Object.fromEntries(runTools(s.client).map((t) => [t.name, t]));
    const run = await startQuietRun(s);
    await s.client.runs.name({ runId: run.id, name: 'Ordered' });
    const intake = await tools.checklist_intake?.handler({
      runId: run.id,
      tasks: [stepTask('deploy'), stepTask('build')],
      progress_checklist_outcome: 'Two tasks',
      needs: [{ task: 1, needs: [2] }],
    });
    const { attemptId } = await s.client.runs.get({ runId: run.id });
    expect(intake).toBe(
      [
        'Order changed from the written list:',
        '- written task 1 moved to position 2: task 1 needs the result of task 2 (Do step build)',
        'Task 1/2: Do step build',
        'Expected result: Step build is done',
        `Do the work and verify the expected result, then call checklist_step with runId "${run.id}", attemptId "${attemptId}", evidence and progress_execution_outcome. If the task is blocked or incomplete, do not step: report the blocker (checklist_report_blocker) and tell the user.`,
      ].join('\n'),
    );
    const next = await tools.checklist_step?.handler({ runId: run.id, attemptId, evidence: 'built', progress_execution_outcome: 'built' });
    expect(next).toMatch(/^Task 2\/2: Do step deploy\n/);
  });
});

describe('a run belongs to the agent that started it', () => {
  it("the key's own sessions drive it (a restarted agent), a subagent not its parent's run; another key is refused, nothing recorded", async () => {
    const agent = await keyClient(server, 'agent');
    const s = await openSessionClient(agent, { title: 'first chat' });
    const mine = await runWith(s, tasks(3));
    const other = await sessionClient(server);
    const before = await s.client.runs.get({ runId: mine.id });
    expect((await refused(acknowledge(other.client, mine.id, { task: 1, evidence: 'e', progress_execution_outcome: 'o' }))).message).toBe(
      `Error: forbidden: run ${mine.id} belongs to another agent.`,
    );
    const after = await s.client.runs.get({ runId: mine.id });
    expect([after.version, after.cursor, after.attemptId]).toEqual([before.version, before.cursor, before.attemptId]);
    expect((await s.client.runs.history({ runId: mine.id })).steps.map((st) => st.kind)).toEqual(['name', 'intake']);
    // The agent restarted: a new session of the same key finishes the run, a subagent of it included.
    const restarted = await openSessionClient(agent, { title: 'after a restart' });
    expect((await acknowledge(restarted.client, mine.id, { task: 1, evidence: 'e', progress_execution_outcome: 'o' })).cursor).toBe(2);
    // A subagent drives what its own tree started, never its parent's run (as it reads).
    const sub = await openSessionClient(restarted.client, { title: 'subagent' });
    expect((await refused(acknowledge(sub.client, mine.id, { task: 2, evidence: 'e', progress_execution_outcome: 'o' }))).message).toBe(
      `Error: forbidden: run ${mine.id} belongs to another agent.`,
    );
    expect((await acknowledge(restarted.client, mine.id, { task: 2, evidence: 'e', progress_execution_outcome: 'o' })).cursor).toBe(3);
    expect((await acknowledge(restarted.client, mine.id, { task: 3, evidence: 'e', progress_execution_outcome: 'o' })).status).toBe(
      'completed',
    );
  });
});

describe('intake moves and naming', () => {
  it('every position change is shown with its dependency: a prerequisite that comes first is a move of its own', async () => {
    const s = await sessionClient(server);
    const written = ['Publish', 'Left', 'Right', 'Collect'].map((action) => ({ action, expected_result: `${action} done` }));
    const run = await runWith(s, written, {
      needs: [
        { task: 1, needs: [2, 3] },
        { task: 2, needs: [4] },
        { task: 3, needs: [4] },
      ],
    });
    expect(run.tasks.map((t) => t.action)).toEqual(['Collect', 'Left', 'Right', 'Publish']);
    expect(run.moves).toEqual([
      { task: 4, from: 4, to: 1, because: 'task 2 needs the result of task 4 (Collect)' },
      { task: 1, from: 1, to: 4, because: 'task 1 needs the result of task 3 (Right)' },
    ]);
  });

  it('naming a run with the name it already has (after trimming) records nothing: no version, no history entry', async () => {
    const s = await sessionClient(server);
    const run = await startQuietRun(s);
    const named = await s.client.runs.name({ runId: run.id, name: 'Release 1.2' });
    const again = await s.client.runs.name({ runId: run.id, name: '  Release 1.2 ' });
    expect(again.version).toBe(named.version);
    expect(again.updatedAt).toBe(named.updatedAt);
    expect((await s.client.runs.history({ runId: run.id })).steps.map((st) => st.kind)).toEqual(['name']);
    // Within a revision: the name it has is no change either; ordering alone keeps it.
    const started = await s.client.runs.intake({ runId: run.id, tasks: tasks(2), progress_checklist_outcome: 'Two tasks' });
    const jumped = await s.client.runs.teleport({ runId: run.id, attemptId: started.attemptId ?? '', teleportTo: 'teleport-revise-tasks' });
    const same = await s.client.runs.name({ runId: run.id, name: 'Release 1.2' });
    expect([same.version, same.pendingName]).toEqual([jumped.version, null]);
    expect((await s.client.runs.history({ runId: run.id })).steps.map((st) => st.kind)).toEqual(['name', 'intake', 'teleport']);
  });
});
