// Black-box tests of the SDK tool kit against the real server: every tool through every shape (generic handlers,
// OpenAI function tools, Anthropic tool definitions, each call dispatched from a model's tool call), the answer texts a
// model reads, refusals as `Error: …` text, and the runnable agent-loop example.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { toolKit } from '@agent-tasks/core';
import { type AgentTasksClient, agentTools, anthropicTools, createClient, createDispatcher, openAITools } from '@agent-tasks/sdk';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, keyClient, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const repoRoot = path.resolve(import.meta.dirname, '..');
const ajv = new Ajv2020({ strict: true });
const ALL_TOOLS = toolKit.map((s) => s.name);

/** Calls a tool as a model would in one shape; answers the text the model reads back. */
type Caller = (name: string, args: Record<string, unknown>) => Promise<string>;

interface Shape {
  caller(client: AgentTasksClient, called: Set<string>): Caller;
}

/** The arguments a model sends follow the schema the shape advertised (the scenario only sends well-formed calls). */
function followsSchema(schema: Record<string, unknown>, args: unknown) {
  const ok = ajv.validate(schema, args);
  expect(ok, ajv.errorsText(ajv.errors)).toBe(true);
}

const shapes: Record<'generic' | 'openai' | 'anthropic', Shape> = {
  generic: {
    caller(client, called) {
      const tools = agentTools(client);
      return async (name, args) => {
        const tool = tools.find((t) => t.name === name);
        if (!tool) throw new Error(`no tool ${name}`);
        followsSchema(tool.inputSchema, args);
        called.add(name);
        return tool.handler(args);
      };
    },
  },
  openai: {
    // Chat Completions: `tools: openAITools(tools)`; a tool call arrives as { function: { name, arguments: "<JSON text>" } }
    caller(client, called) {
      const tools = agentTools(client);
      const definitions = openAITools(tools);
      const dispatch = createDispatcher(tools);
      return async (name, args) => {
        const definition = definitions.find((d) => d.type === 'function' && d.function.name === name);
        if (!definition) throw new Error(`no OpenAI tool ${name}`);
        followsSchema(definition.function.parameters, args);
        called.add(name);
        const toolCall = {
          id: `call_${called.size}`,
          type: 'function' as const,
          function: { name: definition.function.name, arguments: JSON.stringify(args) },
        };
        return dispatch({ name: toolCall.function.name, arguments: toolCall.function.arguments });
      };
    },
  },
  anthropic: {
    // Messages API: `tools: anthropicTools(tools)`; a tool call arrives as a content block { type: 'tool_use', name, input: {…} }
    caller(client, called) {
      const tools = agentTools(client);
      const definitions = anthropicTools(tools);
      const dispatch = createDispatcher(tools);
      return async (name, args) => {
        const definition = definitions.find((d) => d.name === name);
        if (!definition) throw new Error(`no Anthropic tool ${name}`);
        followsSchema(definition.input_schema, args);
        called.add(name);
        const block = {
          type: 'tool_use' as const,
          id: `toolu_${called.size}`,
          name: definition.name,
          input: JSON.parse(JSON.stringify(args)) as Record<string, unknown>,
        };
        return dispatch({ name: block.name, arguments: block.input });
      };
    },
  },
};

const step = (n: number) => ({ action: `Do step ${n}`, expected_result: `Step ${n} is done` });

/** Walks every tool once or more — successes and refusals — asserting each answer text; returns what it made. */
async function walkEveryTool(call: Caller, agentName: string) {
  const listName = `kit-${Math.random().toString(36).slice(2, 10)}`;

  // todo list
  expect(
    await call('todo_write', {
      todos: [
        { content: 'Run tests', status: 'in_progress' },
        { content: 'Ship', status: 'pending' },
      ],
    }),
  ).toBe('Updated todo list: 1 pending, 1 in progress, 0 completed');
  expect(
    await call('todo_write', {
      todos: [
        { content: 'Run tests', status: 'pending' },
        { content: 'Run tests', status: 'completed' },
      ],
    }),
  ).toBe('Error: invalid todos: duplicate content "Run tests"');

  // task graph: two parallel branches joined by a third task
  const created = (text: string, subject: string) => {
    const id = text.match(new RegExp(`^Created (T-\\S+) \\(#\\d+\\) \\[pending\\] ${subject} {2}blockedBy: \\[\\]$`))?.[1];
    expect(id, text).toBeDefined();
    return id as string;
  };
  const a = created(await call('TaskCreate', { listName, subject: 'Build frontend', activeForm: 'Building frontend' }), 'Build frontend');
  const b = created(
    await call('TaskCreate', { listName, subject: 'Build backend', description: 'API and storage', metadata: { area: 'api' } }),
    'Build backend',
  );
  const joined = await call('TaskCreate', { listName, subject: 'Run integration tests', blockedBy: [a, b] });
  const c = joined.match(/^Created (T-\S+) /)?.[1] as string;
  expect(joined).toBe(`Created ${c} (#3) [pending] Run integration tests  blockedBy: [${a}, ${b}]`);
  expect(JSON.parse(await call('TaskGet', { listName, id: c }))).toMatchObject({
    id: c,
    listName,
    subject: 'Run integration tests',
    status: 'pending',
    blockedBy: [a, b],
  });
  // Long ids read as their #n references, in the seed's columns; every tool takes them.
  expect(await call('TaskList', { listName })).toBe(
    [
      '#1 [pending] Build frontend            blockedBy: []',
      '#2 [pending] Build backend             blockedBy: []',
      '#3 [pending] Run integration tests     blockedBy: [#1, #2]',
    ].join('\n'),
  );
  expect(await call('TaskList', { listName, readyOnly: true })).toBe(
    ['#1 [pending] Build frontend     blockedBy: []', '#2 [pending] Build backend      blockedBy: []'].join('\n'),
  );
  expect(JSON.parse(await call('TaskGet', { listName, id: '#3' }))).toMatchObject({ id: c, ref: '#3' });
  expect(await call('TaskPlan', { listName })).toMatch(
    new RegExp(`^Wave 1: ${a}, ${b}\\nWave 2: ${c}\\nCritical path \\(2\\): (${a}|${b}) → ${c}$`),
  );
  expect(await call('TaskUpdate', { listName, id: c, status: 'in_progress' })).toBe(
    `Error: task ${c} is blocked by ${a}, ${b}; it cannot be started until they are completed.`,
  );
  expect(await call('TaskClaim', { listName, id: a })).toBe(`Claimed ${a} [in_progress] Build frontend as ${agentName}`);
  expect(await call('TaskUpdate', { listName, id: a, status: 'completed' })).toMatch(
    new RegExp(`^Updated ${a} \\[completed\\] Build frontend \\(version \\d+\\) {2}blockedBy: \\[\\]$`),
  );
  // optimistic concurrency: the model reads the version (TaskGet) and states it; a stale one is refused
  const { version } = JSON.parse(await call('TaskGet', { listName, id: b })) as { version: number };
  expect(await call('TaskUpdate', { listName, id: b, status: 'completed', expectedVersion: version - 1 })).toBe(
    `Error: stale version: task ${b} was read at version ${version - 1} but is now at version ${version}; read it again.`,
  );
  expect(await call('TaskUpdate', { listName, id: b, status: 'completed', expectedVersion: version })).toBe(
    `Updated ${b} [completed] Build backend (version ${version + 1})  blockedBy: []`,
  );
  expect(await call('TaskClaim', { listName })).toBe(`Claimed ${c} [in_progress] Run integration tests as ${agentName}`);
  expect(await call('TaskClaim', { listName })).toBe('No ready task to claim.');
  expect(await call('TaskUpdate', { listName, id: c, status: 'completed', owner: 'release-bot' })).toMatch(
    new RegExp(`^Updated ${c} \\[completed\\] Run integration tests`),
  );
  expect(await call('TaskPlan', { listName })).toBe(`No remaining tasks in list "${listName}".`);
  expect(await call('TaskList', { listName })).toBe(`No tasks match in list "${listName}".`);
  expect(await call('TaskGet', { listName, id: 'T-missing' })).toMatch(/^Error: .*T-missing/);

  // checklist run
  expect(await call('checklist_prepare', { parentExecutionId: 'none' })).toMatch(/^Error: Todo List notifies/);
  const prepared = await call('checklist_prepare', { parentExecutionId: 'none', skipNotificationCheck: true });
  const startAttemptId = prepared.match(
    /^Start attempt (\S+) prepared\. Call checklist_execute with startAttemptId "\1"\.$/,
  )?.[1] as string;
  expect(startAttemptId, prepared).toBeDefined();
  const started = await call('checklist_execute', { startAttemptId });
  const runId = started.match(/^Run (\S+) is at checklist intake\./)?.[1] as string;
  const attemptOf = (text: string) => text.match(/attemptId "([^"]+)"/)?.[1] as string;
  expect(started).toBe(
    `Run ${runId} is at checklist intake.\nFirst persist the actual task name with checklist_name (runId "${runId}", name).\nThen submit the checklist with checklist_intake (runId "${runId}").`,
  );
  expect(await call('checklist_execute', { startAttemptId })).toMatch(/^Error: /);
  expect(await call('checklist_name', { runId, name: 'Release 1.2' })).toBe(
    `Run ${runId} is at checklist intake.\nThen submit the checklist with checklist_intake (runId "${runId}").`,
  );
  const intake = await call('checklist_intake', { runId, tasks: [step(1), step(2)], progress_checklist_outcome: 'Two steps' });
  expect(intake).toMatch(
    /^Task 1\/2: Do step 1\nExpected result: Step 1 is done\nDo the work and verify the expected result, then call checklist_step with runId "/,
  );
  expect(await call('checklist_report_blocker', { runId, blocker: 'Waiting for the build machine' })).toBe(
    `Blocker recorded on Task 1/2; the cursor stays. ${intake}`,
  );
  expect(await call('checklist_report_blocker', { runId, blocker: null })).toBe(`Blocker cleared on Task 1/2; the cursor stays. ${intake}`);
  const second = await call('checklist_step', {
    runId,
    attemptId: attemptOf(intake),
    evidence: 'Step 1 verified',
    progress_execution_outcome: 'Step 1 done',
  });
  expect(second).toContain('Task 2/2: Do step 2');
  expect(
    await call('checklist_step', { runId, attemptId: attemptOf(second), task: 1, evidence: 'again', progress_execution_outcome: 'again' }),
  ).toBe('Error: stale step: task 1/2 was already acknowledged; the current task is 2/2.');
  const jumped = await call('checklist_teleport', { runId, teleportTo: 'teleport-revise-tasks' });
  expect(jumped).toMatch(/^Revise checklist: send the complete corrected checklist with checklist_revise/);
  expect(jumped).toContain(', executed task 1 unchanged at its position, and resume_from_task. ');
  const revised = await call('checklist_revise', {
    runId,
    tasks: [step(1), step(2), step(3)],
    resume_from_task: 2,
    progress_checklist_outcome: 'Three steps',
    progress_execution_outcome: 'A third step was missing',
  });
  expect(revised).toContain('Task 2/3: Do step 2\nExpected result: Step 2 is done\n');
  expect(await call('checklist_get', { runId })).toBe(revised);
  const third = await call('checklist_step', {
    runId,
    attemptId: attemptOf(revised),
    evidence: 'Step 2 verified',
    progress_execution_outcome: 'Step 2 done',
  });
  expect(third).toContain('Task 3/3: Do step 3');
  expect(
    await call('checklist_step', {
      runId,
      attemptId: attemptOf(third),
      evidence: 'Step 3 verified',
      progress_execution_outcome: 'Step 3 done',
    }),
  ).toBe(`All tasks done (3/3). Run ${runId} is complete; its output is {}.`);
  expect(await call('checklist_get', { runId })).toBe(`All tasks done (3/3). Run ${runId} is complete; its output is {}.`);
  return { listName, ids: { a, b, c }, runId };
}

describe('every tool through every shape against the real server', () => {
  for (const [shapeName, shape] of Object.entries(shapes)) {
    it(`${shapeName}: answers each call with the text a model reads, and the change shows through the API`, async () => {
      const s = await sessionClient(server, `tool kit (${shapeName})`);
      const called = new Set<string>();
      const { listName, ids, runId } = await walkEveryTool(shape.caller(s.client, called), s.session.agentName);
      expect([...called].sort()).toEqual([...ALL_TOOLS].sort());

      // the same state through the tRPC API (the SDK client)
      const todo = await s.client.todos.get();
      expect(todo).toMatchObject({
        revision: 1,
        items: [
          { content: 'Run tests', status: 'in_progress' },
          { content: 'Ship', status: 'pending' },
        ],
      });
      const tasks = await s.client.tasks.list({ listName, includeCompleted: true });
      expect(tasks.tasks.map((t) => [t.id, t.status])).toEqual([
        [ids.a, 'completed'],
        [ids.b, 'completed'],
        [ids.c, 'completed'],
      ]);
      expect(await s.client.tasks.get({ listName, id: ids.b })).toMatchObject({
        description: 'API and storage',
        metadata: { area: 'api' },
        status: 'completed',
      });
      expect((await s.client.tasks.get({ listName, id: ids.c })).owner).toBe('release-bot');
      const run = await s.client.runs.get({ runId });
      expect(run).toMatchObject({ status: 'completed', name: 'Release 1.2', total: 3, output: {}, sessionId: s.session.id });
      expect((await s.client.runs.history({ runId })).steps.map((h) => h.evidence).filter(Boolean)).toEqual([
        'Step 1 verified',
        'Step 2 verified',
        'Step 3 verified',
      ]);
    });
  }

  it('invalid arguments from a model are answered with an Error: text naming the field, in every shape, and nothing is recorded', async () => {
    const s = await sessionClient(server);
    const tools = agentTools(s.client);
    const dispatch = createDispatcher(tools);
    const todoWrite = tools.find((t) => t.name === 'todo_write');
    const bad = { todos: [{ content: 'Run tests', status: 'done' }] };
    const text = 'Error: invalid todo: `todos[0].status` must be one of pending, in_progress, completed (got "done").';
    expect(await todoWrite?.handler(bad)).toBe(text);
    expect(await dispatch({ name: 'todo_write', arguments: JSON.stringify(bad) })).toBe(text); // OpenAI: JSON text
    expect(await dispatch({ name: 'todo_write', arguments: bad })).toBe(text); // Anthropic: the input object
    expect(await dispatch({ name: 'TaskCreate', arguments: { subject: 'x'.repeat(201) } })).toBe(
      'Error: invalid task: `subject` must be at most 200 characters (got 201).',
    );
    expect(
      await dispatch({
        name: 'checklist_step',
        arguments: '{"runId":"r","attemptId":"att_1","task":0,"evidence":"e","progress_execution_outcome":"p"}',
      }),
    ).toBe('Error: invalid input: `task` must be a task position (a whole number from 1).');
    expect(await dispatch({ name: 'TaskList', arguments: '{"limit":' })).toMatch(/^Error: invalid arguments for TaskList: not valid JSON/);
    expect(await dispatch({ name: 'todo_writes', arguments: '{}' })).toBe(
      `Error: unknown tool "todo_writes"; available tools: ${ALL_TOOLS.join(', ')}.`,
    );
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(0);
  });

  it('a refusal by the server (no session, another workspace, a viewer) is returned as its Error: text, never thrown', async () => {
    const agentOnly = createDispatcher(agentTools(await keyClient(server, 'agent')));
    expect(await agentOnly({ name: 'todo_write', arguments: '{"todos":[]}' })).toBe(
      'Error: todo_write requires an owning agent session before anything is written.',
    );
    const viewer = createDispatcher(agentTools(await keyClient(server, 'viewer')));
    expect(await viewer({ name: 'TaskCreate', arguments: '{"subject":"Sneak in"}' })).toBe(
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
    const badToken = createDispatcher(agentTools(createClient({ url: server.url, token: 'ats_nope' })));
    expect(await badToken({ name: 'TaskList', arguments: '{}' })).toMatch(/^Error: /);
    const offline = createDispatcher(agentTools(createClient({ url: 'http://127.0.0.1:1', token: 'ats_x' })));
    expect(await offline({ name: 'TaskPlan', arguments: undefined })).toMatch(/^Error: could not reach agent-tasks: /);
  });
});

describe('examples/agent-loop.ts', () => {
  it('runs against a real server: a todo list, a task graph with two parallel branches and a checklist run, through createDispatcher', async () => {
    const { token } = await adminClient(server).keys.create({ name: 'agent-loop example', role: 'agent' });
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'examples/agent-loop.ts')], {
      cwd: repoRoot,
      env: { ...process.env, AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, output).toBe(0);

    expect(output).toContain('[turn 2] TaskCreate');
    expect(output).toMatch(/\[turn 7\] TaskClaim .*\n.*\n\[turn 7\] TaskClaim /); // both branches claimed in one turn
    expect(output).toMatch(/→ Error: task T-\S+ is blocked by T-\S+, T-\S+; it cannot be started until they are completed\./);
    expect(output).toMatch(/agent loop finished: \d+ tool calls, 1 refusal\(s\) read back as text\./);

    // what it did, through the API
    const sessionId = output.match(/^session: (\S+)$/m)?.[1] as string;
    const listName = output.match(/^list: (\S+)$/m)?.[1] as string;
    const runId = output.match(/run ([a-f0-9-]+) is complete\.$/m)?.[1] as string;
    const admin = adminClient(server);
    expect((await admin.todos.get({ sessionId })).items.map((i) => i.status)).toEqual(['completed', 'completed', 'completed']);
    const tasks = (await admin.tasks.list({ listName, includeCompleted: true })).tasks;
    expect(tasks.map((t) => [t.subject, t.status])).toEqual([
      ['Build frontend', 'completed'],
      ['Build backend', 'completed'],
      ['Run integration tests', 'completed'],
    ]);
    const run = await admin.runs.get({ runId });
    expect(run).toMatchObject({ status: 'completed', name: 'Release 1.0', total: 3, sessionId });
    expect(run.tasks.map((t) => t.action)).toEqual(['Tag the release', 'Publish the package', 'Announce the release']);
  });
});
