// Black-box tests of todo_write (seed 000) over HTTP: replacement, trimming, every refusal, answers and cards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, keyClient, oneOfEachState, refused, sessionClient, todo } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const updates = (sessionId: string) => countRows(server, 'TodoUpdate', '"sessionId" = ?', sessionId);

/** Asserts a refusal's exact text and code, and that the session's list and history did not move. */
async function expectRefusedUnchanged(s: Awaited<ReturnType<typeof sessionClient>>, input: unknown, message: string, code: string) {
  const before = await s.client.todos.get();
  const rows = await updates(s.session.id);
  const refusal = await refused(s.client.todos.write(input as never));
  expect(refusal.message).toBe(message);
  expect(refusal.code).toBe(code);
  expect(await s.client.todos.get()).toEqual(before);
  expect(await updates(s.session.id)).toBe(rows);
}

describe('todo_write records whole lists', () => {
  it('answers with the counts of the whole list and the new revision', async () => {
    const s = await sessionClient(server);
    const answer = await s.client.todos.write({
      todos: [...oneOfEachState, todo('Open a PR')],
    });
    expect(answer).toEqual({
      message: 'Updated todo list: 2 pending, 1 in progress, 1 completed',
      revision: 1,
      counts: { pending: 2, inProgress: 1, completed: 1 },
    });
  });

  it('replaces the previous list: no partial update, a dropped item is gone', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({
      todos: [
        { content: 'A', status: 'pending' },
        { content: 'B', status: 'pending' },
      ],
    });
    await s.client.todos.write({ todos: [{ content: 'B', status: 'in_progress' }] });
    const list = await s.client.todos.get();
    expect(list.items).toEqual([{ content: 'B', status: 'in_progress' }]);
    expect(list.revision).toBe(2);
  });

  it('trims every item before recording it', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: [{ content: '   Run tests \n', status: 'pending' }] });
    expect((await s.client.todos.get()).items).toEqual([{ content: 'Run tests', status: 'pending' }]);
  });

  it('accepts an empty list, which clears the list', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: [{ content: 'A', status: 'pending' }] });
    const answer = await s.client.todos.write({ todos: [] });
    expect(answer.message).toBe('Updated todo list: 0 pending, 0 in progress, 0 completed');
    expect((await s.client.todos.get()).items).toEqual([]);
  });

  it('keeps every update as a card with what it changed, newest first, paged', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({
      todos: [
        { content: 'A', status: 'pending' },
        { content: 'B', status: 'pending' },
      ],
    });
    await s.client.todos.write({
      todos: [
        { content: 'A', status: 'in_progress' },
        { content: 'C', status: 'pending' },
      ],
    });
    await s.client.todos.write({
      todos: [
        { content: 'A', status: 'completed' },
        { content: 'C', status: 'in_progress' },
      ],
    });

    const first = await s.client.todos.history({ limit: 2 });
    expect(first.cards.map((c) => c.revision)).toEqual([3, 2]);
    expect(first.nextBefore).toBe(2);
    expect(first.cards[1]?.changes).toEqual({
      added: ['C'],
      removed: ['B'],
      statusChanged: [{ content: 'A', from: 'pending', to: 'in_progress' }],
    });
    expect(first.cards[0]?.items).toEqual([
      { content: 'A', status: 'completed' },
      { content: 'C', status: 'in_progress' },
    ]);
    const second = await s.client.todos.history({ limit: 2, before: first.nextBefore ?? 0 });
    expect(second.cards.map((c) => c.revision)).toEqual([1]);
    expect(second.cards[0]?.changes.added).toEqual(['A', 'B']);
    expect(second.nextBefore).toBeNull();
  });
});

describe('todo_write refusals record nothing', () => {
  it('refuses an item whose text is empty once trimmed', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: [{ content: 'Keep me', status: 'pending' }] });
    await expectRefusedUnchanged(
      s,
      {
        todos: [
          { content: 'Fine', status: 'pending' },
          { content: '   ', status: 'pending' },
        ],
      },
      'Error: invalid todo: `content` must be a non-empty string. At `todos[1].content`.',
      'INVALID_TODOS',
    );
  });

  it('refuses repeated text, compared after trimming', async () => {
    const s = await sessionClient(server);
    await expectRefusedUnchanged(
      s,
      {
        todos: [
          { content: 'Run tests', status: 'pending' },
          { content: ' Run tests ', status: 'completed' },
        ],
      },
      'Error: invalid todos: duplicate content "Run tests"',
      'INVALID_TODOS',
    );
  });

  it('refuses two items in progress while the one-active rule is on', async () => {
    const s = await sessionClient(server);
    await expectRefusedUnchanged(
      s,
      {
        todos: [
          { content: 'A', status: 'in_progress' },
          { content: 'B', status: 'in_progress' },
          { content: 'C', status: 'in_progress' },
        ],
      },
      'Error: invalid todos: at most one task may be in_progress (got 3)',
      'INVALID_TODOS',
    );
  });

  it('refuses an update with no owning session (an agent key without a session token)', async () => {
    const agent = await keyClient(server, 'agent');
    const total = await countRows(server, 'TodoUpdate');
    const refusal = await refused(agent.todos.write({ todos: [{ content: 'A', status: 'pending' }] }));
    expect(refusal.message).toBe('Error: todo_write requires an owning agent session before anything is written.');
    expect(refusal.code).toBe('NO_OWNING_SESSION');
    expect(await countRows(server, 'TodoUpdate')).toBe(total);
  });

  it('refuses an item with an id, a priority or any other field', async () => {
    const s = await sessionClient(server);
    await expectRefusedUnchanged(
      s,
      { todos: [{ content: 'A', status: 'pending', id: '1' }] },
      'Error: invalid todo: unknown field `todos[0].id`; an item is only its `content` and `status`.',
      'INVALID_INPUT',
    );
    await expectRefusedUnchanged(
      s,
      { todos: [{ content: 'A', status: 'pending', priority: 'high' }] },
      'Error: invalid todo: unknown field `todos[0].priority`; an item is only its `content` and `status`.',
      'INVALID_INPUT',
    );
  });

  it('refuses a bad status', async () => {
    const s = await sessionClient(server);
    await expectRefusedUnchanged(
      s,
      { todos: [{ content: 'A', status: 'done' }] },
      'Error: invalid todo: `todos[0].status` must be one of pending, in_progress, completed (got "done").',
      'INVALID_INPUT',
    );
  });

  it('refuses content that is not a string', async () => {
    const s = await sessionClient(server);
    await expectRefusedUnchanged(
      s,
      { todos: [{ content: 42, status: 'pending' }] },
      'Error: invalid todo: `content` must be a non-empty string. At `todos[0].content`.',
      'INVALID_INPUT',
    );
  });

  it('refuses more than 100 items, and accepts exactly 100', async () => {
    const s = await sessionClient(server);
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ content: `Step ${i + 1}`, status: 'pending' as const }));
    await expectRefusedUnchanged(s, { todos: items(101) }, 'Error: invalid todos: at most 100 items per list (got 101).', 'INVALID_INPUT');
    expect((await s.client.todos.write({ todos: items(100) })).counts.pending).toBe(100);
  });

  it('refuses an item over 1,000 characters, and accepts exactly 1,000', async () => {
    const s = await sessionClient(server);
    await expectRefusedUnchanged(
      s,
      { todos: [{ content: 'x'.repeat(1001), status: 'pending' }] },
      'Error: invalid todo: `todos[0].content` must be at most 1000 characters (got 1001).',
      'INVALID_INPUT',
    );
    expect((await s.client.todos.write({ todos: [{ content: 'x'.repeat(1000), status: 'pending' }] })).revision).toBe(1);
  });

  it('refuses a list that is not an array, and unknown top-level fields', async () => {
    const s = await sessionClient(server);
    await expectRefusedUnchanged(
      s,
      { todos: 'A, B' },
      'Error: invalid todos: `todos` must be an array of { content, status } items.',
      'INVALID_INPUT',
    );
    await expectRefusedUnchanged(
      s,
      { todos: [], sessionId: 'ses_other' },
      'Error: invalid input: unknown field `sessionId`.',
      'INVALID_INPUT',
    );
  });
});

describe('the one-active rule is a workspace setting', () => {
  it('is on by default; when off, several items may be in progress; turning it on keeps earlier lists', async () => {
    const admin = adminClient(server);
    const { workspace, adminKey } = await admin.workspaces.create({ name: 'parallel team' });
    const { createClient, openSessionClient } = await import('@agent-tasks/sdk');
    const teamAdmin = createClient({ url: server.url, token: adminKey });
    expect(await teamAdmin.workspaces.settings()).toEqual({ oneActiveRule: true });
    expect((await teamAdmin.workspaces.whoami()).workspace.id).toBe(workspace.id);

    expect(await teamAdmin.workspaces.updateSettings({ oneActiveRule: false })).toEqual({ oneActiveRule: false });
    const { token } = await teamAdmin.keys.create({ name: 'agent', role: 'agent' });
    const s = await openSessionClient(createClient({ url: server.url, token }));
    const two = [
      { content: 'Build frontend', status: 'in_progress' as const },
      { content: 'Build backend', status: 'in_progress' as const },
    ];
    expect((await s.client.todos.write({ todos: two })).message).toBe('Updated todo list: 0 pending, 2 in progress, 0 completed');

    await teamAdmin.workspaces.updateSettings({ oneActiveRule: true });
    expect((await s.client.todos.get()).items).toEqual(two);
    const refusal = await refused(s.client.todos.write({ todos: two }));
    expect(refusal.message).toBe('Error: invalid todos: at most one task may be in_progress (got 2)');
    expect((await s.client.todos.get()).revision).toBe(1);
  });

  it('can be changed only by an admin', async () => {
    const agent = await keyClient(server, 'agent');
    const refusal = await refused(agent.workspaces.updateSettings({ oneActiveRule: false }));
    expect(refusal.message).toBe('Error: forbidden: this call needs an admin key (this key is agent).');
    expect(refusal.code).toBe('FORBIDDEN');
    expect(await adminClient(server).workspaces.settings()).toEqual({ oneActiveRule: true });
  });
});
