// Black-box tests that the Claude Code hook records what Claude Code did, from payloads recorded from Claude Code
// 2.1.112 (tests/fixtures/claude-code): status changes whatever the blockers, answers with `success: false` left out,
// long texts kept (cut with "…" only past a generous bound), lists with several items in progress and repeats kept,
// the SessionStart sources (clear, fork) and the other events of its hook surface, and its task list folder names.
// The handler runs in this process against a real server over HTTP; our own tools keep their rules beside it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AgentTasksClient, claudeMirrorTaskId, claudeTaskListName, createClient, runClaudeCodeHook } from '@agent-tasks/sdk';
import { MIRROR_DESCRIPTION_MAX, MIRROR_TEXT_MAX } from '@agent-tasks/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaudeSession, claudeFacts, claudeFixture, claudeSession } from './support/claude-code-payloads.ts';
import { adminClient, countRows } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
let agentKey: string;
let agent: AgentTasksClient;
let viewer: AgentTasksClient;

beforeAll(async () => {
  server = await startServer();
  const admin = adminClient(server);
  agentKey = (await admin.keys.create({ name: 'claude code hook', role: 'agent' })).token;
  agent = createClient({ url: server.url, token: agentKey });
  viewer = createClient({ url: server.url, token: (await admin.keys.create({ name: 'dashboard', role: 'viewer' })).token });
});
afterAll(() => server?.stop());

/** Runs the hook handler with `input` on stdin; a generous limit, so a loaded machine cannot turn slowness into a miss. */
async function hook(input: unknown, env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runClaudeCodeHook({
    stdin: JSON.stringify(input),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: agentKey, AGENT_TASKS_HOOK_TIMEOUT_MS: '20000', ...env },
  });
  return { code, stdout, stderr };
}

/** The hook's silent success: exit 0, nothing on stdout or stderr. */
async function record(input: unknown, env: Record<string, string> = {}) {
  expect(await hook(input, env)).toEqual({ code: 0, stdout: '', stderr: '' });
}

async function sessionOf(externalId: string) {
  const found = (await viewer.sessions.list()).sessions.filter((x) => x.externalId === externalId);
  expect(found).toHaveLength(1);
  return found[0]!;
}

const taskCreate = (s: ClaudeSession, id: string, input: Record<string, unknown>) =>
  claudeFixture('task-create', s, { tool_input: input, tool_response: { task: { id, subject: input.subject } } });
/** A TaskUpdate Claude Code applied (its answer as 2.1.112 gives it, `success: true`). */
const taskUpdate = (s: ClaudeSession, input: { taskId: string } & Record<string, unknown>) => {
  const recorded = claudeFacts<{ tool_response: Record<string, unknown> }>('task-update').tool_response;
  const fields = Object.keys(input).filter((k) => k !== 'taskId');
  return claudeFixture('task-update', s, {
    tool_input: input,
    tool_response: { ...recorded, taskId: input.taskId, updatedFields: fields, statusChange: undefined },
  });
};
const todoWrite = (s: ClaudeSession, todos: unknown[]) =>
  claudeFixture('todo-write', s, {
    tool_input: { todos },
    tool_response: { oldTodos: [], newTodos: todos, verificationNudgeNeeded: false },
  });

/** Creates Claude Code tasks 1, 2, 3 with 3 blocked by 1 and 2, as the model does it. */
async function blockedThree(s: ClaudeSession, env: Record<string, string> = {}) {
  for (const [id, subject] of [
    ['1', 'Build frontend'],
    ['2', 'Build backend'],
    ['3', 'Run integration tests'],
  ] as const) {
    await record(taskCreate(s, id, { subject, description: '' }), env);
  }
  await record(taskUpdate(s, { taskId: '3', addBlockedBy: ['1', '2'] }), env);
  const session = await sessionOf(s.sessionId);
  return {
    listName: env.CLAUDE_CODE_TASK_LIST_ID ? claudeTaskListName({ session_id: s.sessionId }, env) : s.listName,
    id: (n: string) => claudeMirrorTaskId(session.workspaceId, claudeTaskListName({ session_id: s.sessionId }, env), n),
  };
}

describe('1. a status change is recorded whatever the blockers, as Claude Code makes it', () => {
  it('TaskUpdate in_progress, then completed, of a task whose blockers are open: both recorded, the blockers kept', async () => {
    const s = claudeSession();
    const { listName, id } = await blockedThree(s);
    await record(claudeFixture('task-update', s)); // {"taskId":"3","status":"in_progress"}, recorded from Claude Code
    let three = await agent.tasks.get({ listName, id: id('3') });
    expect(three).toMatchObject({ status: 'in_progress', blockedBy: [id('1'), id('2')] });

    await record(taskUpdate(s, { taskId: '3', status: 'completed' }));
    three = await agent.tasks.get({ listName, id: id('3') });
    expect(three).toMatchObject({ status: 'completed', blockedBy: [id('1'), id('2')] });
    // Our own TaskUpdate keeps seed 001's rule and its text.
    await expect(agent.tasks.update({ listName, id: id('2'), blockedBy: [id('1')] })).resolves.toMatchObject({ blockedBy: [id('1')] });
    await expect(agent.tasks.update({ listName, id: id('2'), status: 'in_progress' })).rejects.toThrow(
      `Error: task ${id('2')} is blocked by ${id('1')}; it cannot be started until it is completed.`,
    );
  });
});

describe('edges as Claude Code keeps them', () => {
  it('an edge to a task Claude Code does not hold is skipped; one closing a cycle is left out, named on stderr, the rest recorded', async () => {
    const s = claudeSession();
    const { listName, id } = await blockedThree(s);
    await record(taskUpdate(s, { taskId: '2', addBlocks: ['7'] }));
    expect((await agent.tasks.get({ listName, id: id('2') })).blocks).toEqual([id('3')]);

    const run = await hook(taskUpdate(s, { taskId: '1', owner: 'main', addBlockedBy: ['3'] }));
    expect(run).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'agent-tasks hook: recorded TaskUpdate of #1, except #3 blocks #1 (it would close a cycle #1 → #3 → #1): agent-tasks keeps no cycles.\n',
    });
    expect(await agent.tasks.get({ listName, id: id('1') })).toMatchObject({ owner: 'main', blockedBy: [] });
  });
});

describe('2. a TaskUpdate Claude Code did not apply (success: false) is not recorded', () => {
  it('a completion a TaskCompleted hook refused leaves the task as it was: no change, no version, no stderr', async () => {
    const s = claudeSession();
    const { listName, id } = await blockedThree(s);
    await record(taskUpdate(s, { taskId: '3', status: 'in_progress' }));
    const before = await agent.tasks.get({ listName, id: id('3') });
    const changes = (await agent.tasks.history({ listName, id: id('3') })).changes.length;

    await record(claudeFixture('task-update-blocked', s)); // {"taskId":"3","status":"completed"} answered success: false
    expect(await agent.tasks.get({ listName, id: id('3') })).toEqual(before);
    expect((await agent.tasks.history({ listName, id: id('3') })).changes).toHaveLength(changes);
    // Nor an update of a task Claude Code's list does not hold (it answered "Task not found"): nothing to report.
    await record(claudeFixture('task-update-not-found', s));
  });
});

describe('3. TaskCreate of any size is recorded, and later updates find the task', () => {
  it('a 250-character subject, a 12,000-character description and 11,000 characters of metadata are kept as they are', async () => {
    const s = claudeSession();
    const input = {
      subject: 'S'.repeat(250),
      description: 'D'.repeat(12_000),
      activeForm: 'Doing it',
      metadata: { notes: 'm'.repeat(11_000) },
    };
    await record(taskCreate(s, '1', input));
    await record(taskUpdate(s, { taskId: '1', status: 'in_progress', owner: 'main' }));
    const session = await sessionOf(s.sessionId);
    const task = await agent.tasks.get({ listName: s.listName, id: claudeMirrorTaskId(session.workspaceId, s.sessionId, '1') });
    expect(task).toMatchObject({
      subject: input.subject,
      description: input.description,
      status: 'in_progress',
      owner: 'main',
      metadata: { notes: input.metadata.notes, claudeCode: { taskId: '1', listName: s.sessionId } },
    });
  });

  it('past the storage bound a text is cut with a visible "…"; our own TaskCreate still refuses a 250-character subject', async () => {
    const s = claudeSession();
    await record(taskCreate(s, '1', { subject: 'S'.repeat(MIRROR_TEXT_MAX + 50), description: 'D'.repeat(MIRROR_DESCRIPTION_MAX + 1) }));
    await record(taskUpdate(s, { taskId: '1', subject: `${'T'.repeat(MIRROR_TEXT_MAX)}!` }));
    const session = await sessionOf(s.sessionId);
    const task = await agent.tasks.get({ listName: s.listName, id: claudeMirrorTaskId(session.workspaceId, s.sessionId, '1') });
    expect(task.subject).toBe(`${'T'.repeat(MIRROR_TEXT_MAX - 1)}…`);
    expect(task.description).toBe(`${'D'.repeat(MIRROR_DESCRIPTION_MAX - 1)}…`);

    const before = await countRows(server, 'Task');
    await expect(agent.tasks.create({ listName: s.listName, subject: 'S'.repeat(250) })).rejects.toThrow(
      'Error: invalid task: `subject` must be at most 200 characters (got 250).',
    );
    expect(await countRows(server, 'Task')).toBe(before);
  });
});

describe('4. a TodoWrite list is recorded as Claude Code holds it', () => {
  it('two items in progress and a repeated text (recorded from Claude Code): kept, counted as they are', async () => {
    const s = claudeSession();
    const payload = claudeFixture('todo-write', s);
    await record(payload);
    const session = await sessionOf(s.sessionId);
    const view = await viewer.sessions.get({ sessionId: session.id });
    expect(view.todo).toMatchObject({
      revision: 1,
      items: (payload.tool_input as { todos: unknown[] }).todos,
      counts: { pending: 1, inProgress: 2, completed: 0 },
    });
  });

  it('110 items and a 1,200-character item are kept; past the bound an item is cut with "…"', async () => {
    const s = claudeSession();
    const many = Array.from({ length: 110 }, (_, i) => ({
      content: `Step ${i + 1}`,
      status: 'pending',
      activeForm: `Doing step ${i + 1}`,
    }));
    many[0] = { content: 'L'.repeat(1200), status: 'in_progress', activeForm: 'Writing it' };
    many[1] = { content: 'X'.repeat(MIRROR_TEXT_MAX + 1), status: 'pending', activeForm: 'Cutting it' };
    await record(todoWrite(s, many));
    const { items } = await viewer.todos.get({ sessionId: (await sessionOf(s.sessionId)).id });
    expect(items).toHaveLength(110);
    expect(items[0]).toEqual(many[0]);
    expect(items[1]).toEqual({ content: `${'X'.repeat(MIRROR_TEXT_MAX - 1)}…`, status: 'pending', activeForm: 'Cutting it' });
    expect(items.slice(2)).toEqual(many.slice(2));
  });

  it("our own todo_write keeps seed 000's limits and refusals, and the workspace's one-active rule", async () => {
    const { token } = await agent.sessions.open({ title: 'own tool' });
    const own = createClient({ url: server.url, token });
    const cases: [unknown[], string][] = [
      [
        [
          { content: 'A', status: 'in_progress' },
          { content: 'B', status: 'in_progress' },
        ],
        'Error: invalid todos: at most one task may be in_progress (got 2)',
      ],
      [
        [
          { content: 'A', status: 'pending' },
          { content: 'A', status: 'pending' },
        ],
        'Error: invalid todos: duplicate content "A"',
      ],
      [
        Array.from({ length: 110 }, (_, i) => ({ content: `Step ${i}`, status: 'pending' })),
        'Error: invalid todos: at most 100 items per list (got 110).',
      ],
      [
        [{ content: 'L'.repeat(1200), status: 'pending' }],
        'Error: invalid todo: `todos[0].content` must be at most 1000 characters (got 1200).',
      ],
    ];
    for (const [todos, text] of cases) await expect(own.todos.write({ todos } as never)).rejects.toThrow(text);
    expect((await own.todos.get()).revision).toBe(0);
  });
});

describe("5. Claude Code's hook surface", () => {
  it('SessionStart clear: a new conversation with a shared task list gets its open tasks, no todo list', async () => {
    const env = { CLAUDE_CODE_TASK_LIST_ID: `shared-${Date.now()}` };
    const before = claudeSession();
    await blockedThree(before, env);
    await record(todoWrite(before, [{ content: 'Old plan', status: 'in_progress', activeForm: 'Planning' }]), env);

    const cleared = claudeSession(); // /clear starts a new session id
    const run = await hook(claudeFixture('session-start', cleared, { source: 'clear' }), env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: [
          `Open tasks of task list "${env.CLAUDE_CODE_TASK_LIST_ID}", shared by every agent in this project (kept by agent-tasks; update yours, #n, with TaskUpdate):`,
          '- #1 [pending] Build frontend',
          '- #2 [pending] Build backend',
          '- #3 [pending] Run integration tests (blocked by #1, #2)',
        ].join('\n'),
      },
    });
    // In a project whose list has no open task, /clear has nothing to give back; the new conversation is a session.
    const alone = claudeSession();
    expect(await hook(claudeFixture('session-start', alone, { source: 'clear' }))).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await countRows(server, 'Session', '"externalId" = ?', alone.sessionId)).toBe(1);
  });

  it('a fork (source fork, or resume as 2.1.112 reports /branch) starts from the todo list it was forked from', async () => {
    const parent = claudeSession();
    const plan = [
      { content: 'Reproduce the bug', status: 'completed', activeForm: 'Reproducing the bug' },
      { content: 'Write the fix', status: 'in_progress', activeForm: 'Writing the fix' },
    ];
    await record(todoWrite(parent, plan));
    const dir = mkdtempSync(path.join(tmpdir(), 'claude-fork-'));
    for (const source of ['fork', 'resume']) {
      const fork = claudeSession();
      // The fork's transcript as /branch writes it: the parent's messages under the new id, each naming the parent.
      const recorded = claudeFacts<{ forkedFrom: { sessionId: string; messageUuid: string } }>('fork-transcript-line');
      const line = { ...recorded, sessionId: fork.sessionId, forkedFrom: { ...recorded.forkedFrom, sessionId: parent.sessionId } };
      const transcript = path.join(dir, `${fork.sessionId}.jsonl`);
      writeFileSync(transcript, `${JSON.stringify(line)}\n${JSON.stringify({ ...line, uuid: 'second' })}\n`);

      const run = await hook(claudeFixture('session-start', fork, { source, transcript_path: transcript }));
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toBe(
        [
          'Todo list (kept by agent-tasks, revision 1; send the whole list again with TodoWrite when it changes):',
          '- [completed] Reproduce the bug',
          '- [in_progress] Write the fix (now: Writing the fix)',
        ].join('\n'),
      );
      const forked = await sessionOf(fork.sessionId);
      expect((await viewer.todos.get({ sessionId: forked.id })).items).toEqual(plan);
      // The fork's own list, once written, is never replaced by the parent's again.
      await record(todoWrite(fork, [{ content: 'Try another fix', status: 'in_progress', activeForm: 'Trying' }]));
      await hook(claudeFixture('session-start', fork, { source, transcript_path: transcript }));
      expect((await viewer.todos.get({ sessionId: forked.id })).items).toEqual([
        { content: 'Try another fix', status: 'in_progress', activeForm: 'Trying' },
      ]);
    }
    // The parent's list is untouched.
    expect((await viewer.todos.get({ sessionId: (await sessionOf(parent.sessionId)).id })).items).toEqual(plan);
  });

  it('TaskCreated, TaskCompleted and PostCompact (recorded from Claude Code) record and answer nothing, and never fail', async () => {
    for (const name of ['task-created', 'task-completed', 'post-compact']) {
      const s = claudeSession();
      expect(await hook(claudeFixture(name, s))).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(await countRows(server, 'Session', '"externalId" = ?', s.sessionId)).toBe(0);
    }
  });

  it('fields later versions add (duration_ms, session_title, …, a long agent_id) never break it', async () => {
    const { agent_id: agentId, agent_type: agentType, ...later } = claudeFacts<Record<string, unknown>>('later-fields');
    expect([agentId, agentType]).toEqual([expect.any(String), expect.any(String)]);
    const s = claudeSession();
    const sub: ClaudeSession = { ...s, agent: { id: `${String(agentId)}-${'a'.repeat(190)}`, type: String(agentType) } };
    await record({ ...todoWrite(sub, [{ content: 'Explore', status: 'in_progress', activeForm: 'Exploring' }]), ...later });
    await record({ ...taskCreate(s, '1', { subject: 'Ship', description: '' }), ...later });
    await record({ ...taskUpdate(s, { taskId: '1', status: 'in_progress' }), ...later });
    const run = await hook({ ...claudeFixture('session-start', s, { source: 'compact' }), ...later });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toContain('- #1 [in_progress] Ship');
    const main = await sessionOf(s.sessionId);
    const child = (await viewer.sessions.list()).sessions.find((x) => x.parentId === main.id);
    expect((await viewer.todos.get({ sessionId: child!.id })).items).toEqual([
      { content: 'Explore', status: 'in_progress', activeForm: 'Exploring' },
    ]);
  });

  it("the integrations doc's settings snippet names every event the hook handles, with the matchers it acts on", () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../docs/integrations.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Claude Code hooks'));
    const snippet = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!) as {
      hooks: Record<string, { matcher: string; hooks: { command: string }[] }[]>;
    };
    expect(Object.keys(snippet.hooks).sort()).toEqual(['PostToolUse', 'SessionStart']);
    expect(snippet.hooks.PostToolUse![0]!.matcher.split('|').sort()).toEqual(['TaskCreate', 'TaskUpdate', 'TodoWrite']);
    expect(snippet.hooks.SessionStart![0]!.matcher.split('|').sort()).toEqual(['clear', 'compact', 'fork', 'resume', 'startup']);
    for (const entries of Object.values(snippet.hooks)) expect(entries[0]!.hooks[0]!.command).toMatch(/ hook claude-code$/);
  });
});

describe('6. the list is named as Claude Code names its folder', () => {
  it('CLAUDE_CODE_TASK_LIST_ID=team.alpha is the folder team-alpha, and the mirror uses that list', async () => {
    const facts = claudeFacts<{ examples: { CLAUDE_CODE_TASK_LIST_ID: string; folder: string }[] }>('task-list-folder');
    for (const e of facts.examples)
      expect(claudeTaskListName({ session_id: 'x' }, { CLAUDE_CODE_TASK_LIST_ID: e.CLAUDE_CODE_TASK_LIST_ID })).toBe(e.folder);

    const suffix = String(Date.now());
    const env = { CLAUDE_CODE_TASK_LIST_ID: `team.alpha${suffix}` };
    await record(taskCreate(claudeSession(), '1', { subject: 'Migrate the orders table', description: '' }), env);
    const listed = await agent.tasks.list({ listName: `team-alpha${suffix}` });
    expect(listed.tasks.map((t) => t.subject)).toEqual(['Migrate the orders table']);
    // Two long list ids stay two lists.
    const long = (tail: string) => claudeTaskListName({ session_id: 'x' }, { CLAUDE_CODE_TASK_LIST_ID: `${'l'.repeat(120)}${tail}` });
    expect(long('a')).toHaveLength(100);
    expect(long('a')).not.toBe(long('b'));
  });
});
