// Black-box tests of seed 002's contract over HTTP: the guarded naming call, the intake and step payloads exactly as the
// seed writes them, the Work block's fields and roles (Revise checklist), and child runs with a task context.
import type { ChecklistEntry } from '@agent-tasks/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Session,
  countRows,
  keyClient,
  refused,
  sessionClient,
  startQuietRun as startRun,
  stepTask as task,
} from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const REVISE = 'teleport-revise-tasks' as const;

/** A named run with `tasks` taken in; running on task 1. */
async function running(s: Session, tasks: ChecklistEntry[], name = 'Release 1.2') {
  const run = await startRun(s);
  await s.client.runs.name({ runId: run.id, name });
  return s.client.runs.intake({ runId: run.id, tasks, progress_checklist_outcome: `${tasks.length} tasks` });
}

const stepsOf = async (s: Session, runId: string) => (await s.client.runs.history({ runId })).steps;

describe('1. the guarded naming contract', () => {
  it('intake without a persisted name is refused with an instruction naming the call; nothing is recorded', async () => {
    const s = await sessionClient(server);
    const run = await startRun(s);
    const refusal = await refused(s.client.runs.intake({ runId: run.id, tasks: [task(1)], progress_checklist_outcome: 'One task' }));
    expect(refusal.message).toBe(
      `Error: run ${run.id} has no name yet: persist the actual task name first with checklist_name (runId "${run.id}", name), then submit the checklist.`,
    );
    expect(refusal.code).toBe('CONFLICT');
    expect(await s.client.runs.get({ runId: run.id })).toMatchObject({
      status: 'intake',
      name: null,
      tasks: [],
      version: run.version,
      attemptId: run.attemptId,
    });
    expect(await stepsOf(s, run.id)).toEqual([]);
  });

  it("accepts the seed's intake payload exactly as written, after the naming call; `name` is not an intake field", async () => {
    const s = await sessionClient(server);
    const run = await startRun(s);
    // Naming is allowed (and repeatable) before intake; the last name given is the run's name.
    await s.client.runs.name({ runId: run.id, name: 'A first guess' });
    const named = await s.client.runs.name({ runId: run.id, name: 'Verify the implemented requirement' });
    expect(named).toMatchObject({ name: 'Verify the implemented requirement', status: 'intake', attemptId: run.attemptId });
    const withName = await refused(
      s.client.runs.intake({ runId: run.id, name: 'x', tasks: [task(1)], progress_checklist_outcome: 'x' } as never),
    );
    expect(withName.message).toBe('Error: invalid input: unknown field `name`.');
    const view = await s.client.runs.intake({
      runId: run.id,
      ...{
        tasks: [
          {
            action: 'Check the implemented requirement',
            expected_result: "The caller's domain report contains the verified result",
          },
        ],
        progress_checklist_outcome: 'One ordered task is ready',
        execution_note: 'Check the implemented requirement',
      },
    });
    expect(view).toMatchObject({
      status: 'running',
      name: 'Verify the implemented requirement',
      executionNote: 'Check the implemented requirement',
    });
    // execution_note is never a heading source: not the run's name, not the card's heading.
    const card = await (await fetch(`${server.url}/runs/${run.id}/card.svg`)).text();
    expect(card).toContain('<title id="card-title">Todo List — Verify the implemented requirement</title>');
    expect((await stepsOf(s, run.id)).map((st) => [st.kind, st.outcome])).toEqual([
      ['name', 'A first guess'],
      ['name', 'Verify the implemented requirement'],
      ['intake', 'One ordered task is ready'],
    ]);
  });

  it('after intake the name changes only within a revision, and only if the revision changes the scope', async () => {
    const s = await sessionClient(server);
    const run = await running(s, [task(1), task(2), task(3)]);
    const outside = await refused(s.client.runs.name({ runId: run.id, name: 'Renamed' }));
    expect(outside.message).toBe(
      `Error: run ${run.id} already has its checklist; its name changes only within a checklist revision that changes the scope (jump to "teleport-revise-tasks" first, then name it, then send the revision).`,
    );
    expect(await s.client.runs.get({ runId: run.id })).toMatchObject({ name: 'Release 1.2', version: run.version });

    // Within a revision that only reorders: the name given there is kept aside, then dropped with the reason.
    await s.client.runs.teleport({ runId: run.id, teleportTo: REVISE });
    const pending = await s.client.runs.name({ runId: run.id, name: 'Release 1.2, reordered' });
    expect(pending).toMatchObject({ name: 'Release 1.2', pendingName: 'Release 1.2, reordered', revising: true });
    const reordered = await s.client.runs.revise({
      runId: run.id,
      tasks: [task(1), task(3), task(2)],
      resume_from_task: 1,
      progress_checklist_outcome: 'Reordered',
      progress_execution_outcome: 'Nothing done yet',
    });
    expect(reordered).toMatchObject({ name: 'Release 1.2', pendingName: null, revising: false });
    expect(reordered.notice).toBe(
      'The name stays "Release 1.2": this revision only reorders the checklist, and ordering alone retains the name (a new name applies only when the scope changes).',
    );

    // Within a revision that changes the scope: the name applies.
    await s.client.runs.teleport({ runId: run.id, teleportTo: REVISE, attemptId: reordered.attemptId ?? '' });
    await s.client.runs.name({ runId: run.id, name: 'Release 1.2 and the docs' });
    const scoped = await s.client.runs.revise({
      runId: run.id,
      tasks: [task(1), task(3), task(2), task('docs')],
      resume_from_task: 1,
      progress_checklist_outcome: 'Docs added',
      progress_execution_outcome: 'Nothing done yet',
    });
    expect(scoped).toMatchObject({ name: 'Release 1.2 and the docs', notice: null, total: 4 });
  });

  it('a completed run is never renamed', async () => {
    const s = await sessionClient(server);
    const run = await running(s, [task(1)]);
    const done = await s.client.runs.step({
      runId: run.id,
      attemptId: run.attemptId ?? '',
      evidence: 'e',
      progress_execution_outcome: 'o',
    });
    expect(done.status).toBe('completed');
    expect((await refused(s.client.runs.name({ runId: run.id, name: 'Late' }))).message).toBe(
      `Error: run ${run.id} is completed; its name no longer changes.`,
    );
    expect((await s.client.runs.get({ runId: run.id })).version).toBe(done.version);
  });
});

describe('2. the step acknowledgement is exactly { evidence, progress_execution_outcome } with the run and attempt ids', () => {
  it("takes the seed's payload with no position; the position is an optional guard", async () => {
    const s = await sessionClient(server);
    const run = await running(s, [task(1), task(2)]);
    const next = await s.client.runs.step({
      runId: run.id,
      attemptId: run.attemptId ?? '',
      ...{
        evidence: 'The focused test command passed.',
        progress_execution_outcome: 'The affected test suite passed',
      },
    });
    expect(next).toMatchObject({ cursor: 2, blocks: { work: { synopsis: 'The affected test suite passed' } } });
    const missing = await refused(
      s.client.runs.step({
        runId: run.id,
        evidence: 'The focused test command passed.',
        progress_execution_outcome: 'The affected test suite passed',
      } as never),
    );
    expect(missing.message).toBe('Error: invalid input: `attemptId` must be the step attempt id of the run (its `attemptId`).');
    expect((await s.client.runs.get({ runId: run.id })).version).toBe(next.version);
    const guarded = await s.client.runs.step({
      runId: run.id,
      attemptId: next.attemptId ?? '',
      task: 2,
      evidence: 'e',
      progress_execution_outcome: 'o',
    });
    expect(guarded.status).toBe('completed');
  });
});

describe('3. the Work block binds the checklist with the seed’s field names', () => {
  it('exposes current_task and total_tasks (and no camel-case twins)', async () => {
    const s = await sessionClient(server);
    const run = await running(s, [task(1), task(2), task(3)]);
    const next = await s.client.runs.step({
      runId: run.id,
      attemptId: run.attemptId ?? '',
      evidence: 'e',
      progress_execution_outcome: 'o',
    });
    expect(next.blocks.work).toMatchObject({ role: 'task', label: 'Task 2/3', current_task: 2, total_tasks: 3 });
    expect(next.blocks.work.tasks.map((t) => t.title)).toEqual(['Do step 1', 'Do step 2', 'Do step 3']);
    const page = (await (await fetch(`${server.url}/runs/${run.id}`)).json()) as { blocks: { work: Record<string, unknown> } };
    expect(page.blocks.work).toMatchObject({ current_task: 2, total_tasks: 3 });
    expect(Object.keys(page.blocks.work)).not.toContain('currentTask');
    expect(Object.keys(page.blocks.work)).not.toContain('totalTasks');
  });
});

describe('5. Revise checklist is the Work block’s role during a revision', () => {
  it('after the jump the run shows Revise checklist with no task projection, live, on the page and the card; steps wait', async () => {
    const s = await sessionClient(server);
    const run = await running(s, [task(1), task(2), task(3)]);
    const viewer = await keyClient(server, 'viewer');
    const seen: { label: string; role: string }[] = [];
    const feed = viewer.runs.watch(
      { runId: run.id },
      { onData: (e) => seen.push({ label: e.data.run.blocks.work.label, role: e.data.run.blocks.work.role }) },
    );
    await new Promise((r) => setTimeout(r, 300));

    const jumped = await s.client.runs.teleport({ runId: run.id, attemptId: run.attemptId ?? '', teleportTo: REVISE });
    expect(jumped).toMatchObject({
      revising: true,
      current: null,
      blocks: { prepare: { action: null, expected_result: null }, work: { role: 'revise', label: 'Revise checklist', inProgress: null } },
    });
    expect(jumped.blocks.work.tasks.map((t) => t.state)).toEqual(['pending', 'pending', 'pending']);
    const page = (await (await fetch(`${server.url}/runs/${run.id}`)).json()) as { blocks: { work: { label: string } } };
    expect(page.blocks.work.label).toBe('Revise checklist');
    const card = await (await fetch(`${server.url}/runs/${run.id}/card.svg`)).text();
    expect(card).toContain('<desc id="card-desc">Revise checklist · 0 of 3 tasks done</desc>');
    for (let i = 0; i < 100 && !seen.some((e) => e.role === 'revise'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(seen.at(-1)).toEqual({ label: 'Revise checklist', role: 'revise' });
    feed.unsubscribe();

    const before = await countRows(server, 'Run', 'id = ? AND version = ?', run.id, jumped.version);
    const ack = await refused(
      s.client.runs.step({ runId: run.id, attemptId: jumped.attemptId ?? '', evidence: 'e', progress_execution_outcome: 'o' }),
    );
    expect(ack.message).toBe(
      `Error: run ${run.id} is at its revision node (Revise checklist): send the complete corrected checklist with resume_from_task; tasks are acknowledged only outside a revision.`,
    );
    expect((await refused(s.client.runs.teleport({ runId: run.id, teleportTo: REVISE }))).message).toBe(
      `Error: run ${run.id} is already at its revision node; send the corrected checklist.`,
    );
    expect(await countRows(server, 'Run', 'id = ? AND version = ?', run.id, jumped.version)).toBe(before);

    const revised = await s.client.runs.revise({
      runId: run.id,
      attemptId: jumped.attemptId ?? '',
      tasks: [task(1), task(2)],
      resume_from_task: 1,
      progress_checklist_outcome: 'Two tasks are enough',
      progress_execution_outcome: 'Nothing done yet',
    });
    expect(revised).toMatchObject({ revising: false, blocks: { work: { role: 'task', label: 'Task 1/2' } } });
    expect((await stepsOf(s, run.id)).slice(-2).map((st) => [st.kind, st.label])).toEqual([
      ['teleport', 'Revise checklist'],
      ['revise', 'Revise checklist'],
    ]);
  });
});

describe('6. child runs with a task context', () => {
  const ready: ChecklistEntry[] = [
    { action: 'Check the implemented requirement', expected_result: "The caller's domain report contains the verified result" },
    { action: 'Record the verdict', expected_result: 'The verdict is in the caller report' },
  ];

  it('the child takes its ready array unchanged; a changed, dropped or added item is refused, naming it', async () => {
    const s = await sessionClient(server);
    const parent = await running(s, [task('parent')], 'Requirements coverage');
    const child = await startRun(s, { parentExecutionId: parent.id, taskContext: { tasks: ready } });
    expect(child).toMatchObject({ parentRunId: parent.id, taskContext: { tasks: ready } });
    await s.client.runs.name({ runId: child.id, name: 'Verify the requirement' });
    const { version } = await s.client.runs.get({ runId: child.id });
    const base = { runId: child.id, progress_checklist_outcome: 'Two ordered tasks are ready' };
    const changed = await refused(
      s.client.runs.intake({ ...base, tasks: [ready[0] as ChecklistEntry, { ...task(2), action: 'Record the verdict somewhere' }] }),
    );
    expect(changed.message).toBe(
      'Error: invalid checklist: this run\'s task context holds a ready checklist; submit it unchanged (wording and scope as written, nothing added): `tasks[1]` ("Record the verdict somewhere") is not in it.',
    );
    const dropped = await refused(s.client.runs.intake({ ...base, tasks: [ready[1] as ChecklistEntry] }));
    expect(dropped.message).toBe(
      'Error: invalid checklist: this run\'s task context holds a ready checklist; submit it unchanged (nothing dropped): its task 1 ("Check the implemented requirement") is missing.',
    );
    expect(await s.client.runs.get({ runId: child.id })).toMatchObject({ status: 'intake', version });
    // The order is the executor's: the same content in another order, with the dependency behind it, is taken.
    const taken = await s.client.runs.intake({
      ...base,
      tasks: [ready[1] as ChecklistEntry, ready[0] as ChecklistEntry],
      needs: [{ task: 1, needs: [2] }],
    });
    expect(taken.tasks).toEqual(ready);
  });

  it('the written order is the caller’s: a submission in another order keeps it, and only `needs` moves a task, each move shown', async () => {
    const s = await sessionClient(server);
    const written: ChecklistEntry[] = [task('deploy'), task('build'), task('test')];
    const child = async () => {
      const run = await startRun(s, { taskContext: { tasks: written } });
      await s.client.runs.name({ runId: run.id, name: 'Ship it' });
      return run;
    };
    const base = { progress_checklist_outcome: 'Three ordered tasks are ready' };

    // Another order with no prerequisite behind it: the written order stands, and the answer says why.
    const shuffled = await child();
    const kept = await s.client.runs.intake({
      ...base,
      runId: shuffled.id,
      tasks: [written[2], written[0], written[1]] as ChecklistEntry[],
    });
    expect(kept.tasks).toEqual(written);
    expect(kept.moves).toEqual([]);
    expect(kept.current?.action).toBe('Do step deploy');
    expect(kept.notice).toBe(
      "The ready checklist of this run's task context keeps its written order wherever prerequisites allow: the order of the submitted array was not used. To run a task later, state what it needs in `needs`; each move is then shown with the dependency behind it.",
    );

    // `needs` and `remarks` name positions of the submitted array; the order and its moves are the written list's.
    const move = { task: 1, from: 1, to: 3, because: 'task 1 needs the result of task 3 (Do step test)' };
    const reordered = await child();
    const viaNeeds = await s.client.runs.intake({
      ...base,
      runId: reordered.id,
      tasks: [written[2], written[0], written[1]] as ChecklistEntry[],
      needs: [{ task: 2, needs: [1] }],
      remarks: [{ text: 'Deploy from the release branch', tasks: [2] }],
    });
    expect(viaNeeds.tasks).toEqual([written[1], written[2], written[0]]);
    expect(viaNeeds.moves).toEqual([move]);
    expect(viaNeeds.blocks.work.tasks.map((t) => t.remarks)).toEqual([[], [], ['Deploy from the release branch']]);

    // Submitted as written, the same prerequisite gives the same order and move, with no notice.
    const asWritten = await child();
    const same = await s.client.runs.intake({ ...base, runId: asWritten.id, tasks: written, needs: [{ task: 1, needs: [3] }] });
    expect(same).toMatchObject({ tasks: viaNeeds.tasks, moves: [move], notice: null });
  });

  it('a completed child gives its parent the success connection: a line in its view and an event on its feed, no evidence', async () => {
    const s = await sessionClient(server);
    const parent = await running(s, [task('parent')], 'Requirements coverage');
    const viewer = await keyClient(server, 'viewer');
    const events: { version: number; connection?: { runId: string; line: string } }[] = [];
    const feed = viewer.runs.watch(
      { runId: parent.id },
      { onData: (e) => events.push({ version: e.data.version, connection: e.data.connection }) },
    );
    await new Promise((r) => setTimeout(r, 300));

    const child = await startRun(s, { parentExecutionId: parent.id, taskContext: { tasks: [ready[0] as ChecklistEntry] } });
    await s.client.runs.name({ runId: child.id, name: 'Verify the requirement' });
    const taken = await s.client.runs.intake({
      runId: child.id,
      tasks: [{ action: 'Check the implemented requirement', expected_result: "The caller's domain report contains the verified result" }],
      progress_checklist_outcome: 'One ordered task is ready',
      execution_note: 'Check the implemented requirement',
    });
    const done = await s.client.runs.step({
      runId: child.id,
      attemptId: taken.attemptId ?? '',
      evidence: 'SECRET-EVIDENCE-42',
      progress_execution_outcome: 'Verified',
    });
    expect(done).toMatchObject({ status: 'completed', output: {} });

    const line = `Success connection: child run ${child.id} "Verify the requirement" reached its End node.`;
    const after = await s.client.runs.get({ runId: parent.id });
    expect(after.connections).toEqual([{ runId: child.id, name: 'Verify the requirement', at: expect.any(String), line }]);
    expect(after).toMatchObject({ version: parent.version + 1, status: 'running', cursor: 1 });
    expect(JSON.stringify(after)).not.toContain('SECRET-EVIDENCE-42');
    expect((await stepsOf(s, parent.id)).at(-1)).toMatchObject({
      kind: 'connection',
      label: 'Success connection',
      evidence: null,
      outcome: line,
    });
    for (let i = 0; i < 100 && !events.some((e) => e.connection); i++) await new Promise((r) => setTimeout(r, 20));
    expect(events.find((e) => e.connection)).toEqual({
      version: parent.version + 1,
      connection: expect.objectContaining({ runId: child.id, line }),
    });
    feed.unsubscribe();
  });
});
