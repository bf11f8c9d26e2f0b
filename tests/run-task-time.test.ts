// Black-box test of the time a run reports per task (seed 002: "the time its passes spent on each"), on a manual clock:
// the current task's pass counts live, a blocker does not stop it, the revision node counts for no task, and a task keeps
// its time when a revision moves it or comes back to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledge, sessionClient, startQuietRun, stepTask } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ manualTime: true });
});
afterAll(() => server.stop());

describe('time per task', () => {
  it('sums each task’s passes, wherever a revision puts the task', async () => {
    const clock = server.clock!;
    const s = await sessionClient(server);
    const run = await startQuietRun(s);
    await s.client.runs.name({ runId: run.id, name: 'Timed run' });
    await s.client.runs.intake({
      runId: run.id,
      tasks: [stepTask(1), stepTask(2), stepTask(3)],
      progress_checklist_outcome: 'Three tasks',
    });
    /** [title, timeMs, state] of every task, as the run view and its keyless page report them. */
    const times = async () => {
      const view = await s.client.runs.get({ runId: run.id });
      const page = (await (await fetch(`${server.url}/runs/${run.id}`)).json()) as typeof view;
      expect(page.blocks.work.tasks).toEqual(view.blocks.work.tasks);
      return view.blocks.work.tasks.map((t) => [t.title, t.timeMs, t.state]);
    };

    clock.advance(5_000);
    expect(await times()).toEqual([
      ['Do step 1', 5_000, 'in_progress'],
      ['Do step 2', 0, 'pending'],
      ['Do step 3', 0, 'pending'],
    ]);
    await acknowledge(s.client, run.id, { evidence: 'e', progress_execution_outcome: 'Step 1 verified' });
    clock.advance(3_000);
    await s.client.runs.reportBlocker({ runId: run.id, blocker: 'The staging database is down' });
    clock.advance(1_000);
    expect(await times()).toEqual([
      ['Do step 1', 5_000, 'done'],
      ['Do step 2', 4_000, 'in_progress'],
      ['Do step 3', 0, 'pending'],
    ]);

    // The revision node is no task's pass.
    await s.client.runs.teleport({ runId: run.id, teleportTo: 'teleport-revise-tasks' });
    clock.advance(10_000);
    expect((await times())[1]).toEqual(['Do step 2', 4_000, 'pending']);

    // Step 3 must come before step 2: step 2 keeps the 4 s of its first pass at its new position.
    await s.client.runs.revise({
      runId: run.id,
      tasks: [stepTask(1), stepTask(3), stepTask(2)],
      resume_from_task: 2,
      progress_checklist_outcome: 'Step 3 first',
      progress_execution_outcome: 'Step 1 remains verified',
    });
    clock.advance(2_000);
    expect(await times()).toEqual([
      ['Do step 1', 5_000, 'done'],
      ['Do step 3', 2_000, 'in_progress'],
      ['Do step 2', 4_000, 'pending'],
    ]);
    await acknowledge(s.client, run.id, { evidence: 'e', progress_execution_outcome: 'Step 3 verified' });
    clock.advance(6_000);
    expect((await times())[2]).toEqual(['Do step 2', 10_000, 'in_progress']);

    // A revision that resumes from an executed task: its second pass adds to its first.
    await s.client.runs.revise({
      runId: run.id,
      tasks: [stepTask(1), stepTask(3), stepTask(2)],
      resume_from_task: 1,
      progress_checklist_outcome: 'Step 1 again',
      progress_execution_outcome: 'Step 1 needs another look',
    });
    clock.advance(1_000);
    expect(await times()).toEqual([
      ['Do step 1', 6_000, 'in_progress'],
      ['Do step 3', 2_000, 'pending'],
      ['Do step 2', 10_000, 'pending'],
    ]);
  });
});
