// Black-box tests of find-or-open by an external id (sessions.open { externalId }) and of todos.mirror, the contract
// the Claude Code hook writes through: same session for the same key, concurrent first opens, refusals that record nothing.
import { createClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, keyClient, refused } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe('sessions.open with an externalId', () => {
  it('the first open creates the session, later ones return it with a further token; all tokens act as it', async () => {
    const agent = await keyClient(server, 'agent');
    const first = await agent.sessions.open({ externalId: '  2b1f-claude  ', title: 'Claude Code: api' });
    expect(first.session).toMatchObject({ externalId: '2b1f-claude', title: 'Claude Code: api', parentId: null });
    const again = await agent.sessions.open({ externalId: '2b1f-claude' });
    expect(again.session).toEqual(first.session);
    expect(again.token).not.toBe(first.token);
    for (const token of [first.token, again.token]) {
      expect((await createClient({ url: server.url, token }).workspaces.whoami()).sessionId).toBe(first.session.id);
    }
    expect(await countRows(server, 'Session', '"externalId" = ?', '2b1f-claude')).toBe(1);
    expect(await countRows(server, 'SessionToken', '"sessionId" = ?', first.session.id)).toBe(1);
  });

  it('ten concurrent first opens of one key end in one session', async () => {
    const agent = await keyClient(server, 'agent');
    const opened = await Promise.all(Array.from({ length: 10 }, () => agent.sessions.open({ externalId: 'race-1' })));
    expect(new Set(opened.map((o) => o.session.id)).size).toBe(1);
    expect(new Set(opened.map((o) => o.token)).size).toBe(10);
    expect(await countRows(server, 'Session', '"externalId" = ?', 'race-1')).toBe(1);
    expect(await countRows(server, 'SessionToken', '"sessionId" = ?', opened[0]!.session.id)).toBe(9);
  });

  it('refuses a bad external id, or another key reopening a session, and records nothing', async () => {
    const agent = await keyClient(server, 'agent');
    const other = await keyClient(server, 'agent');
    await agent.sessions.open({ externalId: 'owned' });
    const sessions = await countRows(server, 'Session');
    const tokens = await countRows(server, 'SessionToken');
    // Each call starts when its case is checked: started all at once and awaited in turn, a later refusal could come
    // before its handler was attached (an unhandled rejection, failing the run, when the machine was busy).
    const cases: [() => Promise<unknown>, string][] = [
      [() => agent.sessions.open({ externalId: '   ' }), 'Error: invalid input: `externalId` must not be empty.'],
      [() => agent.sessions.open({ externalId: 'x'.repeat(201) }), 'Error: invalid input: `externalId` must be at most 200 characters.'],
      [() => agent.sessions.open({ externalId: 42 } as never), 'Error: invalid input: `externalId` must be a string.'],
      [
        () => other.sessions.open({ externalId: 'owned' }),
        'Error: forbidden: the session with external id "owned" was opened with another key.',
      ],
    ];
    for (const [call, text] of cases) expect((await refused(call())).message).toBe(text);
    expect(await countRows(server, 'Session')).toBe(sessions);
    expect(await countRows(server, 'SessionToken')).toBe(tokens);
  });

  it('the same external id in two workspaces names two sessions', async () => {
    const a = await keyClient(server, 'agent');
    const created = await adminClient(server).workspaces.create({ name: 'second' });
    const adminB = createClient({ url: server.url, token: created.adminKey });
    const b = createClient({ url: server.url, token: (await adminB.keys.create({ name: 'b', role: 'agent' })).token });
    const inA = await a.sessions.open({ externalId: 'shared-name' });
    const inB = await b.sessions.open({ externalId: 'shared-name' });
    expect(inA.session.id).not.toBe(inB.session.id);
    expect(inB.session.workspaceId).toBe(created.workspace.id);
  });
});

describe('todos.mirror', () => {
  it('records a list as the other tool holds it, keeping activeForm; todo_write itself still refuses activeForm', async () => {
    const { token } = await (await keyClient(server, 'agent')).sessions.open({ externalId: 'mirror-1' });
    const s = createClient({ url: server.url, token });
    const answer = await s.trpc.todos.mirror.mutate({
      todos: [
        { content: ' Run tests ', status: 'in_progress', activeForm: 'Running tests' },
        { content: 'Ship', status: 'pending' },
      ],
    });
    expect(answer).toEqual({
      message: 'Updated todo list: 1 pending, 1 in progress, 0 completed',
      revision: 1,
      counts: { pending: 1, inProgress: 1, completed: 0 },
    });
    expect((await s.todos.get()).items).toEqual([
      { content: 'Run tests', status: 'in_progress', activeForm: 'Running tests' },
      { content: 'Ship', status: 'pending' },
    ]);
    // The other tool's list is its own: two in progress and a long activeForm are kept, not refused.
    await s.trpc.todos.mirror.mutate({
      todos: [
        { content: 'A', status: 'in_progress', activeForm: 'x'.repeat(1001) },
        { content: 'B', status: 'in_progress' },
      ],
    });
    expect((await s.todos.get()).counts).toEqual({ pending: 0, inProgress: 2, completed: 0 });

    const before = await countRows(server, 'TodoUpdate');
    const cases: [() => Promise<unknown>, string][] = [
      [
        () => s.todos.write({ todos: [{ content: 'Run tests', status: 'pending', activeForm: 'Running tests' }] } as never),
        'Error: invalid todo: unknown field `todos[0].activeForm`; an item is only its `content` and `status`.',
      ],
      [
        () => s.trpc.todos.mirror.mutate({ todos: [{ content: 'Run tests', status: 'pending', id: '1' }] } as never),
        'Error: invalid todo: unknown field `todos[0].id`; a mirrored item is its `content`, `status` and `activeForm`.',
      ],
      [
        () => s.trpc.todos.mirror.mutate({ todos: [], forkOf: 'mirror-0' }),
        'Error: invalid input: send either `todos` (the whole list) or `forkOf` (the session it was forked from).',
      ],
      [
        () => s.trpc.todos.mirror.mutate({}),
        'Error: invalid input: send either `todos` (the whole list) or `forkOf` (the session it was forked from).',
      ],
    ];
    for (const [call, text] of cases) expect((await refused(call())).message).toBe(text);
    expect(await countRows(server, 'TodoUpdate')).toBe(before);
  });
});
