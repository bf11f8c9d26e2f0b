// Black-box tests of a person's note on a checklist run's current task (runs.note): the agent's next directive — the
// tool answer it reads after each call — carries it while that task is current, without changing the seed's texts.
import { agentTools } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acknowledge,
  adminClient,
  countRows,
  keyClient,
  nameAndIntake,
  refused,
  sessionClient,
  startQuietRun,
  stepTask,
} from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe('runs.note', () => {
  it("a person's note on the current task comes with the agent's next directive, and only while that task is current", async () => {
    const s = await sessionClient(server);
    const started = await startQuietRun(s);
    await nameAndIntake(s.client, {
      runId: started.id,
      name: 'Release',
      tasks: [stepTask(1), stepTask(2)],
      progress_checklist_outcome: 'Two steps',
    });
    const noted = await adminClient(server).runs.note({ runId: started.id, text: '  Use the staging cluster for step 1.  ' });
    expect(noted.blocks.work.tasks[0]?.notes).toEqual(['first admin key: Use the staging cluster for step 1.']);
    expect(noted.version).toBeGreaterThan(1);

    const tools = Object.fromEntries(agentTools(s.client).map((t) => [t.name, t]));
    const directive = (await tools.checklist_get?.handler({ runId: started.id })) ?? '';
    expect(directive.split('\n')).toEqual([
      'Task 1/2: Do step 1',
      'Expected result: Step 1 is done',
      'Note from first admin key: Use the staging cluster for step 1.',
      expect.stringMatching(/^Do the work and verify the expected result, then call checklist_step with runId /),
    ]);
    // The run's history records who left it.
    const { steps } = await s.client.runs.history({ runId: started.id });
    expect(steps.at(-1)).toMatchObject({
      kind: 'note',
      label: 'Note from first admin key',
      task: 1,
      outcome: 'Use the staging cluster for step 1.',
    });

    // Once the task is done, the next task's directive has no note.
    const next = await acknowledge(s.client, started.id, { evidence: 'Done on staging', progress_execution_outcome: 'Step 1 done' });
    expect(next.blocks.work.tasks[1]?.notes).toBeUndefined();
    expect(await tools.checklist_get?.handler({ runId: started.id })).not.toContain('Note from');
  });

  it('refuses a viewer, an empty or long note, a run with no current task, with exact texts, recording nothing', async () => {
    const s = await sessionClient(server);
    const intake = await startQuietRun(s);
    const viewer = await keyClient(server, 'viewer');
    const admin = adminClient(server);
    const before = await countRows(server, 'Run');
    const version = (await s.client.runs.get({ runId: intake.id })).version;
    const cases: [() => Promise<unknown>, string][] = [
      [() => viewer.runs.note({ runId: intake.id, text: 'Hi' }), 'Error: forbidden: viewer keys are read-only (this key is viewer).'],
      [() => admin.runs.note({ runId: intake.id, text: '  ' }), 'Error: invalid input: `text` must be a non-empty string.'],
      [
        () => admin.runs.note({ runId: intake.id, text: 'x'.repeat(1001) }),
        'Error: invalid input: `text` must be at most 1000 characters (got 1001).',
      ],
      [
        () => admin.runs.note({ runId: intake.id, text: 'Too early' }),
        `Error: run ${intake.id} is at checklist intake; there is no current task to leave a note on.`,
      ],
      [() => admin.runs.note({ runId: 'run-that-does-not-exist', text: 'Hi' }), 'Error: run run-that-does-not-exist not found.'],
    ];
    for (const [call, text] of cases) expect((await refused(call())).message).toBe(text);
    expect(await countRows(server, 'Run')).toBe(before);
    expect((await s.client.runs.get({ runId: intake.id })).version).toBe(version);
  });
});
