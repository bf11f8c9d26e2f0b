// Black-box tests of the MCP servers with the MCP SDK's own client: the stdio server (packages/sdk/bin/agent-tasks-mcp.js,
// configured by AGENT_TASKS_URL and AGENT_TASKS_TOKEN) and the main server's streamable HTTP endpoint at /mcp (bearer
// auth). Each lists the tools, calls every one, returns refusals as tool errors with the seed's text, and the changes
// show through the tRPC API.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { toolKit } from '@agent-tasks/core';
import { jsonSchemaOf } from '@agent-tasks/schema';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { sourceNodeArgs } from './support/source-node.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const repoRoot = path.resolve(import.meta.dirname, '..');
// The SDK's bin, run from the workspace's sources (the built package's bin is run by sdk-package.test.ts).
const bin = [...sourceNodeArgs, path.join(repoRoot, 'packages/sdk/bin/agent-tasks-mcp.js')];

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
});

async function agentKey() {
  const { token } = await adminClient(server).keys.create({ name: 'mcp agent', role: 'agent' });
  return token;
}

/** The stdio server as an MCP client would start it: `node <bin>` with env, from another folder. */
async function stdioClient(token: string, args: string[] = bin) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: token },
    cwd: os.tmpdir(), // an MCP client starts it from anywhere
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'agent-tasks-tests', version: '1.0.0' });
  open.push(client);
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function httpClient(token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'agent-tasks-tests', version: '1.0.0' });
  open.push(client);
  await client.connect(transport);
  return { client, transport };
}

interface Answer {
  text: string;
  isError: boolean;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe('text');
  return { text: content[0]?.text ?? '', isError: result.isError === true };
}

const ok = (text: string | RegExp) =>
  typeof text === 'string' ? { text, isError: false } : { text: expect.stringMatching(text), isError: false };
const refusal = (text: string | RegExp) =>
  typeof text === 'string' ? { text, isError: true } : { text: expect.stringMatching(text), isError: true };

async function listsTheToolKit(client: Client) {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(toolKit.map((s) => s.name));
  for (const spec of toolKit) {
    const tool = tools.find((t) => t.name === spec.name);
    expect(tool?.description).toBe(spec.description);
    expect(tool?.inputSchema).toEqual(jsonSchemaOf(spec.input));
  }
}

const step = (n: number) => ({ action: `Do step ${n}`, expected_result: `Step ${n} is done` });

/** Calls every tool over MCP, successes and refusals; returns what it made for checking through the API. */
async function callEveryTool(client: Client) {
  const call = (name: string, args: Record<string, unknown>) => callTool(client, name, args);
  const listName = `mcp-${Math.random().toString(36).slice(2, 10)}`;

  expect(
    await call('todo_write', {
      todos: [
        { content: 'Run tests', status: 'in_progress' },
        { content: 'Ship', status: 'pending' },
      ],
    }),
  ).toEqual(ok('Updated todo list: 1 pending, 1 in progress, 0 completed'));
  expect(
    await call('todo_write', {
      todos: [
        { content: 'Run tests', status: 'pending' },
        { content: 'Run tests', status: 'pending' },
      ],
    }),
  ).toEqual(refusal('Error: invalid todos: duplicate content "Run tests"'));
  expect(await call('todo_write', { todos: [{ content: 'Run tests', status: 'pending', priority: 'high' }] })).toEqual(
    refusal('Error: invalid todo: unknown field `todos[0].priority`; an item is only its `content` and `status`.'),
  );

  const a = (await call('TaskCreate', { listName, subject: 'Build frontend' })).text.match(
    /^Created (T-\S+) \(#1\) \[pending\] Build frontend {2}blockedBy: \[\]$/,
  )?.[1] as string;
  const b = (await call('TaskCreate', { listName, subject: 'Build backend' })).text.match(/^Created (T-\S+) /)?.[1] as string;
  expect(a).toBeDefined();
  expect(await call('TaskCreate', { listName, subject: 'Run integration tests', blockedBy: [a, b] })).toEqual(
    ok(new RegExp(`^Created T-\\S+ \\(#3\\) \\[pending\\] Run integration tests {2}blockedBy: \\[${a}, ${b}\\]$`)),
  );
  expect(await call('TaskCreate', { listName, subject: '   ' })).toEqual(
    refusal('Error: invalid task: `subject` must be a non-empty string.'),
  );
  expect(JSON.parse((await call('TaskGet', { listName, id: a })).text)).toMatchObject({
    id: a,
    subject: 'Build frontend',
    status: 'pending',
  });
  expect(await call('TaskList', { listName, readyOnly: true })).toEqual(
    ok('#1 [pending] Build frontend     blockedBy: []\n#2 [pending] Build backend      blockedBy: []'),
  );
  expect(await call('TaskPlan', { listName })).toEqual(ok(new RegExp(`^Wave 1: ${a}, ${b}\\nWave 2: T-\\S+\\nCritical path \\(2\\): `)));
  expect(await call('TaskClaim', { listName, id: a })).toEqual(ok(new RegExp(`^Claimed ${a} \\[in_progress\\] Build frontend as \\S+$`)));
  expect(await call('TaskUpdate', { listName, id: b, status: 'completed' })).toEqual(
    ok(new RegExp(`^Updated ${b} \\[completed\\] Build backend \\(version \\d+\\)`)),
  );
  expect(await call('TaskUpdate', { listName, id: b, blockedBy: [b] })).toEqual(
    refusal(`Error: invalid dependency: ${b} cannot depend on itself.`),
  );

  expect(await call('checklist_prepare', { parentExecutionId: 'none' })).toEqual(refusal(/^Error: Todo List notifies/));
  const startAttemptId = (await call('checklist_prepare', { parentExecutionId: 'none', skipNotificationCheck: true })).text.match(
    /startAttemptId "([^"]+)"/,
  )?.[1];
  const started = (await call('checklist_execute', { startAttemptId })).text;
  const runId = started.match(/^Run (\S+) is at checklist intake/)?.[1] as string;
  expect(runId).toBeDefined();
  const attemptOf = (r: { text: string }) => r.text.match(/attemptId "([^"]+)"/)?.[1] as string;
  expect(await call('checklist_name', { runId, name: 'MCP run' })).toEqual(
    ok(/^Run \S+ is at checklist intake\.\nThen submit the checklist/),
  );
  const intake = await call('checklist_intake', { runId, tasks: [step(1), step(2)], progress_checklist_outcome: 'Two steps' });
  expect(intake).toEqual(ok(/^Task 1\/2: Do step 1\n/));
  expect(await call('checklist_report_blocker', { runId, blocker: 'Waiting' })).toEqual(
    ok(/^Blocker recorded on Task 1\/2; the cursor stays\./),
  );
  const second = await call('checklist_step', { runId, attemptId: attemptOf(intake), evidence: 'ok', progress_execution_outcome: 'ok' });
  expect(second).toEqual(ok(/^Task 2\/2: Do step 2\n/));
  expect(
    await call('checklist_step', { runId, attemptId: attemptOf(second), task: 1, evidence: 'ok', progress_execution_outcome: 'ok' }),
  ).toEqual(refusal('Error: stale step: task 1/2 was already acknowledged; the current task is 2/2.'));
  expect(await call('checklist_teleport', { runId, teleportTo: 'teleport-revise-tasks' })).toEqual(ok(/^Revise checklist: /));
  expect(
    await call('checklist_revise', {
      runId,
      tasks: [step(1), step(2), step(3)],
      resume_from_task: 2,
      progress_checklist_outcome: 'Three',
      progress_execution_outcome: 'One more',
    }),
  ).toEqual(ok(/^Task 2\/3: Do step 2\n/));
  expect(await call('checklist_get', { runId })).toEqual(ok(/^Task 2\/3: Do step 2\n/));
  expect(await call('checklist_step', { runId, attemptId: 'a', evidence: 'x'.repeat(501), progress_execution_outcome: 'ok' })).toEqual(
    refusal('Error: invalid input: `evidence` must be at most 500 characters (got 501).'),
  );
  expect(await call('nope', {})).toEqual(refusal(/^Error: unknown tool "nope"; available tools: todo_write, TaskCreate/));
  return { listName, a, b, runId };
}

describe('stdio MCP server (packages/sdk/bin/agent-tasks-mcp.js)', () => {
  it('with an agent key: opens its own session, lists the tool kit, calls every tool, and the changes show through the API', async () => {
    const { client, stderr } = await stdioClient(await agentKey());
    expect(client.getServerVersion()?.name).toBe('agent-tasks');
    await listsTheToolKit(client);
    const { listName, a, b, runId } = await callEveryTool(client);

    const sessionId = stderr().match(/opened session (\S+)/)?.[1] as string;
    expect(sessionId, stderr()).toBeDefined();
    const admin = adminClient(server);
    expect(await admin.todos.get({ sessionId })).toMatchObject({
      revision: 1,
      items: [
        { content: 'Run tests', status: 'in_progress' },
        { content: 'Ship', status: 'pending' },
      ],
    });
    expect(await admin.tasks.get({ listName, id: a })).toMatchObject({ status: 'in_progress', owner: sessionId });
    expect((await admin.tasks.get({ listName, id: b })).status).toBe('completed');
    expect(await admin.runs.get({ runId })).toMatchObject({ sessionId, cursor: 2, total: 3, status: 'running', blocker: null });
  });

  it('with a session token: acts as that session', async () => {
    const s = await sessionClient(server, 'stdio session');
    const { client, stderr } = await stdioClient(s.token);
    expect(await callTool(client, 'todo_write', { todos: [{ content: 'From MCP', status: 'pending' }] })).toEqual(
      ok('Updated todo list: 1 pending, 0 in progress, 0 completed'),
    );
    expect(stderr()).not.toContain('opened session');
    expect((await s.client.todos.get()).items).toEqual([{ content: 'From MCP', status: 'pending' }]);
  });

  it('with a viewer key: read-only, no session (as over HTTP)', async () => {
    const { token } = await adminClient(server).keys.create({ name: 'stdio viewer', role: 'viewer' });
    const { client, stderr } = await stdioClient(token);
    await listsTheToolKit(client);
    expect(await callTool(client, 'TaskPlan', { listName: 'nothing-here' })).toEqual(
      refusal(/^Error: task list "nothing-here" does not exist; /),
    );
    expect(await callTool(client, 'TaskCreate', { subject: 'Sneak in' })).toEqual(
      refusal('Error: forbidden: viewer keys are read-only (this key is viewer).'),
    );
    expect(stderr()).toContain('viewer key: read-only, no session');
  });

  it('refuses to start without AGENT_TASKS_TOKEN, or with a key it cannot open a session with', async () => {
    const run = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const { AGENT_TASKS_TOKEN: _t, AGENT_TASKS_URL: _u, ...rest } = process.env;
        const child = spawn(process.execPath, bin, { env: { ...rest, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('exit', (code) => resolve({ code, stderr }));
      });
    const [missing, bad] = await Promise.all([
      run({ AGENT_TASKS_URL: server.url }),
      run({ AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: 'atk_not_a_key' }),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('set AGENT_TASKS_TOKEN');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/could not open a session: Error: /);
  });
});

describe('`agent-tasks mcp` (the server command, built)', () => {
  it('serves the same tool kit over stdio as its own session, and the changes show through the API', async () => {
    const command = [path.join(repoRoot, 'apps/server/bin/agent-tasks.mjs'), 'mcp', '--title', 'from the command'];
    const { client, stderr } = await stdioClient(await agentKey(), command);
    await listsTheToolKit(client);
    expect(await callTool(client, 'todo_write', { todos: [{ content: 'Via the command', status: 'pending' }] })).toEqual(
      ok('Updated todo list: 1 pending, 0 in progress, 0 completed'),
    );
    const sessionId = stderr().match(/opened session (\S+)/)?.[1] as string;
    expect(sessionId, stderr()).toBeDefined();
    const admin = adminClient(server);
    expect((await admin.sessions.get({ sessionId })).session.title).toBe('from the command');
    expect((await admin.todos.get({ sessionId })).items).toEqual([{ content: 'Via the command', status: 'pending' }]);
  });
});

describe('streamable HTTP MCP endpoint (/mcp)', () => {
  it('with an agent key: a session of its own per MCP session; lists the tool kit, calls every tool, and the changes show through the API', async () => {
    const admin = adminClient(server);
    const before = new Set((await admin.sessions.list()).sessions.map((s) => s.id));
    const { client } = await httpClient(await agentKey());
    await listsTheToolKit(client);
    const { listName, a, runId } = await callEveryTool(client);

    const opened = (await admin.sessions.list()).sessions.filter((s) => !before.has(s.id));
    expect(opened.map((s) => s.title)).toEqual(['MCP session']);
    const sessionId = opened[0]?.id as string;
    expect((await admin.todos.get({ sessionId })).revision).toBe(1);
    expect((await admin.tasks.get({ listName, id: a })).owner).toBe(sessionId);
    expect(await admin.runs.get({ runId })).toMatchObject({ sessionId, cursor: 2, total: 3 });
  });

  it('with a session token: acts as that session', async () => {
    const s = await sessionClient(server, 'http session');
    const { client } = await httpClient(s.token);
    expect(await callTool(client, 'todo_write', { todos: [{ content: 'Over HTTP', status: 'in_progress' }] })).toEqual(
      ok('Updated todo list: 0 pending, 1 in progress, 0 completed'),
    );
    expect(
      await callTool(client, 'todo_write', {
        todos: [
          { content: 'Over HTTP', status: 'in_progress' },
          { content: 'Also', status: 'in_progress' },
        ],
      }),
    ).toEqual(refusal(/^Error: /));
    expect((await s.client.todos.get()).items).toEqual([{ content: 'Over HTTP', status: 'in_progress' }]);
  });

  it("todo_write as an agent runtime calls it: seed 000's texts word for word, refusals record nothing, one list per MCP session", async () => {
    const admin = adminClient(server);
    const before = new Set((await admin.sessions.list()).sessions.map((s) => s.id));
    const token = await agentKey();
    const { client: first } = await httpClient(token);
    const { client: second } = await httpClient(token);
    const item = (content: string, status: string) => ({ content, status });
    expect(
      await callTool(first, 'todo_write', {
        todos: [item(' Read the code ', 'completed'), item('Write the fix', 'in_progress'), item('Run tests', 'pending')],
      }),
    ).toEqual(ok('Updated todo list: 1 pending, 1 in progress, 1 completed'));
    const [sessionId] = (await admin.sessions.list()).sessions.filter((s) => !before.has(s.id)).map((s) => s.id);
    const updates = () => countRows(server, 'TodoUpdate', '"sessionId" = ?', sessionId);
    expect(await updates()).toBe(1);

    const three = [item('A', 'in_progress'), item('B', 'in_progress'), item('C', 'in_progress')];
    expect(await callTool(first, 'todo_write', { todos: three })).toEqual(
      refusal('Error: invalid todos: at most one task may be in_progress (got 3)'),
    );
    expect(await callTool(first, 'todo_write', { todos: [item('Run tests', 'pending'), item('  Run tests ', 'completed')] })).toEqual(
      refusal('Error: invalid todos: duplicate content "Run tests"'),
    );
    const empty = await callTool(first, 'todo_write', { todos: [item('Run tests', 'pending'), item(' \t ', 'pending')] });
    expect(empty.isError).toBe(true);
    expect(empty.text.startsWith('Error: invalid todo: `content` must be a non-empty string.')).toBe(true);
    expect(await updates()).toBe(1);

    // Another MCP session is another chat: its own list, and the first one's is untouched.
    expect(await callTool(second, 'todo_write', { todos: [item('Other chat', 'pending')] })).toEqual(
      ok('Updated todo list: 1 pending, 0 in progress, 0 completed'),
    );
    expect((await admin.todos.get({ sessionId })).items).toEqual([
      { content: 'Read the code', status: 'completed' },
      { content: 'Write the fix', status: 'in_progress' },
      { content: 'Run tests', status: 'pending' },
    ]);
  });

  it('tool arguments pass the same input guard as tRPC: reserved keys, deep nesting, arguments that are no object, malformed messages; nothing recorded', async () => {
    const s = await sessionClient(server, 'hostile mcp');
    const { client, transport } = await httpClient(s.token);
    const rows = async () => ({ tasks: await countRows(server, 'Task'), todos: await countRows(server, 'TodoUpdate') });
    const before = await rows();
    // Arguments as JSON.parse makes them: `__proto__` is an own key, sent as written (the SDK's contract dropped it).
    const cases: [string, string, string][] = [
      ['TaskCreate', '{"subject":"Polluted","metadata":{"__proto__":{"admin":true}}}', '`metadata.__proto__`: `__proto__`'],
      ['TaskCreate', '{"subject":"Polluted","__proto__":{"admin":true}}', '`__proto__`: `__proto__`'],
      ['todo_write', '{"todos":[{"content":"x","status":"pending","__proto__":{}}]}', '`todos[0].__proto__`: `__proto__`'],
      ['TaskCreate', '{"subject":"Polluted","metadata":{"prototype":1}}', '`metadata.prototype`: `prototype`'],
    ];
    for (const [name, json, where] of cases) {
      expect(await callTool(client, name, JSON.parse(json) as Record<string, unknown>), json).toEqual(
        refusal(`Error: invalid input: ${where} is a reserved name and cannot be a key.`),
      );
    }
    const deep = JSON.parse(`{"todos":${'['.repeat(1_000)}${']'.repeat(1_000)}}`) as Record<string, unknown>;
    expect(await callTool(client, 'todo_write', deep)).toEqual(
      refusal(`Error: invalid input: \`todos${'[0]'.repeat(31)}\` nests deeper than 32 levels; flatten it.`),
    );
    // Arguments that are no object: the tool's error, not the MCP SDK's contract dump.
    const rawPost = (message: unknown) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${s.token}`,
          'mcp-session-id': transport.sessionId as string,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify(message),
      });
    const raw = await rawPost({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'TaskList', arguments: ['x'] } });
    expect(raw.status).toBe(200);
    expect(await raw.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      result: {
        content: [{ type: 'text', text: "Error: invalid input: a tool's arguments must be a JSON object (got an array)." }],
        isError: true,
      },
    });
    // Malformed messages: an Error: text, not the SDK's contract dump.
    for (const [message, text] of [
      [
        { jsonrpc: '2.0', id: 10, method: 'tools/call', params: {} },
        'tools/call takes params { name, arguments? }, with `name` a tool name.',
      ],
      [{ jsonrpc: '2.0', id: 11, method: 'tools/call' }, 'tools/call takes params { name, arguments? }, with `name` a tool name.'],
      [{ jsonrpc: '1.0', id: 12, method: 'tools/list' }, 'not a JSON-RPC 2.0 message ({ "jsonrpc": "2.0", "method", "params"?, "id"? }).'],
    ] as const) {
      const answer = await rawPost(message);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32602, message: `Error: invalid request: ${text}` },
      });
    }
    expect(await rows()).toEqual(before);
    expect(await callTool(client, 'TaskCreate', { subject: 'Clean', metadata: { toString: 1 } })).toEqual(ok(/^Created /));
  });

  it('a viewer key can list the tools, and its writes come back as tool errors', async () => {
    const { token } = await adminClient(server).keys.create({ name: 'mcp viewer', role: 'viewer' });
    const { client } = await httpClient(token);
    await listsTheToolKit(client);
    expect(await callTool(client, 'TaskCreate', { subject: 'Sneak in' })).toEqual(
      refusal('Error: forbidden: viewer keys are read-only (this key is viewer).'),
    );
  });

  it('needs the bearer key: none or an unknown one is refused (401); another key or session cannot use an MCP session (403); an unknown MCP session is a 404', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const post = (headers: Record<string, string>, body: unknown = initialize) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer atk_unknown' })).status).toBe(401);
    await expect(httpClient('atk_unknown')).rejects.toThrow();

    const { transport } = await httpClient(await agentKey());
    const mcpSessionId = transport.sessionId as string;
    expect(mcpSessionId).toBeTruthy();
    const { token: otherKey } = await adminClient(server).keys.create({ name: 'other agent', role: 'agent' });
    const stolen = await post(
      { authorization: `Bearer ${otherKey}`, 'mcp-session-id': mcpSessionId, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    );
    expect(stolen.status).toBe(403);
    const noSession = await post({ authorization: `Bearer ${otherKey}` }, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(noSession.status).toBe(400);
    // an MCP session id the server does not know (closed, or lost in a restart): 404, so a client initializes anew
    const unknown = await post(
      { authorization: `Bearer ${otherKey}`, 'mcp-session-id': crypto.randomUUID() },
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
    );
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/^Error: MCP session not found/);
    // a stale id on an initialize is no obstacle: a new MCP session starts
    const again = await post({ authorization: `Bearer ${otherKey}`, 'mcp-session-id': crypto.randomUUID() });
    expect(again.status).toBe(200);
    expect(again.headers.get('mcp-session-id')).toBeTruthy();

    // two sessions of one key: one cannot use the other's MCP session
    const parent = await sessionClient(server, 'parent');
    const sub = await parent.client.sessions.open({ title: 'subagent' });
    const { transport: parentTransport } = await httpClient(parent.token);
    const crossed = await post(
      { authorization: `Bearer ${sub.token}`, 'mcp-session-id': parentTransport.sessionId as string, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 5, method: 'tools/list' },
    );
    expect(crossed.status).toBe(403);

    // an initialize request is read up to 4 MB
    const huge = await post(
      { authorization: `Bearer ${otherKey}` },
      { ...initialize, params: { ...initialize.params, padding: 'x'.repeat(4 * 1024 * 1024) } },
    );
    expect(huge.status).toBe(413);
  });
});
