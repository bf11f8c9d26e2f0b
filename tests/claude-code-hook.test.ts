// Black-box tests of the Claude Code hook: hook payloads in Claude Code's documented shape are fed to
// `agent-tasks hook claude-code` as a real process against a real server; the tests read back the session, its list, the mirrored tasks and
// the SessionStart answer, and show that a server that is down or never answers costs the agent at most ~2 s, exit 0.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentTasksClient, claudeMirrorTaskId, createClient, runClaudeCodeHook } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClaudeSession,
  type Todo,
  readUse,
  claudeSession,
  sessionStart,
  taskCreate,
  taskUpdate,
  todoWrite,
} from './support/claude-code-payloads.ts';
import { adminClient, countRows } from './support/fixtures.ts';
import { type HookEnv, type HookRun, hookRunner } from './support/hook-process.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { startReceiver } from './support/webhook-receiver.ts';
import { guardMs } from './support/time-guard.ts';

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

const hook = hookRunner(() => ({ url: server.url, token: agentKey }));
/** Runs the Claude Code hook with `input` on stdin (the timeout tests pass `AGENT_TASKS_HOOK_TIMEOUT_MS: undefined`). */
const runHook = (input: unknown, env: HookEnv = {}) => hook('claude-code', input, env);

/** Runs the hook and expects the silent success of a recording event: exit 0, nothing on stdout or stderr. */
async function record(input: unknown, env: HookEnv = {}) {
  const run = await runHook(input, env);
  expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
  return run;
}

/** The agent-tasks session of a Claude Code session, as a dashboard lists it. */
async function sessionOf(externalId: string) {
  const found = (await viewer.sessions.list()).sessions.filter((s) => s.externalId === externalId);
  expect(found).toHaveLength(1);
  return found[0]!;
}

const todo = (content: string, status: Todo['status'], activeForm: string): Todo => ({ content, status, activeForm });
const answerOf = (run: HookRun) => JSON.parse(run.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };

describe('PostToolUse for TodoWrite', () => {
  it('records the list in a session keyed by the Claude Code session id, opened on first sight, activeForm kept', async () => {
    const s = claudeSession('/home/dev/projects/shop-api');
    expect(await countRows(server, 'Session', '"externalId" = ?', s.sessionId)).toBe(0);
    const first = [
      todo('Reproduce the bug', 'completed', 'Reproducing the bug'),
      todo('Write the fix', 'in_progress', 'Writing the fix'),
      todo('Run the tests', 'pending', 'Running the tests'),
    ];
    await record(todoWrite(s, first));

    const session = await sessionOf(s.sessionId);
    expect(session).toMatchObject({ parentId: null, title: 'Claude Code: shop-api', externalId: s.sessionId });
    let view = await viewer.sessions.get({ sessionId: session.id });
    expect(view.todo).toMatchObject({ revision: 1, items: first, counts: { pending: 1, inProgress: 1, completed: 1 } });

    // The next TodoWrite of the same Claude Code session lands on the same session, as revision 2.
    const second = [
      todo('Reproduce the bug', 'completed', 'Reproducing the bug'),
      todo('Write the fix', 'completed', 'Writing the fix'),
      todo('Run the tests', 'in_progress', 'Running the tests'),
    ];
    await record(todoWrite(s, second, first));
    expect(await countRows(server, 'Session', '"externalId" = ?', s.sessionId)).toBe(1);
    view = await viewer.sessions.get({ sessionId: session.id });
    expect(view.todo).toMatchObject({ revision: 2, items: second, counts: { pending: 0, inProgress: 1, completed: 2 } });
    // activeForm is display text: it is not part of what an update changed.
    const [card] = (await viewer.todos.history({ sessionId: session.id, limit: 1 })).cards;
    expect(card?.changes).toEqual({
      added: [],
      removed: [],
      statusChanged: [
        { content: 'Write the fix', from: 'in_progress', to: 'completed' },
        { content: 'Run the tests', from: 'pending', to: 'in_progress' },
      ],
    });
  });

  it('shows in the dashboard live: a viewer watching the session receives the new list', async () => {
    const s = claudeSession();
    await record(todoWrite(s, [todo('Read the issue', 'in_progress', 'Reading the issue')]));
    const session = await sessionOf(s.sessionId);
    const received: { id: string; items: unknown }[] = [];
    const feed = viewer.todos.watch(
      { sessionId: session.id, lastEventId: '1' },
      { onData: ({ id, data }) => received.push({ id, items: data.items }) },
    );
    try {
      await record(
        todoWrite(s, [
          todo('Read the issue', 'completed', 'Reading the issue'),
          todo('Plan the change', 'in_progress', 'Planning the change'),
        ]),
      );
      await expect
        .poll(() => received, { timeout: 10_000 })
        .toEqual([
          {
            id: '2',
            items: [
              { content: 'Read the issue', status: 'completed', activeForm: 'Reading the issue' },
              { content: 'Plan the change', status: 'in_progress', activeForm: 'Planning the change' },
            ],
          },
        ]);
    } finally {
      feed.unsubscribe();
    }
  });

  it("a subagent's TodoWrite goes to its own subagent session; the main list is untouched", async () => {
    const s = claudeSession();
    await record(todoWrite(s, [todo('Ship the release', 'in_progress', 'Shipping the release')]));
    const sub: ClaudeSession = { ...s, agent: { id: 'agent-7f3a', type: 'Explore' } };
    await record(todoWrite(sub, [todo('Find the config loader', 'in_progress', 'Finding the config loader')]));

    const main = await sessionOf(s.sessionId);
    const child = await sessionOf(`${s.sessionId}/agent-7f3a`);
    expect(child).toMatchObject({ parentId: main.id, title: 'Claude Code subagent: Explore' });
    expect((await viewer.todos.get({ sessionId: main.id })).items).toEqual([
      { content: 'Ship the release', status: 'in_progress', activeForm: 'Shipping the release' },
    ]);
    expect((await viewer.todos.get({ sessionId: child.id })).items).toEqual([
      { content: 'Find the config loader', status: 'in_progress', activeForm: 'Finding the config loader' },
    ]);
  });

  it('a list agent-tasks refuses is reported in one stderr line, exit 0, and nothing is recorded', async () => {
    const s = claudeSession();
    await record(todoWrite(s, [todo('Run the tests', 'pending', 'Running the tests')]));
    const session = await sessionOf(s.sessionId);
    // Claude Code sends only its three states; anything else is not a list agent-tasks can keep.
    const run = await runHook(todoWrite(s, [{ content: 'Run the tests', status: 'blocked', activeForm: 'Running' } as never]));
    expect(run).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        'agent-tasks hook: agent-tasks refused: invalid todo: `todos[0].status` must be one of pending, in_progress, completed (got "blocked").\n',
    });
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(1);
  });

  it('another key cannot take over a Claude Code session opened with this key; nothing is recorded', async () => {
    const s = claudeSession();
    await record(todoWrite(s, [todo('Mine', 'pending', 'Doing mine')]));
    const session = await sessionOf(s.sessionId);
    const otherKey = (await adminClient(server).keys.create({ name: 'other agent', role: 'agent' })).token;
    const tokensBefore = await countRows(server, 'SessionToken', '"sessionId" = ?', session.id);

    const run = await runHook(todoWrite(s, [todo('Theirs', 'pending', 'Doing theirs')]), { AGENT_TASKS_TOKEN: otherKey });
    expect(run).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `agent-tasks hook: agent-tasks refused: forbidden: the session with external id "${s.sessionId}" was opened with another key.\n`,
    });
    expect(await countRows(server, 'Session', '"externalId" = ?', s.sessionId)).toBe(1);
    expect(await countRows(server, 'SessionToken', '"sessionId" = ?', session.id)).toBe(tokensBefore);
    expect((await viewer.todos.get({ sessionId: session.id })).items).toEqual([
      { content: 'Mine', status: 'pending', activeForm: 'Doing mine' },
    ]);
  });
});

describe('PostToolUse for TaskCreate and TaskUpdate', () => {
  it('mirrors the tasks into a list named after the session, with their dependencies, owner and activeForm', async () => {
    const s = claudeSession();
    // Three hooks at once (parallel tool calls): all three see the session for the first time, and share one.
    await Promise.all([
      record(taskCreate(s, '1', { subject: 'Build frontend', description: 'The React app', activeForm: 'Building frontend' })),
      record(taskCreate(s, '2', { subject: 'Build backend', description: 'The API', activeForm: 'Building backend' })),
      record(taskCreate(s, '3', { subject: 'Run integration tests', description: 'Both together', metadata: { suite: 'e2e' } })),
    ]);
    expect(await countRows(server, 'Session', '"externalId" = ?', s.sessionId)).toBe(1);
    await record(taskUpdate(s, { taskId: '3', addBlockedBy: ['1', '2'] }));
    await record(taskUpdate(s, { taskId: '1', status: 'in_progress', owner: 'main' }));

    const session = await sessionOf(s.sessionId);
    const listName = s.listName;
    const id = (claudeId: string) => claudeMirrorTaskId(session.workspaceId, s.sessionId, claudeId);
    const listed = await agent.tasks.list({ listName });
    expect(listed.tasks.map((t) => [t.id, t.subject, t.status, t.blockedBy]).sort()).toEqual(
      [
        [id('1'), 'Build frontend', 'in_progress', []],
        [id('2'), 'Build backend', 'pending', []],
        [id('3'), 'Run integration tests', 'pending', [id('1'), id('2')]],
      ].sort(),
    );
    expect(await agent.tasks.get({ listName, id: id('1') })).toMatchObject({
      subject: 'Build frontend',
      description: 'The React app',
      activeForm: 'Building frontend',
      owner: 'main',
      threadID: session.id,
      metadata: { claudeCode: { taskId: '1', listName: s.sessionId } },
    });
    expect((await agent.tasks.get({ listName, id: id('3') })).metadata).toEqual({
      suite: 'e2e',
      claudeCode: { taskId: '3', listName: s.sessionId },
    });

    await record(taskUpdate(s, { taskId: '1', status: 'completed' }));
    await record(taskUpdate(s, { taskId: '2', status: 'deleted' }));
    const ready = await agent.tasks.list({ listName, readyOnly: true });
    expect(ready.tasks.map((t) => t.subject)).toEqual(['Run integration tests']);
  });

  it('a TaskCreate delivered twice leaves one task; an update of a task it never saw is reported, exit 0', async () => {
    const s = claudeSession();
    const create = taskCreate(s, '1', { subject: 'Write the changelog', description: '' });
    await record(create);
    await record(create);
    const session = await sessionOf(s.sessionId);
    expect((await agent.tasks.list({ listName: s.listName })).tasks).toHaveLength(1);

    const run = await runHook(taskUpdate(s, { taskId: '9', status: 'completed' }));
    const missing = claudeMirrorTaskId(session.workspaceId, s.sessionId, '9');
    expect(run).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `agent-tasks hook: agent-tasks refused: task ${missing} not found in list "${s.listName}".\n`,
    });
  });

  it('sessions sharing CLAUDE_CODE_TASK_LIST_ID share one mirrored list', async () => {
    const env = { CLAUDE_CODE_TASK_LIST_ID: `sprint-${Date.now()}` };
    const a = claudeSession();
    const b = claudeSession();
    await record(taskCreate(a, '1', { subject: 'Migrate the orders table', description: '' }), env);
    await record(taskUpdate(b, { taskId: '1', status: 'in_progress', owner: 'session-b' }), env);
    const listed = await agent.tasks.list({ listName: env.CLAUDE_CODE_TASK_LIST_ID });
    expect(listed.tasks.map((t) => [t.subject, t.status, t.owner])).toEqual([['Migrate the orders table', 'in_progress', 'session-b']]);
  });
});

describe('SessionStart', () => {
  it('answers resume and compact with the current plan as additional context; startup with none when there is none; clear with the open tasks only', async () => {
    const s = claudeSession();
    expect(await runHook(sessionStart(s, 'startup'))).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await Promise.all([
      record(
        todoWrite(s, [
          todo('Reproduce the bug', 'completed', 'Reproducing the bug'),
          todo('Write the fix', 'in_progress', 'Writing the fix'),
          todo('Run the tests', 'pending', 'Running the tests'),
        ]),
      ),
      (async () => {
        // In turn: the list keeps creation order, which the answer follows.
        for (const [id, subject] of [
          ['1', 'Build frontend'],
          ['2', 'Build backend'],
          ['3', 'Run integration tests'],
        ] as const) {
          await record(taskCreate(s, id, { subject, description: '' }));
        }
      })(),
    ]);
    await Promise.all([
      record(taskUpdate(s, { taskId: '3', addBlockedBy: ['1', '2'] })),
      record(taskUpdate(s, { taskId: '1', status: 'completed' })),
    ]);

    const expected = [
      'Todo list (kept by agent-tasks, revision 1; send the whole list again with TodoWrite when it changes):',
      '- [completed] Reproduce the bug',
      '- [in_progress] Write the fix (now: Writing the fix)',
      '- [pending] Run the tests',
      `Open tasks of task list "${s.listName}", shared by every agent in this project (kept by agent-tasks; update yours, #n, with TaskUpdate):`,
      '- #2 [pending] Build backend',
      '- #3 [pending] Run integration tests (blocked by #2)',
    ].join('\n');
    const [compact, resume, startup, clear] = await Promise.all(
      (['compact', 'resume', 'startup', 'clear'] as const).map((source) => runHook(sessionStart(s, source))),
    );
    for (const run of [compact, resume, startup]) {
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(answerOf(run!)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: expected } });
    }
    // /clear asks for a fresh conversation: its todo list is not pushed back, the project's open tasks are.
    expect(clear).toMatchObject({ code: 0, stderr: '' });
    expect(answerOf(clear!).hookSpecificOutput.additionalContext).toBe(expected.split('\n').slice(4).join('\n'));
  });
});

describe('never blocking the agent', () => {
  it('ignores events and tools it does not mirror: no session, no output', async () => {
    const s = claudeSession();
    expect(await runHook(readUse(s))).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await countRows(server, 'Session', '"externalId" = ?', s.sessionId)).toBe(0);
  });

  it('reports bad input and missing settings in one stderr line, exit 0', async () => {
    expect(await runHook('{"session_id": ')).toEqual(
      expect.objectContaining({
        code: 0,
        stdout: '',
        stderr: 'agent-tasks hook: the hook input on stdin is not JSON; nothing was recorded.\n',
      }),
    );
    expect(await runHook({ hook_event_name: 'PostToolUse', tool_name: 'TodoWrite' })).toEqual(
      expect.objectContaining({
        code: 0,
        stdout: '',
        stderr: 'agent-tasks hook: the hook input is not in the shape Claude Code documents; nothing was recorded.\n',
      }),
    );
    expect(await runHook(todoWrite(claudeSession(), []), { AGENT_TASKS_TOKEN: '' })).toEqual(
      expect.objectContaining({
        code: 0,
        stdout: '',
        stderr: 'agent-tasks hook: set AGENT_TASKS_URL and AGENT_TASKS_TOKEN (an agent key); nothing was recorded.\n',
      }),
    );
  });

  describe('a server that is down or never answers', () => {
    let hanging: http.Server;
    let hangingUrl: string;
    beforeAll(async () => {
      // Accepts connections and requests, and never answers.
      hanging = http.createServer(() => undefined);
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
      hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    });

    /**
     * Runs the hook with the default 2 s limit, side by side with a run on an event the hook ignores: that run's time
     * is what starting the process costs under the same load, and `beyondStart` is the rest.
     */
    async function timed(input: unknown, url: string) {
      const env = { AGENT_TASKS_URL: url, AGENT_TASKS_HOOK_TIMEOUT_MS: undefined };
      /** One run and its time from spawning the process to its exit. */
      const clocked = async (payload: unknown) => {
        const started = Date.now();
        const run = await runHook(payload, env);
        return { ...run, ms: Date.now() - started };
      };
      const [run, baseline] = await Promise.all([clocked(input), clocked(readUse(claudeSession()))]);
      expect(baseline).toMatchObject({ code: 0, stdout: '', stderr: '' });
      return { ...run, beyondStart: run.ms - baseline.ms };
    }
    afterAll(async () => {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    });

    it('down: exit 0 with one stderr line, promptly after starting (target: well within 2.5 s)', async () => {
      const down = await startReceiver({ down: true, path: '' });
      const run = await timed(todoWrite(claudeSession(), [todo('Anything', 'pending', 'Doing anything')]), down.url);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `agent-tasks hook: could not reach agent-tasks at ${down.url} (connect ECONNREFUSED 127.0.0.1:${down.port}); nothing was recorded.\n`,
      );
      expect(run.beyondStart).toBeLessThan(guardMs(2_500));
    });

    it('never answering: gives up after 2 s (its stderr line says so), exit 0, soon after (target: within 2.5 s beyond starting the process)', async () => {
      for (const input of [
        todoWrite(claudeSession(), [todo('Anything', 'pending', 'Doing anything')]),
        sessionStart(claudeSession(), 'compact'),
      ]) {
        const run = await timed(input, hangingUrl);
        expect(run).toMatchObject({
          code: 0,
          stdout: '',
          stderr: `agent-tasks hook: agent-tasks at ${hangingUrl} did not answer within 2 s; nothing was recorded.\n`,
        });
        expect(run.beyondStart).toBeLessThan(guardMs(2_500));
      }
    });

    it('the handler itself resolves 0 after its 2 s deadline against a server that never answers (target: by 2.5 s)', async () => {
      let stderr = '';
      let stdout = '';
      const started = performance.now();
      const code = await runClaudeCodeHook({
        stdin: JSON.stringify(sessionStart(claudeSession(), 'resume')),
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
        env: { AGENT_TASKS_URL: hangingUrl, AGENT_TASKS_TOKEN: agentKey },
      });
      const elapsed = performance.now() - started;
      expect({ code, stdout, stderr }).toEqual({
        code: 0,
        stdout: '',
        stderr: `agent-tasks hook: agent-tasks at ${hangingUrl} did not answer within 2 s; nothing was recorded.\n`,
      });
      expect(elapsed).toBeGreaterThanOrEqual(1990);
      expect(elapsed).toBeLessThan(guardMs(2_500));
    });
  });
});
