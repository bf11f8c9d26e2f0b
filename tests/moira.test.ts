// Black-box tests of the Moira-compatible MCP server `moira` (tools start and step) over streamable HTTP at /mcp/moira
// and over stdio (`agent-tasks-mcp --moira`): every call and payload written in seed 002 is replayed, in order, verbatim.
import { readFileSync } from 'node:fs';
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
  return { client: await moiraConnection(token), admin, token };
}

/** A new MCP connection to the `moira` server with this key (an agent restarted: same key, new connection). */
async function moiraConnection(token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/moira`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'moira-tests', version: '1.0.0' });
  open.push(client);
  await client.connect(transport);
  return client;
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

/** prepare and execute over `client`: the run's ids, as the answer to execute shows them. */
async function executedOver(client: Client) {
  const prepared = await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
  const startAttemptId = prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1];
  return ids((await answer(client, 'start', { action: 'execute', startAttemptId })).text);
}

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
      ['Checklist ready', 'Todo List · Repair the service configuration'],
      ['All tasks done', 'Todo List · Repair the service configuration'],
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
    const { processId, attemptId } = await executedOver(client);
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
  it("a task acknowledgement is the seed's payload, its position only an optional guard; another field is refused by its path", async () => {
    const { client, admin } = await moiraOverHttp();
    const tasks = [1, 2].map((n) => ({ action: `Task ${n}`, expected_result: 'Done' }));
    const { processId, attemptId } = await startedOver(client, 'Guarded steps', tasks);
    const { version } = await admin.runs.get({ runId: processId });
    const ack = { evidence: 'The focused test command passed.', progress_execution_outcome: 'The affected test suite passed' };
    expect(await answer(client, 'step', { processId, attemptId, input: { ...ack, cursor: 1 } })).toEqual({
      isError: true,
      text: 'Error: invalid input: unknown field `input.cursor`.',
    });
    expect(await answer(client, 'step', { processId, attemptId, ...ack, cursor: 1 })).toEqual({
      isError: true,
      text: 'Error: invalid input: unknown field `cursor`.',
    });
    expect(await answer(client, 'step', { processId, attemptId, input: { ...ack, task: 2 } })).toEqual({
      isError: true,
      text: 'Error: stale step: task 2/2 is not current; the current task is 1/2.',
    });
    expect(await answer(client, 'step', { processId, attemptId, input: 'The test passed' })).toEqual({
      isError: true,
      text: 'Error: invalid input: `input` must be an object: the step response.',
    });
    expect(await admin.runs.get({ runId: processId })).toMatchObject({ version, cursor: 1, attemptId });
    // The position of the current task, as a guard, is taken.
    expect((await answer(client, 'step', { processId, attemptId, input: { ...ack, task: 1 } })).text).toMatch(
      /^Process ID: .*\n[^]*Task 2\/2/,
    );
  });

  it('the naming call answers only the current step attempt: an unknown one is refused and no name is recorded', async () => {
    const { client, admin } = await moiraOverHttp();
    const { processId, attemptId } = await executedOver(client);
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
    const started = await executedOver(client);
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
    const started = await executedOver(client);
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

/** Facts about Moira's clients and texts, recorded from its public tests. */
const moiraFacts = JSON.parse(readFileSync(new URL('./fixtures/moira-clients.json', import.meta.url), 'utf8')) as {
  idPatterns: { startAttemptId: string; processId: string; stepAttemptId: string; stepAttemptIdFlags: string };
  notifications: {
    taskTitle: string;
    tasks: { action: string; expected_result: string }[];
    ready: { title: string; block: string };
    done: { title: string; block: string };
  };
};

/** The ids as Moira's own clients read them from an answer (their patterns, recorded in fixtures/moira-clients.json). */
const moiraIds = (text: string) => ({
  startAttemptId: new RegExp(moiraFacts.idPatterns.startAttemptId).exec(text)?.[1],
  processId: new RegExp(moiraFacts.idPatterns.processId).exec(text)?.[1],
  attemptId: new RegExp(moiraFacts.idPatterns.stepAttemptId, moiraFacts.idPatterns.stepAttemptIdFlags).exec(text)?.[1],
});

/** prepare and execute over `client`, then name the run and submit `tasks`; answers the ids and the intake's answer. */
async function startedOver(client: Client, name: string, tasks: { action: string; expected_result: string }[]) {
  const prepared = await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
  const startAttemptId = moiraIds(prepared.text).startAttemptId as string;
  const started = moiraIds((await answer(client, 'start', { action: 'execute', startAttemptId })).text);
  const processId = started.processId as string;
  await answer(client, 'step', { processId, attemptId: started.attemptId, input: { name } });
  const intake = await answer(client, 'step', {
    processId,
    attemptId: started.attemptId,
    input: { tasks, progress_checklist_outcome: `${tasks.length} ordered tasks` },
  });
  expect(intake.isError).toBe(false);
  return { processId, attemptId: moiraIds(intake.text).attemptId as string, intake };
}

/** What a write would change in a run's view (its live task times move on their own). */
const recorded = (view: {
  version: number;
  updatedAt: string;
  attemptId: string | null;
  cursor: number;
  status: string;
  name: string | null;
}) => ({
  version: view.version,
  updatedAt: view.updatedAt,
  attemptId: view.attemptId,
  cursor: view.cursor,
  status: view.status,
  name: view.name,
});

const ack = (n: number) => ({ evidence: `Checked task ${n}`, progress_execution_outcome: `Task ${n} verified` });

describe("Moira's clients", () => {
  it("read every id with Moira's own patterns: hex digits and dashes only, the whole id, accepted back as given", async () => {
    const { client, admin } = await moiraOverHttp();
    const prepared = await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
    const { startAttemptId } = moiraIds(prepared.text);
    // The whole id after the label, as the line writes it (a pattern that stops early would capture a prefix).
    expect(startAttemptId).toBe(prepared.text.match(/^Start attempt ID: (\S+)$/m)?.[1]);
    expect(startAttemptId).toMatch(/^[a-f0-9-]+$/);
    const executed = await answer(client, 'start', { action: 'execute', startAttemptId });
    const read = moiraIds(executed.text);
    expect(read.processId).toMatch(/^[a-f0-9-]+$/);
    expect(read.attemptId).toMatch(/^[a-f0-9-]+$/);
    expect({ processId: read.processId, attemptId: read.attemptId }).toEqual(ids(executed.text));
    // Accepted back exactly as read: naming, intake and a step, then the next attempt read the same way.
    const named = await answer(client, 'step', { processId: read.processId, attemptId: read.attemptId, input: { name: 'Read the ids' } });
    expect(named.isError).toBe(false);
    const intake = await answer(client, 'step', {
      processId: read.processId,
      attemptId: read.attemptId,
      input: { tasks: [{ action: 'Only task', expected_result: 'Done' }], progress_checklist_outcome: 'One task' },
    });
    const next = moiraIds(intake.text);
    expect(next.attemptId).toMatch(/^[a-f0-9-]+$/);
    expect(next.attemptId).not.toBe(read.attemptId);
    const done = await answer(client, 'step', { processId: read.processId, attemptId: next.attemptId, input: ack(1) });
    expect(done.text).toBe(`Process ID: ${read.processId}\nAll tasks done (1/1). Todo List is complete; its terminal output is {}.`);
    expect((await admin.runs.get({ runId: read.processId as string })).status).toBe('completed');
  });

  it('a restarted agent (same key, a new connection) finishes its run, and "All tasks done" is sent', async () => {
    const { client, admin, token } = await moiraOverHttp();
    const tasks = [
      { action: 'Before the restart', expected_result: 'Done' },
      { action: 'After the restart', expected_result: 'Done' },
    ];
    const run = await startedOver(client, 'Survive an agent restart', tasks);
    const first = await answer(client, 'step', { processId: run.processId, attemptId: run.attemptId, input: ack(1) });
    expect(first.text).toContain('Task 2/2: After the restart');
    await client.close();

    const restarted = await moiraConnection(token);
    const done = await answer(restarted, 'step', { processId: run.processId, attemptId: moiraIds(first.text).attemptId, input: ack(2) });
    expect(done).toEqual({
      isError: false,
      text: `Process ID: ${run.processId}\nAll tasks done (2/2). Todo List is complete; its terminal output is {}.`,
    });
    await waitFor('"All tasks done" sent', () =>
      hook.accepted().some((h) => {
        const body = h.body as { kind: string; run: { id: string } };
        return body.run.id === run.processId && body.kind === 'all_tasks_done';
      }),
    );
    expect((await admin.runs.history({ runId: run.processId })).steps.map((s) => s.kind)).toEqual(['name', 'intake', 'step', 'step']);
  });

  it('another key of the workspace cannot drive the run: refused, nothing recorded', async () => {
    const { client, admin } = await moiraOverHttp();
    const run = await startedOver(client, 'Mine alone', [{ action: 'Only task', expected_result: 'Done' }]);
    const { token: other } = await admin.keys.create({ name: 'another agent', role: 'agent' });
    const intruder = await moiraConnection(other);
    const before = await admin.runs.get({ runId: run.processId });
    expect(await answer(intruder, 'step', { processId: run.processId, attemptId: run.attemptId, input: ack(1) })).toEqual({
      isError: true,
      text: `Error: forbidden: run ${run.processId} belongs to another agent.`,
    });
    expect(recorded(await admin.runs.get({ runId: run.processId }))).toEqual(recorded(before));
  });

  it('a retried attempt answers exactly its first answer, even after the run moved on; another input with it is a conflict', async () => {
    const { client, admin } = await moiraOverHttp();
    const tasks = [1, 2, 3].map((n) => ({ action: `Task ${n}`, expected_result: `Result ${n}` }));
    const run = await startedOver(client, 'Replay safely', tasks);
    const firstAttempt = run.attemptId;
    const first = await answer(client, 'step', { processId: run.processId, attemptId: firstAttempt, input: ack(1) });
    expect(first.text).toContain('Task 2/3: Task 2');
    // The run moves on.
    const second = await answer(client, 'step', { processId: run.processId, attemptId: moiraIds(first.text).attemptId, input: ack(2) });
    expect(second.text).toContain('Task 3/3: Task 3');
    const moved = await admin.runs.get({ runId: run.processId });
    const history = await admin.runs.history({ runId: run.processId });

    // The lost answer of the first attempt, asked again: the same text, byte for byte; nothing changes.
    expect(await answer(client, 'step', { processId: run.processId, attemptId: firstAttempt, input: ack(1) })).toEqual(first);
    expect(await answer(client, 'step', { processId: run.processId, attemptId: firstAttempt, ...ack(1) })).toEqual(first);

    // The same attempt with another input: a conflict, and nothing recorded.
    const conflict = await answer(client, 'step', {
      processId: run.processId,
      attemptId: firstAttempt,
      input: { evidence: 'Different evidence', progress_execution_outcome: 'Task 1 verified' },
    });
    expect(conflict).toEqual({
      isError: true,
      text: `Error: conflict: attempt ${firstAttempt} of run ${run.processId} was already answered (Task 1/3) with another step response; a retried attempt answers only exactly the same response. Nothing was recorded. Read the run and answer its current step (attempt ${moved.attemptId}).`,
    });
    expect(recorded(await admin.runs.get({ runId: run.processId }))).toEqual(recorded(moved));
    expect(await admin.runs.history({ runId: run.processId })).toEqual(history);
  });

  it("a teleport's attempt reused for a step response is a conflict; the teleport itself replays", async () => {
    const { client, admin } = await moiraOverHttp();
    const run = await startedOver(client, 'Jump once', [
      { action: 'Task 1', expected_result: 'Result 1' },
      { action: 'Task 2', expected_result: 'Result 2' },
    ]);
    const jumped = await answer(client, 'step', {
      processId: run.processId,
      attemptId: run.attemptId,
      teleportTo: 'teleport-revise-tasks',
    });
    expect(jumped.text).toContain('Revise checklist');
    const atRevision = await admin.runs.get({ runId: run.processId });
    const conflict = await answer(client, 'step', { processId: run.processId, attemptId: run.attemptId, input: ack(1) });
    expect(conflict).toEqual({
      isError: true,
      text: `Error: conflict: attempt ${run.attemptId} of run ${run.processId} was already answered (Revise checklist) with another step response; a retried attempt answers only exactly the same response. Nothing was recorded. Read the run and answer its current step (attempt ${atRevision.attemptId}).`,
    });
    expect(recorded(await admin.runs.get({ runId: run.processId }))).toEqual(recorded(atRevision));
    expect(
      await answer(client, 'step', { processId: run.processId, attemptId: run.attemptId, teleportTo: 'teleport-revise-tasks' }),
    ).toEqual(jumped);
  });

  it('naming a run with the name it already has (after trimming) records nothing: no version, no history entry', async () => {
    const { client, admin } = await moiraOverHttp();
    const prepared = await answer(client, 'start', { action: 'prepare', workflowId: 'moira/todo-list', parentExecutionId: 'none' });
    const started = moiraIds(
      (await answer(client, 'start', { action: 'execute', startAttemptId: moiraIds(prepared.text).startAttemptId })).text,
    );
    const processId = started.processId as string;
    const named = await answer(client, 'step', { processId, attemptId: started.attemptId, input: { name: 'Keep this name' } });
    expect(named.isError).toBe(false);
    const before = await admin.runs.get({ runId: processId });
    const history = await admin.runs.history({ runId: processId });
    expect(history.steps.map((s) => s.kind)).toEqual(['name']);
    const again = await answer(client, 'step', { processId, attemptId: started.attemptId, input: { name: '  Keep this name  ' } });
    expect(again).toEqual(named);
    expect(recorded(await admin.runs.get({ runId: processId }))).toEqual(recorded(before));
    expect(await admin.runs.history({ runId: processId })).toEqual(history);
  });

  it('the two notifications read as Moira writes them: the linked heading, then the progress line and the marked checklist', async () => {
    const { client } = await moiraOverHttp();
    const facts = moiraFacts.notifications;
    const run = await startedOver(client, facts.taskTitle, facts.tasks);
    let attemptId = run.attemptId;
    for (const n of [1, 2, 3])
      attemptId = moiraIds((await answer(client, 'step', { processId: run.processId, attemptId, input: ack(n) })).text).attemptId ?? '';
    const texts = await waitFor('both notifications', () => {
      const bodies = hook
        .accepted()
        .map((h) => h.body as { kind: string; run: { id: string }; text: string })
        .filter((b) => b.run.id === run.processId);
      return bodies.length === 2 ? bodies.map((b) => b.text) : null;
    });
    const heading = `[Todo List · ${facts.taskTitle}](${server.url}/runs/${run.processId})`;
    const [ready, done] = texts as [string, string];
    expect(ready.startsWith(`${heading}\n`)).toBe(true);
    expect(done.startsWith(`${heading}\n`)).toBe(true);
    expect(ready).toContain(facts.ready.title);
    expect(ready).toContain(facts.ready.block);
    expect(done).toContain(facts.done.title);
    expect(done).toContain(facts.done.block);
    expect(ready).toBe([heading, facts.ready.title, facts.ready.block].join('\n'));
    expect(done).toBe([heading, facts.done.title, facts.done.block].join('\n'));
  });
});
