// Black-box tests of the Moira-compatible MCP server `moira` (tools start and step) over streamable HTTP at /mcp/moira
// and over stdio (`agent-tasks-mcp --moira`): every call and payload written in seed 002 is replayed, in order, verbatim.
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '@agent-tasks/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows } from './support/fixtures.ts';
import { sourceNodeArgs } from './support/source-node.ts';
import { type RunningServer, agentTasksBin, startServer } from './support/server.ts';
import { type WebhookReceiver, startReceiver, waitFor } from './support/webhook-receiver.ts';

let server: RunningServer;
let hook: WebhookReceiver;
beforeAll(async () => {
  server = await startServer();
  hook = await startReceiver();
});
afterAll(async () => {
  await hook.down();
  await server.stop();
});

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
});

/** An MCP client of the `moira` server over HTTP, with a fresh agent key of a workspace (with a channel unless told). */
async function moiraOverHttp(options: { channel?: boolean } = {}) {
  const { adminKey } = await adminClient(server).workspaces.create({ name: `moira ${Math.random()}` });
  const admin = createClient({ url: server.url, token: adminKey });
  if (options.channel !== false) await admin.channels.create({ name: 'team', url: hook.url });
  const { token } = await admin.keys.create({ name: 'moira agent', role: 'agent' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/moira`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'moira-tests', version: '1.0.0' });
  open.push(client);
  await client.connect(transport);
  return { client, admin };
}

async function answer(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0]?.text ?? '';
  return { text, isError: result.isError === true };
}

const ids = (text: string) => ({
  processId: text.match(/^Process ID: (\S+)$/m)?.[1] as string,
  attemptId: text.match(/^Step attempt ID: (\S+)$/m)?.[1] as string,
});

describe('the moira server', () => {
  it('is named moira and has exactly the tools start and step', async () => {
    const { client } = await moiraOverHttp();
    expect(client.getServerVersion()?.name).toBe('moira');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['start', 'step']);
    const start = tools[0]?.inputSchema as { properties: Record<string, unknown> };
    expect(Object.keys(start.properties)).toEqual([
      'action',
      'workflowId',
      'parentExecutionId',
      'startAttemptId',
      'skipNotificationCheck',
      'taskContext',
    ]);
    const step = tools[1]?.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(step.properties)).toEqual(['processId', 'attemptId', 'input', 'teleportTo']);
    expect(step.required).toEqual(['processId', 'attemptId']);
  });

  it('replays every call and payload written in seed 002, in order', async () => {
    const { client, admin } = await moiraOverHttp();
    const mcp__moira__start = (args: Record<string, unknown>) => answer(client, 'start', args);
    const mcp__moira__step = (args: Record<string, unknown>) => answer(client, 'step', args);

    // Start the workflow
    const prepared = await mcp__moira__start({ action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
    expect(prepared.isError).toBe(false);
    const startAttemptId = prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1] as string;
    expect(prepared.text).toBe(
      `Start attempt ID: ${startAttemptId}\nNext: start({ action: "execute", startAttemptId: "${startAttemptId}" })`,
    );
    const executed = await mcp__moira__start({ action: 'execute', startAttemptId: startAttemptId });
    const started = ids(executed.text);
    const processId = started.processId;
    let attemptId = started.attemptId;
    expect(executed.text).toContain('Todo List: checklist intake.');
    expect(executed.text).toContain(
      `First persist the actual task name (naming keeps this attempt): step({ processId: "${processId}", attemptId: "${attemptId}", input: { name: "…" } })`,
    );

    // Before completing checklist intake, the agent persists the actual task name (the guarded naming contract).
    const refusedIntake = await mcp__moira__step({
      processId,
      attemptId,
      input: { tasks: [{ action: 'x', expected_result: 'y' }], progress_checklist_outcome: 'x' },
    });
    expect(refusedIntake).toEqual({
      isError: true,
      text: `Error: run ${processId} has no name yet: persist the actual task name first with step({ processId: "${processId}", attemptId: "${attemptId}", input: { name: "…" } }) (naming keeps this attempt), then submit the checklist.`,
    });
    const named = await mcp__moira__step({ processId, attemptId, input: { name: 'Repair the service configuration' } });
    expect(ids(named.text)).toEqual({ processId, attemptId });

    // The first step obtains the tasks (this run's first task is the one the seed's revision keeps unchanged).
    const intake = await mcp__moira__step({
      processId,
      attemptId,
      input: {
        tasks: [
          { action: '…already executed, unchanged…', expected_result: '…' },
          { action: 'Restart the service', expected_result: 'The service answers on /healthz' },
        ],
        progress_checklist_outcome: 'Two ordered tasks are ready',
      },
    });
    expect(intake.text).toContain('Task 1/2: …already executed, unchanged…\nExpected result: …');
    ({ attemptId } = ids(intake.text));

    // Execution: step() with the local evidence and the bounded display outcome.
    const acknowledged = await mcp__moira__step({
      processId,
      attemptId,
      input: {
        evidence: 'The focused test command passed.',
        progress_execution_outcome: 'The affected test suite passed',
      },
    });
    expect(acknowledged.text).toContain('Task 2/2: Restart the service');
    // A retried acknowledgement answers the same; the cursor advanced exactly once.
    expect(
      await mcp__moira__step({
        processId,
        attemptId,
        input: { evidence: 'The focused test command passed.', progress_execution_outcome: 'The affected test suite passed' },
      }),
    ).toEqual(acknowledged);
    ({ attemptId } = ids(acknowledged.text));

    // Revising the checklist mid-run
    const revising = await mcp__moira__step({ processId, attemptId, teleportTo: 'teleport-revise-tasks' });
    expect(revising.text).toContain('Revise checklist: send the complete corrected checklist and the position to continue from');
    expect(revising.text).toContain('\nKeep the executed task 1 unchanged at its position. If the actual scope changes');
    const atRevision = await admin.runs.get({ runId: processId });
    expect(atRevision.blocks.work).toMatchObject({ role: 'revise', label: 'Revise checklist' });
    ({ attemptId } = ids(revising.text));
    const revised = await mcp__moira__step({
      processId,
      attemptId,
      input: {
        tasks: [
          { action: '…already executed, unchanged…', expected_result: '…' },
          {
            action: 'Repair the configuration the first task revealed as wrong',
            expected_result: 'The service starts with the corrected configuration',
          },
        ],
        resume_from_task: 2,
        progress_checklist_outcome: 'The corrected list contains the preserved prefix and two remaining tasks',
        progress_execution_outcome: 'The first task remains verified',
      },
    });
    expect(revised.isError).toBe(false);
    expect(revised.text).toContain(
      'Task 2/2: Repair the configuration the first task revealed as wrong\nExpected result: The service starts with the corrected configuration',
    );
    ({ attemptId } = ids(revised.text));

    // Supplying an existing checklist: a caller starts Todo as a child workflow with its ready task array in the task context.
    const childPrepared = await mcp__moira__start({
      action: 'prepare',
      workflowId: 'moira/todo-list',
      parentExecutionId: processId,
      taskContext: {
        tasks: [
          { action: 'Check the implemented requirement', expected_result: "The caller's domain report contains the verified result" },
        ],
      },
    });
    const childStart = childPrepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1] as string;
    const child = ids((await mcp__moira__start({ action: 'execute', startAttemptId: childStart })).text);
    await mcp__moira__step({ ...child, input: { name: 'Verify the implemented requirement' } });
    const childIntake = await mcp__moira__step({
      ...child,
      input: {
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
    expect(childIntake.text).toContain('Task 1/1: Check the implemented requirement');
    const childDone = await mcp__moira__step({
      ...ids(childIntake.text),
      input: { evidence: 'The report holds the verified result.', progress_execution_outcome: 'Requirement verified' },
    });
    expect(childDone.text).toBe(`Process ID: ${child.processId}\nAll tasks done (1/1). Todo List is complete; its terminal output is {}.`);
    // The Todo success connection: the parent's view shows it, without evidence.
    const parent = await admin.runs.get({ runId: processId });
    expect(parent.connections.map((c) => c.line)).toEqual([
      `Success connection: child run ${child.processId} "Verify the implemented requirement" reached its End node.`,
    ]);
    expect(JSON.stringify(parent)).not.toContain('The report holds the verified result.');

    // Completion contract: exhausting the ordered array completes the workflow with the empty terminal output {}.
    const done = await mcp__moira__step({
      processId,
      attemptId,
      input: { evidence: 'The service starts.', progress_execution_outcome: 'Configuration repaired' },
    });
    expect(done.text).toBe(`Process ID: ${processId}\nAll tasks done (2/2). Todo List is complete; its terminal output is {}.`);
    expect(await admin.runs.get({ runId: processId })).toMatchObject({
      status: 'completed',
      output: {},
      name: 'Repair the service configuration',
    });

    // Notifications: "Checklist ready" and "All tasks done", headed by the flow name and the run's task, for both runs.
    await waitFor(
      'four notifications',
      () => hook.accepted().filter((h) => [processId, child.processId].includes((h.body as { run: { id: string } }).run.id)).length === 4,
    );
    const ofParent = hook
      .accepted()
      .filter((h) => (h.body as { run: { id: string } }).run.id === processId)
      .map((h) => h.body as { title: string; heading: string });
    expect(ofParent.map((b) => [b.title, b.heading])).toEqual([
      ['Checklist ready', 'Todo List — Repair the service configuration'],
      ['All tasks done', 'Todo List — Repair the service configuration'],
    ]);
  });

  it('refuses a start without a notification channel with the instruction; skipNotificationCheck: true starts it', async () => {
    const { client, admin } = await moiraOverHttp({ channel: false });
    const before = await countRows(server, 'RunStart');
    expect(await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' })).toEqual({
      isError: true,
      text: 'Error: Todo List notifies when the checklist is ready and when all tasks are done, but this workspace has no notification channel. Ask an admin to add one, or prepare the start again with skipNotificationCheck: true.',
    });
    expect(await answer(client, 'start', { action: 'prepare', workflowId: 'moira/other', parentExecutionId: 'none' })).toEqual({
      isError: true,
      text: 'Error: invalid input: `workflowId` must be "moira/todo-list" (the workflow this server runs; got "moira/other").',
    });
    expect(await countRows(server, 'RunStart')).toBe(before);
    const prepared = await answer(client, 'start', {
      action: 'prepare',
      workflowId: 'moira/todo-list',
      parentExecutionId: 'none',
      skipNotificationCheck: true,
    });
    const startAttemptId = prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1] as string;
    const { processId, attemptId } = ids((await answer(client, 'start', { action: 'execute', startAttemptId })).text);
    expect((await admin.runs.get({ runId: processId })).attemptId).toBe(attemptId);
  });

  it('a step response that breaks the node contract is refused naming the item; nothing is recorded', async () => {
    const { client, admin } = await moiraOverHttp();
    const prepared = await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
    const started = await answer(client, 'start', {
      action: 'execute',
      startAttemptId: prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1],
    });
    const { processId, attemptId } = ids(started.text);
    await answer(client, 'step', { processId, attemptId, input: { name: 'Checked run' } });
    const { version } = await admin.runs.get({ runId: processId });
    const tasks = Array.from({ length: 8 }, (_, i) => ({ action: i === 7 ? '   ' : `Task ${i + 1}`, expected_result: 'Done' }));
    expect(await answer(client, 'step', { processId, attemptId, input: { tasks, progress_checklist_outcome: 'Eight' } })).toEqual({
      isError: true,
      text: 'Error: invalid input: `input.tasks[7].action` must be a non-empty string.',
    });
    expect(await answer(client, 'step', { processId, attemptId, teleportTo: 'teleport-revise-tasks', input: {} })).toEqual({
      isError: true,
      text: 'Error: invalid input: when teleporting, send no `input`; the revision node presents its own directive.',
    });
    expect(
      await answer(client, 'step', {
        processId,
        attemptId: 'att_unknown',
        input: { tasks: tasks.slice(0, 1), progress_checklist_outcome: 'One' },
      }),
    ).toEqual({
      isError: true,
      text: `Error: stale attempt: att_unknown is not the current step attempt of run ${processId}; the current one is ${attemptId}. Read the run and answer its current step.`,
    });
    expect(await admin.runs.get({ runId: processId })).toMatchObject({ status: 'intake', version, tasks: [] });
  });
  it('the naming call answers only the current step attempt: an unknown one is refused and no name is recorded', async () => {
    const { client, admin } = await moiraOverHttp();
    const prepared = await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
    const started = await answer(client, 'start', {
      action: 'execute',
      startAttemptId: prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1],
    });
    const { processId, attemptId } = ids(started.text);
    const before = await admin.runs.get({ runId: processId });
    expect(
      await answer(client, 'step', { processId, attemptId: 'att_never_issued', input: { name: 'Named with a wrong attempt' } }),
    ).toEqual({
      isError: true,
      text: `Error: stale attempt: att_never_issued is not the current step attempt of run ${processId}; the current one is ${attemptId}. Read the run and answer its current step.`,
    });
    expect(await admin.runs.get({ runId: processId })).toMatchObject({ name: null, version: before.version, attemptId });
    expect((await admin.runs.history({ runId: processId })).steps).toEqual([]);
    // With the current attempt the name is persisted, and the attempt is kept for the intake.
    const named = await answer(client, 'step', { processId, attemptId, input: { name: 'Named with the current attempt' } });
    expect(ids(named.text)).toEqual({ processId, attemptId });
    expect((await admin.runs.get({ runId: processId })).name).toBe('Named with the current attempt');
  });
});

describe('the step response written beside the ids', () => {
  it("takes the seed's payloads as step({ processId, attemptId, ...response }) too, the same as under `input`", async () => {
    const { client, admin } = await moiraOverHttp();
    const prepared = await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
    const started = ids(
      (await answer(client, 'start', { action: 'execute', startAttemptId: prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1] })).text,
    );
    const { processId } = started;
    let { attemptId } = started;
    expect((await answer(client, 'step', { processId, attemptId, name: 'Check the requirement' })).isError).toBe(false);
    expect((await admin.runs.get({ runId: processId })).name).toBe('Check the requirement');
    // A refusal names the field as it was sent, beside the ids; nothing is recorded.
    const named = await admin.runs.get({ runId: processId });
    expect(
      await answer(client, 'step', {
        processId,
        attemptId,
        tasks: [{ action: ' ', expected_result: 'a' }],
        progress_checklist_outcome: 'One',
      }),
    ).toEqual({ isError: true, text: 'Error: invalid input: `tasks[0].action` must be a non-empty string.' });
    expect(await admin.runs.get({ runId: processId })).toMatchObject({ version: named.version, status: 'intake', tasks: [] });
    const intake = await answer(client, 'step', {
      processId,
      attemptId,
      tasks: [{ action: 'Check the implemented requirement', expected_result: "The caller's domain report contains the verified result" }],
      progress_checklist_outcome: 'One ordered task is ready',
      execution_note: 'Check the implemented requirement',
    });
    expect(intake.text).toContain('Task 1/1: Check the implemented requirement');
    ({ attemptId } = ids(intake.text));
    // Both at once is refused, naming the field and the fix; nothing is recorded.
    const { version } = await admin.runs.get({ runId: processId });
    expect(await answer(client, 'step', { processId, attemptId, input: {}, evidence: 'The focused test command passed.' })).toEqual({
      isError: true,
      text: 'Error: invalid input: `evidence` belongs to the step response: send the response either in `input` or beside processId and attemptId, not both.',
    });
    expect((await admin.runs.get({ runId: processId })).version).toBe(version);
    const done = await answer(client, 'step', {
      processId,
      attemptId,
      evidence: 'The focused test command passed.',
      progress_execution_outcome: 'The affected test suite passed',
    });
    expect(done.text).toBe(`Process ID: ${processId}\nAll tasks done (1/1). Todo List is complete; its terminal output is {}.`);
  });
});

describe('the revision directive', () => {
  it('says plainly when no task was executed yet (never "Tasks 1-0"); a payload sent to the wrong node names the node and the fix', async () => {
    const { client, admin } = await moiraOverHttp();
    const prepared = await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
    const started = ids(
      (await answer(client, 'start', { action: 'execute', startAttemptId: prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1] })).text,
    );
    await answer(client, 'step', { ...started, input: { name: 'Two steps' } });
    const intake = await answer(client, 'step', {
      ...started,
      input: {
        tasks: [
          { action: 'A', expected_result: 'a' },
          { action: 'B', expected_result: 'b' },
        ],
        progress_checklist_outcome: 'Two',
      },
    });
    const atTask = ids(intake.text);
    const { version } = await admin.runs.get({ runId: started.processId });
    // A checklist sent to a task step is told the step's payload and the jump.
    const revision = {
      tasks: [{ action: 'A', expected_result: 'a' }],
      resume_from_task: 1,
      progress_checklist_outcome: 'One',
      progress_execution_outcome: 'None',
    };
    expect(await answer(client, 'step', { ...atTask, input: revision })).toEqual({
      isError: true,
      text: `Error: run ${started.processId} is at Task 1/2: this step takes step({ processId: "${started.processId}", attemptId: "${atTask.attemptId}", input: { evidence, progress_execution_outcome } }); to change the checklist, jump first with step({ processId: "${started.processId}", attemptId: "${atTask.attemptId}", teleportTo: "teleport-revise-tasks" }).`,
    });
    expect((await admin.runs.get({ runId: started.processId })).version).toBe(version);
    const jumped = await answer(client, 'step', { ...atTask, teleportTo: 'teleport-revise-tasks' });
    const { attemptId } = ids(jumped.text);
    expect(jumped.text.split('\n').slice(3)).toEqual([
      `No task was executed yet. If the actual scope changes, first update the name: step({ processId: "${started.processId}", attemptId: "${attemptId}", input: { name: "…" } }); ordering alone keeps it.`,
    ]);
    // An acknowledgement sent to the revision node is told the node and what it takes; nothing is recorded.
    const jumpedVersion = (await admin.runs.get({ runId: started.processId })).version;
    expect(
      await answer(client, 'step', { processId: started.processId, attemptId, input: { evidence: 'e', progress_execution_outcome: 'o' } }),
    ).toEqual({
      isError: true,
      text: `Error: run ${started.processId} is at its revision node (Revise checklist): send the complete corrected checklist with resume_from_task; tasks are acknowledged only outside a revision.`,
    });
    expect(await admin.runs.get({ runId: started.processId })).toMatchObject({ version: jumpedVersion, cursor: 1, revising: true });
  });
});

describe('the child task context as the ready task array itself', () => {
  it('start({ action: "prepare", parentExecutionId, taskContext: [tasks] }) reads it as { tasks }', async () => {
    const { client, admin } = await moiraOverHttp();
    const parentPrepared = await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
    const parent = ids(
      (await answer(client, 'start', { action: 'execute', startAttemptId: parentPrepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1] }))
        .text,
    );
    const ready = [
      { action: 'Check the implemented requirement', expected_result: "The caller's domain report contains the verified result" },
    ];
    const prepared = await answer(client, 'start', {
      action: 'prepare',
      workflowId: 'moira/todo-list',
      parentExecutionId: parent.processId,
      taskContext: ready,
    });
    expect(prepared.isError).toBe(false);
    const executed = await answer(client, 'start', {
      action: 'execute',
      startAttemptId: prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1],
    });
    expect(executed.text).toContain(`Your task context holds a ready checklist of 1 tasks: submit it unchanged`);
    expect(executed.text).toContain(JSON.stringify(ready));
    expect((await admin.runs.get({ runId: ids(executed.text).processId })).taskContext).toEqual({ tasks: ready });
  });
});

describe('stdio: agent-tasks mcp --moira', () => {
  it('the one command serves the moira tools over stdio too', async () => {
    const { adminKey } = await adminClient(server).workspaces.create({ name: 'moira cli' });
    const { token } = await createClient({ url: server.url, token: adminKey }).keys.create({ name: 'agent', role: 'agent' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [agentTasksBin, 'mcp', '--moira'],
      env: { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: token, PATH: process.env.PATH ?? '' },
      cwd: os.tmpdir(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'moira-cli-tests', version: '1.0.0' });
    open.push(client);
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('moira');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['start', 'step']);
    expect(await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' })).toEqual({
      isError: true,
      text: 'Error: Todo List notifies when the checklist is ready and when all tasks are done, but this workspace has no notification channel. Ask an admin to add one, or prepare the start again with skipNotificationCheck: true.',
    });
  });
});

describe('stdio: agent-tasks-mcp --moira', () => {
  it('serves the same moira tools from the same core', async () => {
    const { adminKey } = await adminClient(server).workspaces.create({ name: 'moira stdio' });
    const { token } = await createClient({ url: server.url, token: adminKey }).keys.create({ name: 'agent', role: 'agent' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...sourceNodeArgs, path.resolve(import.meta.dirname, '../packages/sdk/bin/agent-tasks-mcp.js'), '--moira'],
      env: { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: token },
      cwd: os.tmpdir(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'moira-stdio-tests', version: '1.0.0' });
    open.push(client);
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('moira');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['start', 'step']);
    const prepared = await answer(client, 'start', {
      action: 'prepare',
      workflowId: 'moira/todo-list',
      parentExecutionId: 'none',
      skipNotificationCheck: true,
    });
    const executed = await answer(client, 'start', {
      action: 'execute',
      startAttemptId: prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1],
    });
    expect(executed.text).toMatch(/^Process ID: [a-f0-9-]+\nStep attempt ID: [a-f0-9-]+\nTodo List: checklist intake\./);
  });
});
