// Black-box tests of sessions over HTTP: opening, subagents with their own lists, turns and the standing plan.
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, keyClient, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe('sessions', () => {
  it('an agent key opens a session with a title and gets a session token that acts as it', async () => {
    const agent = await keyClient(server, 'agent');
    const opened = await agent.sessions.open({ title: '  Fix the login bug ' });
    expect(opened.session).toMatchObject({ title: 'Fix the login bug', parentId: null, turn: { number: 0, state: 'none' } });
    expect(opened.token).toMatch(/^ats_/);
    const me = await createClient({ url: server.url, token: opened.token }).workspaces.whoami();
    expect(me).toMatchObject({ role: 'agent', sessionId: opened.session.id });
    expect((await agent.sessions.list()).sessions.map((s) => s.id)).toContain(opened.session.id);
  });

  it('a session token opens a subagent session: parent recorded, its own list, nothing shared', async () => {
    const parent = await sessionClient(server, 'lead');
    const child = await openSessionClient(parent.client, { title: 'helper' });
    expect(child.session.parentId).toBe(parent.session.id);

    await parent.client.todos.write({ todos: [{ content: 'Plan the work', status: 'in_progress' }] });
    await child.client.todos.write({ todos: [{ content: 'Search the code', status: 'completed' }] });
    expect((await parent.client.todos.get()).items).toEqual([{ content: 'Plan the work', status: 'in_progress' }]);
    expect((await child.client.todos.get()).items).toEqual([{ content: 'Search the code', status: 'completed' }]);
    // Each reads the other's list by id, but a write always lands on the caller's own session.
    expect((await parent.client.todos.get({ sessionId: child.session.id })).revision).toBe(1);
  });

  it('refuses to open a session with a viewer key, and records none', async () => {
    const viewer = await keyClient(server, 'viewer');
    const before = await countRows(server, 'Session');
    const refusal = await refused(viewer.sessions.open({ title: 'x' }));
    expect(refusal.message).toBe('Error: forbidden: viewer keys are read-only (this key is viewer).');
    expect(refusal.code).toBe('FORBIDDEN');
    expect(await countRows(server, 'Session')).toBe(before);
  });

  it('refuses a bad title with a clear error and records nothing', async () => {
    const agent = await keyClient(server, 'agent');
    const before = await countRows(server, 'Session');
    expect((await refused(agent.sessions.open({ title: '   ' }))).message).toBe('Error: invalid input: `title` must not be empty.');
    expect((await refused(agent.sessions.open({ title: 'x'.repeat(201) }))).message).toBe(
      'Error: invalid input: `title` must be at most 200 characters.',
    );
    expect((await refused(agent.sessions.open({ title: 'x', parentId: 'ses_1' } as never))).message).toBe(
      'Error: invalid input: unknown field `parentId`.',
    );
    expect(await countRows(server, 'Session')).toBe(before);
  });
});

describe('turns and the standing plan', () => {
  it('shows the plan while a turn runs, keeps the finished checklist after it ends, clears it when the next starts', async () => {
    const s = await sessionClient(server);
    let view = await s.client.sessions.get();
    expect(view.standingPlan).toBeNull();
    expect(view.session.turn).toEqual({ number: 0, state: 'none' });

    expect((await s.client.sessions.startTurn()).session.turn).toEqual({ number: 1, state: 'running' });
    await s.client.todos.write({
      todos: [
        { content: 'Fix bug', status: 'in_progress' },
        { content: 'Test', status: 'pending' },
      ],
    });
    view = await s.client.sessions.get();
    expect(view.standingPlan).toEqual({
      revision: 1,
      turnNumber: 1,
      items: [
        { content: 'Fix bug', status: 'in_progress' },
        { content: 'Test', status: 'pending' },
      ],
    });

    await s.client.todos.write({
      todos: [
        { content: 'Fix bug', status: 'completed' },
        { content: 'Test', status: 'completed' },
      ],
    });
    expect((await s.client.sessions.endTurn()).session.turn).toEqual({ number: 1, state: 'ended' });
    view = await s.client.sessions.get();
    expect(view.standingPlan?.items).toEqual([
      { content: 'Fix bug', status: 'completed' },
      { content: 'Test', status: 'completed' },
    ]);

    await s.client.sessions.startTurn();
    view = await s.client.sessions.get();
    expect(view.standingPlan).toBeNull();
    expect(view.session.turn).toEqual({ number: 2, state: 'running' });
    expect(view.todo.items).toHaveLength(2); // the list itself stays: the latest update is the list
    expect(view.todo.revision).toBe(2);

    await s.client.todos.write({ todos: [{ content: 'Next step', status: 'in_progress' }] });
    expect((await s.client.sessions.get()).standingPlan).toMatchObject({ revision: 3, turnNumber: 2 });
  });

  it('refuses to start a turn while one runs, or end one when none runs, changing nothing', async () => {
    const s = await sessionClient(server);
    const noTurn = await refused(s.client.sessions.endTurn());
    expect(noTurn.message).toBe('Error: no turn is running; start one first.');
    expect(noTurn.code).toBe('CONFLICT');
    await s.client.sessions.startTurn();
    const running = await refused(s.client.sessions.startTurn());
    expect(running.message).toBe('Error: turn 1 is still running; end it before starting the next.');
    expect((await s.client.sessions.get()).session.turn).toEqual({ number: 1, state: 'running' });
  });

  it('refuses turns without a session token', async () => {
    const agent = await keyClient(server, 'agent');
    const refusal = await refused(agent.sessions.startTurn());
    expect(refusal.message).toBe('Error: turns belong to a session: call with a session token.');
  });

  it('lets a dashboard (viewer key) read a session view by id', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: [{ content: 'A', status: 'pending' }] });
    const viewer = await keyClient(server, 'viewer');
    const view = await viewer.sessions.get({ sessionId: s.session.id });
    expect(view.todo.items).toEqual([{ content: 'A', status: 'pending' }]);
    expect((await refused(viewer.sessions.get())).message).toBe('Error: invalid input: name a `sessionId`, or call with a session token.');
    expect((await refused(viewer.sessions.get({ sessionId: 'ses_nope' }))).message).toBe('Error: session ses_nope not found.');
  });
});

describe('admin', () => {
  it('only admins list keys', async () => {
    const admin = adminClient(server);
    const { keys } = await admin.keys.list();
    expect(keys[0]).toMatchObject({ role: 'admin', name: 'first admin key', revokedAt: null });
    expect(JSON.stringify(keys)).not.toContain(server.adminKey);
  });
});
