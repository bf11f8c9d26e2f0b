// Black-box tests that Claude Code's hook mirrors its tasks into the project's one task list (the list the Codex and
// Gemini CLI hooks give back), from payloads recorded from Claude Code 2.1.112 and Codex (tests/fixtures/): a plan
// started in Claude Code is the plan Codex is given at SessionStart in the same project; two Claude Code sessions of
// one project, each numbering its tasks from 1, land as two sets of tasks; the todo list stays the chat's own.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentTasksClient, claudeMirrorTaskId, createClient, projectListName } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaudeSession, claudeFixture } from './support/claude-code-payloads.ts';
import { adminClient } from './support/fixtures.ts';
import { type HookRun, hookRunner } from './support/hook-process.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
let agentKey: string;
let agent: AgentTasksClient;
let viewer: AgentTasksClient;

beforeAll(async () => {
  server = await startServer();
  const admin = adminClient(server);
  agentKey = (await admin.keys.create({ name: 'project list', role: 'agent' })).token;
  agent = createClient({ url: server.url, token: agentKey });
  viewer = createClient({ url: server.url, token: (await admin.keys.create({ name: 'dashboard', role: 'viewer' })).token });
});
afterAll(() => server?.stop());

/** Runs `agent-tasks hook <runtime>` as a process with `input` on stdin, as the runtime does. */
const runHook = hookRunner(() => ({ url: server.url, token: agentKey }));

async function silent(runtime: 'codex' | 'claude-code', input: unknown, env: Record<string, string> = {}) {
  expect(await runHook(runtime, input, env)).toEqual({ code: 0, stdout: '', stderr: '' });
}

/** A fresh project folder (a git root) with a subfolder, so each test has its own project list. */
function project(name: string) {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-project-')), name);
  mkdirSync(path.join(dir, '.git'), { recursive: true });
  mkdirSync(path.join(dir, 'src'));
  return dir;
}

const claudeIn = (cwd: string): ClaudeSession => ({ sessionId: randomUUID(), cwd, listName: projectListName(cwd, {}) });

/** Claude Code's TaskCreate (recorded payload) of its task `id`. */
const taskCreate = (s: ClaudeSession, id: string, subject: string) =>
  claudeFixture('task-create', s, {
    tool_input: { subject, description: '', activeForm: `Working on ${subject}` },
    tool_response: { task: { id, subject } },
  });
const taskUpdate = (s: ClaudeSession, input: Record<string, unknown>) =>
  claudeFixture('task-update', s, {
    tool_input: input,
    tool_response: { success: true, taskId: input.taskId, updatedFields: Object.keys(input).filter((k) => k !== 'taskId') },
  });

const codexPayload = (name: string, sessionId: string, cwd: string, extra: Record<string, unknown> = {}) => ({
  ...(JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures/codex', `${name}.json`), 'utf8')) as Record<string, unknown>),
  session_id: sessionId,
  cwd,
  ...extra,
});

const contextOf = (run: HookRun) =>
  (JSON.parse(run.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }).hookSpecificOutput;

async function workspaceId() {
  return (await agent.workspaces.whoami()).workspace.id;
}

describe("Claude Code's tasks go into the project's task list", () => {
  it('a plan started in Claude Code is the plan Codex is given at SessionStart in the same project', async () => {
    const cwd = project('checkout');
    const claude = claudeIn(path.join(cwd, 'src')); // started in a subfolder: the git root names the project
    expect(claude.listName).toBe(projectListName(cwd, {}));
    await silent('claude-code', taskCreate(claude, '1', 'Add the coupon field'));
    await silent('claude-code', taskCreate(claude, '2', 'Validate coupons on the server'));
    await silent('claude-code', taskUpdate(claude, { taskId: '2', addBlockedBy: ['1'] }));
    await silent('claude-code', taskUpdate(claude, { taskId: '1', status: 'in_progress' }));
    // Its todo list stays the chat's own.
    await silent(
      'claude-code',
      claudeFixture('todo-write', claude, {
        tool_input: { todos: [{ content: 'Read the checkout code', status: 'in_progress', activeForm: 'Reading' }] },
      }),
    );

    const ws = await workspaceId();
    const id = (n: string) => claudeMirrorTaskId(ws, claude.sessionId, n);
    const listed = await agent.tasks.list({ listName: claude.listName });
    expect(listed.tasks.map((t) => [t.id, t.subject, t.status, t.blockedBy])).toEqual([
      [id('1'), 'Add the coupon field', 'in_progress', []],
      [id('2'), 'Validate coupons on the server', 'pending', [id('1')]],
    ]);

    // Codex, started in the same project, is given those tasks (and no todo list: its own chat has none).
    const codexId = randomUUID();
    const start = await runHook('codex', codexPayload('session-start', codexId, cwd, { source: 'startup' }));
    expect(start).toMatchObject({ code: 0, stderr: '' });
    expect(contextOf(start)).toEqual({
      hookEventName: 'SessionStart',
      additionalContext: [
        `Open tasks of task list "${claude.listName}", shared by every agent in this project (kept by agent-tasks; update them with its task tools, listName "${claude.listName}"):`,
        `- ${id('1')} [in_progress] Add the coupon field`,
        `- ${id('2')} [pending] Validate coupons on the server (blocked by ${id('1')})`,
      ].join('\n'),
    });

    // Claude Code, resumed, is given its todo list and the same tasks under its own numbers.
    const resumed = await runHook('claude-code', claudeFixture('session-start', claude, { source: 'resume' }));
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(contextOf(resumed).additionalContext).toBe(
      [
        'Todo list (kept by agent-tasks, revision 1; send the whole list again with TodoWrite when it changes):',
        '- [in_progress] Read the checkout code (now: Reading)',
        `Open tasks of task list "${claude.listName}", shared by every agent in this project (kept by agent-tasks; update yours, #n, with TaskUpdate):`,
        '- #1 [in_progress] Add the coupon field',
        '- #2 [pending] Validate coupons on the server (blocked by #1)',
      ].join('\n'),
    );

    // The sessions show under the project, each runtime named.
    const titles = (await viewer.sessions.list()).sessions
      .filter((s) => s.externalId === claude.sessionId || s.externalId === `codex:${codexId}`)
      .map((s) => s.title)
      .sort();
    expect(titles).toEqual(['Claude Code: checkout', 'Codex: checkout']);
  });

  it('two Claude Code sessions in one project, each with its task #1 and #2, land as four tasks; each updates its own', async () => {
    const cwd = project('warehouse');
    const a = claudeIn(cwd);
    const b = claudeIn(cwd);
    await Promise.all([
      silent('claude-code', taskCreate(a, '1', 'Count the stock')),
      silent('claude-code', taskCreate(b, '1', 'Print the labels')),
    ]);
    await Promise.all([
      silent('claude-code', taskCreate(a, '2', 'Reorder what is short')),
      silent('claude-code', taskCreate(b, '2', 'Ship the parcels')),
    ]);
    await silent('claude-code', taskUpdate(b, { taskId: '1', status: 'completed' }));
    await silent('claude-code', taskUpdate(a, { taskId: '2', addBlockedBy: ['1'] }));

    const ws = await workspaceId();
    const [ida, idb] = [a, b].map((s) => (n: string) => claudeMirrorTaskId(ws, s.sessionId, n)) as [
      (n: string) => string,
      (n: string) => string,
    ];
    expect(new Set([ida('1'), ida('2'), idb('1'), idb('2')]).size).toBe(4);
    const listed = await agent.tasks.list({ listName: a.listName });
    expect(listed.tasks.map((t) => [t.id, t.subject, t.status, t.blockedBy]).sort()).toEqual(
      [
        [ida('1'), 'Count the stock', 'pending', []],
        [ida('2'), 'Reorder what is short', 'pending', [ida('1')]],
        [idb('2'), 'Ship the parcels', 'pending', []],
      ].sort(),
    );
    expect(await agent.tasks.get({ listName: a.listName, id: idb('1') })).toMatchObject({
      subject: 'Print the labels',
      status: 'completed',
    });
    // Each mirror names the Claude Code list it came from.
    expect((await agent.tasks.get({ listName: a.listName, id: idb('2') })).metadata).toEqual({
      claudeCode: { taskId: '2', listName: b.sessionId },
    });

    // Session b is given the project's open tasks: its own as #n, session a's by their ids.
    const started = await runHook('claude-code', claudeFixture('session-start', b, { source: 'compact' }));
    expect(contextOf(started).additionalContext).toBe(
      [
        `Open tasks of task list "${a.listName}", shared by every agent in this project (kept by agent-tasks; update yours, #n, with TaskUpdate):`,
        ...listed.tasks.map((t) =>
          t.id === idb('2')
            ? '- #2 [pending] Ship the parcels'
            : `- ${t.id} [pending] ${t.subject}${t.blockedBy.length ? ` (blocked by ${ida('1')})` : ''}`,
        ),
      ].join('\n'),
    );
  });

  it('CLAUDE_CODE_TASK_LIST_ID still names the list, for Claude Code and Codex alike; AGENT_TASKS_LIST too', async () => {
    const cwd = project('shared');
    const sprint = `sprint.${Date.now()}`; // Claude Code's folder for it: sprint-<n>
    const env = { CLAUDE_CODE_TASK_LIST_ID: sprint };
    const a = claudeIn(cwd);
    const b = claudeIn(cwd);
    await silent('claude-code', taskCreate(a, '1', 'Plan the sprint'), env);
    // Sessions sharing Claude Code's list share its numbers: b's #1 is a's #1.
    await silent('claude-code', taskUpdate(b, { taskId: '1', status: 'in_progress' }), env);
    const folder = sprint.replace('.', '-');
    const listed = await agent.tasks.list({ listName: folder });
    expect(listed.tasks.map((t) => [t.id, t.subject, t.status])).toEqual([
      [claudeMirrorTaskId(await workspaceId(), folder, '1'), 'Plan the sprint', 'in_progress'],
    ]);
    const codexStart = await runHook('codex', codexPayload('session-start', randomUUID(), cwd, { source: 'startup' }), env);
    expect(contextOf(codexStart).additionalContext).toContain(`Open tasks of task list "${folder}"`);
    expect(contextOf(codexStart).additionalContext).toContain('[in_progress] Plan the sprint');

    const named = `named-${Date.now()}`;
    await silent('claude-code', taskCreate(claudeIn(cwd), '1', 'Write the notes'), { AGENT_TASKS_LIST: named });
    expect((await agent.tasks.list({ listName: named })).tasks.map((t) => t.subject)).toEqual(['Write the notes']);
  });
});
