// Black-box tests of the Codex and Gemini CLI hooks: payloads recorded from each runtime's own schemas
// (tests/fixtures/<runtime>/) are fed to `agent-tasks hook codex|gemini` as a real process against a real server. They
// check that the plan lands in the chat's own session, comes back in the runtime's exact output shape, is the project's
// one task list whichever runtime made it, survives a server restart, and that a server that is down costs nothing.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentTasksClient, createClient, projectListName } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStart as claudeSessionStart, taskCreate as claudeTaskCreate } from './support/claude-code-payloads.ts';
import { adminClient, countRows } from './support/fixtures.ts';
import { type HookEnv, type HookRun, type HookRuntime, hookRunner } from './support/hook-process.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { startReceiver } from './support/webhook-receiver.ts';

const fixture = (runtime: string, name: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures', runtime, `${name}.json`), 'utf8')) as Record<string, unknown>;

let server: RunningServer;
let agentKey: string;
let agent: AgentTasksClient;
let viewer: AgentTasksClient;

beforeAll(async () => {
  server = await startServer();
  const admin = adminClient(server);
  agentKey = (await admin.keys.create({ name: 'runtime hooks', role: 'agent' })).token;
  agent = createClient({ url: server.url, token: agentKey });
  viewer = createClient({ url: server.url, token: (await admin.keys.create({ name: 'dashboard', role: 'viewer' })).token });
});
afterAll(() => server?.stop());

/** Runs `agent-tasks hook <runtime>` as a process with `input` on stdin, as the runtime does. */
const runHook = hookRunner(() => ({ url: server.url, token: agentKey }));

async function silent(runtime: HookRuntime, input: unknown, env: HookEnv = {}) {
  const run = await runHook(runtime, input, env);
  expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
}

/** A fresh project folder (a git root) named `name`, so each test has its own shared task list. */
function project(name = 'shop-api') {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-project-')), name);
  mkdirSync(path.join(dir, '.git'), { recursive: true });
  mkdirSync(path.join(dir, 'src'));
  return dir;
}

async function sessionOf(externalId: string) {
  const found = (await viewer.sessions.list()).sessions.filter((s) => s.externalId === externalId);
  expect(found).toHaveLength(1);
  return found[0]!;
}

const answerOf = (run: HookRun) => JSON.parse(run.stdout) as unknown;

/** A Codex payload from the fixtures for one chat in one project. */
const codex = (name: string, sessionId: string, cwd: string, extra: Record<string, unknown> = {}) => ({
  ...fixture('codex', name),
  session_id: sessionId,
  cwd,
  ...extra,
});
const gemini = (name: string, sessionId: string, cwd: string, extra: Record<string, unknown> = {}) => ({
  ...fixture('gemini', name),
  session_id: sessionId,
  cwd,
  ...extra,
});

describe('agent-tasks hook codex', () => {
  it("mirrors update_plan into the chat's own session, titled after the project, and answers it at SessionStart", async () => {
    const cwd = project();
    const id = randomUUID();
    await silent('codex', codex('post-tool-use-update-plan', id, cwd));
    const session = await sessionOf(`codex:${id}`);
    expect(session).toMatchObject({ title: 'Codex: shop-api', parentId: null });
    expect((await viewer.todos.get({ sessionId: session.id })).items).toEqual([
      { content: 'Reproduce the bug', status: 'completed' },
      { content: 'Write the fix', status: 'in_progress' },
      { content: 'Run the tests', status: 'pending' },
    ]);

    // The same chat gets it back on resume and after a compaction (SessionStart with source "compact").
    const todoText = [
      'Todo list of this chat (kept by agent-tasks, revision 1; send the whole list again with update_plan when it changes):',
      '- [completed] Reproduce the bug',
      '- [in_progress] Write the fix',
      '- [pending] Run the tests',
    ].join('\n');
    for (const source of ['resume', 'compact', 'startup']) {
      const run = await runHook('codex', codex('session-start', id, path.join(cwd, 'src'), { source }));
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(answerOf(run)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: todoText } });
    }
    // Another chat has its own list (none): nothing is shared between chats.
    await silent('codex', codex('session-start', randomUUID(), cwd, { source: 'startup' }));
    // PostCompact carries no context in Codex: the hook answers nothing.
    await silent('codex', codex('post-compact', id, cwd));
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(1);
  });

  it("gives back the project's one task list, whichever runtime wrote it; /clear gives the tasks but not the chat's list", async () => {
    const cwd = project('billing');
    const listName = projectListName(cwd, {});
    expect(listName).toMatch(/^billing-[0-9a-f]{8}$/);
    // A task written through the agent-tasks tools (the MCP route Codex writes through) and one mirrored by the
    // Claude Code hook of a chat in the same project, sharing the list by name.
    const { token } = await agent.sessions.open({ title: 'MCP' });
    const tools = createClient({ url: server.url, token });
    const first = await tools.tasks.create({ listName, subject: 'Migrate the invoices table' });
    const claude = { sessionId: randomUUID(), cwd, listName };
    await silent('claude-code', claudeTaskCreate(claude, '1', { subject: 'Add the tax column', description: '' }), {
      CLAUDE_CODE_TASK_LIST_ID: listName,
    });
    const claudeTask = (await tools.tasks.list({ listName })).tasks.find((t) => t.subject === 'Add the tax column')!;
    await tools.tasks.update({ listName, id: claudeTask.id, addBlockedBy: [first.id] });

    const id = randomUUID();
    await silent('codex', codex('post-tool-use-update-plan', id, cwd));
    const tasksText = [
      `Open tasks of task list "${listName}", shared by every agent in this project (kept by agent-tasks; update them with its task tools, listName "${listName}"):`,
      `- ${first.id} [pending] Migrate the invoices table`,
      `- ${claudeTask.id} [pending] Add the tax column (blocked by ${first.id})`,
    ].join('\n');
    const resume = await runHook('codex', codex('session-start', id, cwd, { source: 'resume' }));
    expect(answerOf(resume)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: expect.stringMatching(/^Todo list of this chat/),
      },
    });
    expect((answerOf(resume) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext).toContain(
      `\n${tasksText}`,
    );
    const clear = await runHook('codex', codex('session-start', id, cwd, { source: 'clear' }));
    expect(answerOf(clear)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: tasksText } });

    // Gemini CLI in the same project is given the same tasks; so is Claude Code's own hook on that list.
    const start = await runHook('gemini', gemini('session-start', randomUUID(), cwd));
    expect(answerOf(start)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: tasksText } });
    const claudeStart = await runHook('claude-code', claudeSessionStart(claude, 'resume'), { CLAUDE_CODE_TASK_LIST_ID: listName });
    expect(claudeStart.stdout).toContain('Add the tax column');
  });

  it('a plan it cannot read, or one agent-tasks refuses, is one stderr line, exit 0, and nothing is recorded; a repeated step is kept as Codex held it', async () => {
    const cwd = project();
    const id = randomUUID();
    const bad = await runHook('codex', codex('post-tool-use-update-plan', id, cwd, { tool_input: { plan: 'all of it' } }));
    expect(bad).toEqual({
      code: 0,
      stdout: '',
      stderr: 'agent-tasks hook: the update_plan input is not in the shape Codex documents; nothing was recorded.\n',
    });
    // A mirror records the plan as Codex held it: a repeated step is kept, not refused.
    const twice = [
      { step: 'Run the tests', status: 'pending' },
      { step: 'Run the tests', status: 'completed' },
    ];
    const viewerKey = (await adminClient(server).keys.create({ name: 'codex viewer', role: 'viewer' })).token;
    const refused = await runHook('codex', codex('post-tool-use-update-plan', id, cwd, { tool_input: { plan: twice } }), {
      AGENT_TASKS_TOKEN: viewerKey,
    });
    expect(refused).toEqual({
      code: 0,
      stdout: '',
      stderr: 'agent-tasks hook: agent-tasks refused: forbidden: viewer keys are read-only (this key is viewer).\n',
    });
    const session = await sessionOf(`codex:${id}`);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(0);
    await silent('codex', codex('post-tool-use-update-plan', id, cwd, { tool_input: { plan: twice } }));
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(1);
    expect((await viewer.todos.get({ sessionId: session.id })).items).toEqual([
      { content: 'Run the tests', status: 'pending' },
      { content: 'Run the tests', status: 'completed' },
    ]);
    const shapeless = await runHook('codex', { hook_event_name: 'SessionStart' });
    expect(shapeless.stderr).toBe('agent-tasks hook: the hook input is not in the shape Codex documents; nothing was recorded.\n');
  });
});

describe('agent-tasks hook gemini', () => {
  it("mirrors write_todos into the chat's session (cancelled and blocked kept as display text) and gives it back", async () => {
    const cwd = project('date-lib');
    const id = randomUUID();
    await silent('gemini', gemini('after-tool-write-todos', id, cwd));
    const session = await sessionOf(`gemini:${id}`);
    expect(session.title).toBe('Gemini CLI: date-lib');
    expect((await viewer.todos.get({ sessionId: session.id })).items).toEqual([
      { content: 'Read the failing test', status: 'completed' },
      { content: 'Fix the date parser', status: 'in_progress' },
      { content: 'Wait for the API key', status: 'pending', activeForm: 'blocked' },
      { content: 'Rewrite the legacy importer', status: 'completed', activeForm: 'cancelled' },
      { content: 'Update the changelog', status: 'pending' },
    ]);
    const text = [
      'Todo list of this chat (kept by agent-tasks, revision 1; send the whole list again with write_todos when it changes):',
      '- [completed] Read the failing test',
      '- [in_progress] Fix the date parser',
      '- [blocked] Wait for the API key',
      '- [cancelled] Rewrite the legacy importer',
      '- [pending] Update the changelog',
    ].join('\n');
    const resume = await runHook('gemini', gemini('session-start', id, cwd, { source: 'resume' }));
    expect(resume).toMatchObject({ code: 0, stderr: '' });
    expect(answerOf(resume)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } });
    // Before each turn while work is open (so a compressed chat has it again), in BeforeAgent's shape.
    const turn = await runHook('gemini', gemini('before-agent', id, cwd));
    expect(answerOf(turn)).toEqual({ hookSpecificOutput: { hookEventName: 'BeforeAgent', additionalContext: text } });

    // Once everything is done, a turn is given nothing more; /clear (a new chat) has no list of its own.
    const done = (fixture('gemini', 'after-tool-write-todos').tool_input as { todos: { description: string }[] }).todos.map((t) => ({
      description: t.description,
      status: 'completed',
    }));
    await silent('gemini', gemini('after-tool-write-todos', id, cwd, { tool_input: { todos: done } }));
    await silent('gemini', gemini('before-agent', id, cwd));
    await silent('gemini', gemini('session-start', randomUUID(), cwd, { source: 'clear' }));
  });

  it('other tools and events cost nothing: no session, no output', async () => {
    const id = randomUUID();
    await silent(
      'gemini',
      gemini('after-tool-write-todos', id, project(), { tool_name: 'run_shell_command', tool_input: { command: 'ls' } }),
    );
    await silent('gemini', { ...gemini('session-start', id, project()), hook_event_name: 'PreCompress', trigger: 'auto' });
    expect(await countRows(server, 'Session', '"externalId" = ?', `gemini:${id}`)).toBe(0);
  });
});

describe('surviving a server restart; a server that is down', () => {
  it('the plan mirrored before a restart is given back after it, in each runtime', async () => {
    const cwd = project();
    const codexId = randomUUID();
    const geminiId = randomUUID();
    await silent('codex', codex('post-tool-use-update-plan', codexId, cwd));
    await silent('gemini', gemini('after-tool-write-todos', geminiId, cwd));
    await server.restart();
    const a = await runHook('codex', codex('session-start', codexId, cwd, { source: 'resume' }));
    expect(a).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.stringify(answerOf(a))).toContain('[in_progress] Write the fix');
    const b = await runHook('gemini', gemini('session-start', geminiId, cwd, { source: 'resume' }));
    expect(b).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.stringify(answerOf(b))).toContain('[blocked] Wait for the API key');
  });

  it('down: exit 0, one stderr line, nothing on stdout, for every event either hook handles', async () => {
    const down = await startReceiver({ down: true, path: '' });
    const line = `agent-tasks hook: could not reach agent-tasks at ${down.url} (connect ECONNREFUSED 127.0.0.1:${down.port}); nothing was recorded.\n`;
    const cwd = project();
    const id = randomUUID();
    const runs = await Promise.all([
      runHook('codex', codex('post-tool-use-update-plan', id, cwd), { AGENT_TASKS_URL: down.url }),
      runHook('codex', codex('session-start', id, cwd, { source: 'compact' }), { AGENT_TASKS_URL: down.url }),
      runHook('gemini', gemini('after-tool-write-todos', id, cwd), { AGENT_TASKS_URL: down.url }),
      runHook('gemini', gemini('session-start', id, cwd), { AGENT_TASKS_URL: down.url }),
      runHook('gemini', gemini('before-agent', id, cwd), { AGENT_TASKS_URL: down.url }),
    ]);
    for (const run of runs) expect(run).toEqual({ code: 0, stdout: '', stderr: line });
  });
});
