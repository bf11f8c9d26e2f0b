// Unit tests of sessions: opening (and subagent sessions), turns, the standing plan across turns, and one list per session.
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveActor, sessions, todos, keys } from '../src/index.ts';
import { type World, expectRefused, item, makeWorld } from './fixtures.ts';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});

/** The todo topics' events (the workspace's session signals are tested with the dashboard reads). */
const todoEvents = () => w.events.published.filter((e) => e.topic.startsWith('todo:'));

const view = (actor = w.session) => sessions.get(w.deps, actor, {});
const write = (todoItems: ReturnType<typeof item>[], actor = w.session) => todos.write(w.deps, actor, { todos: todoItems });

describe('opening sessions', () => {
  it('an agent key opens a top-level session with no turn yet; its token acts as that session', async () => {
    w.clock.set('2025-03-01T10:00:00.000Z');
    const opened = await sessions.open(w.deps, w.agent, { title: 'Fix the build' });
    expect(opened.session).toEqual({
      id: opened.session.id,
      workspaceId: w.workspaceId,
      parentId: null,
      title: 'Fix the build',
      agentName: opened.session.id,
      turn: { number: 0, state: 'none' },
      createdAt: '2025-03-01T10:00:00.000Z',
    });
    expect(await resolveActor(w.deps, opened.token)).toEqual({
      workspaceId: w.workspaceId,
      role: 'agent',
      keyId: w.agent.keyId,
      sessionId: opened.session.id,
      agentName: opened.session.id,
    });
  });

  it('the token is stored only as its hash', async () => {
    const opened = await sessions.open(w.deps, w.agent, {});
    const stored = w.store.snapshot().sessions.get(opened.session.id)!;
    expect(stored.tokenHash).toBe(`h:${opened.token}`);
    expect(JSON.stringify([...w.store.snapshot().sessions.values()])).not.toContain(`"${opened.token}"`);
    expect(opened.session.title).toBeNull();
  });

  it('an admin key can open a session too; a viewer cannot', async () => {
    expect((await sessions.open(w.deps, w.admin, {})).session.parentId).toBeNull();
    const snapshot = w.store.snapshot();
    await expectRefused(
      sessions.open(w.deps, w.viewer, {}),
      'FORBIDDEN',
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
    expect(w.store.snapshot()).toEqual(snapshot);
  });

  it('a session token opens a subagent session: its parent is the caller, its opener key is inherited', async () => {
    const sub = await sessions.open(w.deps, w.session, { title: 'subagent' });
    expect(sub.session.parentId).toBe(w.sessionId);
    expect(sub.session.workspaceId).toBe(w.workspaceId);
    const subActor = await resolveActor(w.deps, sub.token);
    expect(subActor).toEqual({
      workspaceId: w.workspaceId,
      role: 'agent',
      keyId: w.agent.keyId,
      sessionId: sub.session.id,
      agentName: sub.session.id,
    });
    const nested = await sessions.open(w.deps, subActor, {});
    expect(nested.session.parentId).toBe(sub.session.id);
  });

  it('lists the workspace sessions in the order they were opened', async () => {
    const sub = await sessions.open(w.deps, w.session, { title: 'subagent' });
    const listed = await sessions.list(w.deps, w.viewer);
    expect(listed.sessions.map((s) => [s.id, s.parentId])).toEqual([
      [w.sessionId, null],
      [sub.session.id, w.sessionId],
    ]);
  });
});

describe('opening by an external id (find-or-open)', () => {
  it('the first open creates the session; a later one returns it with a further token; every token acts as it', async () => {
    const first = await sessions.open(w.deps, w.agent, { externalId: 'cc-4f2a', title: 'Claude Code: shop' });
    expect(first.session).toMatchObject({ externalId: 'cc-4f2a', title: 'Claude Code: shop', parentId: null });
    const again = await sessions.open(w.deps, w.agent, { externalId: 'cc-4f2a', title: 'ignored on reopen' });
    expect(again.session).toEqual(first.session);
    expect(again.token).not.toBe(first.token);
    for (const token of [first.token, again.token]) {
      expect((await resolveActor(w.deps, token)).sessionId).toBe(first.session.id);
    }
    expect([...w.store.snapshot().sessions.values()].filter((x) => x.externalId === 'cc-4f2a')).toHaveLength(1);
    // A session opened without one shows no external id.
    expect((await sessions.open(w.deps, w.agent, {})).session).not.toHaveProperty('externalId');
  });

  it('keys are per workspace and per opener: another key is refused and nothing is recorded', async () => {
    await sessions.open(w.deps, w.agent, { externalId: 'cc-1' });
    const otherKey = (await keys.create(w.deps, w.admin, { name: 'other', role: 'agent' })).token;
    const other = await resolveActor(w.deps, otherKey);
    const snapshot = w.store.snapshot();
    await expectRefused(
      sessions.open(w.deps, other, { externalId: 'cc-1' }),
      'FORBIDDEN',
      'Error: forbidden: the session with external id "cc-1" was opened with another key.',
    );
    expect(w.store.snapshot()).toEqual(snapshot);
    // Through a session token of the same key, it is the same opener.
    expect((await sessions.open(w.deps, w.session, { externalId: 'cc-1' })).session.externalId).toBe('cc-1');
  });

  it('keeps the 20 newest further tokens; the first token always works', async () => {
    const first = await sessions.open(w.deps, w.agent, { externalId: 'cc-many' });
    const reopened = [];
    for (let i = 0; i < sessions.REOPEN_TOKENS_KEPT + 1; i++)
      reopened.push((await sessions.open(w.deps, w.agent, { externalId: 'cc-many' })).token);
    await expect(resolveActor(w.deps, reopened[0])).rejects.toThrow('Error: unauthorized: unknown API key or session token.');
    for (const token of [first.token, ...reopened.slice(1)]) expect((await resolveActor(w.deps, token)).sessionId).toBe(first.session.id);
  });
});

describe('one chat, one list (seed 000: "Where the list lives")', () => {
  it('a subagent keeps its own list; nothing is shared with its parent', async () => {
    const sub = await sessions.open(w.deps, w.session, { title: 'subagent' });
    const subActor = await resolveActor(w.deps, sub.token);
    await write([item('Parent step', 'in_progress')]);
    const out = await write([item('Child step'), item('Other child step', 'completed')], subActor);
    expect(out.revision).toBe(1);

    expect((await todos.get(w.deps, w.session, {})).items).toEqual([item('Parent step', 'in_progress')]);
    expect((await todos.get(w.deps, subActor, {})).items).toEqual([item('Child step'), item('Other child step', 'completed')]);
    expect((await todos.history(w.deps, w.admin, { sessionId: w.sessionId, limit: 10 })).cards).toHaveLength(1);
    expect(todoEvents().map((e) => e.topic)).toEqual([`todo:${w.sessionId}`, `todo:${sub.session.id}`]);
  });

  it('the same text may appear in two sessions lists', async () => {
    const other = await resolveActor(w.deps, (await sessions.open(w.deps, w.agent, {})).token);
    await write([item('Run tests')]);
    await expect(write([item('Run tests')], other)).resolves.toMatchObject({ revision: 1 });
  });

  it("a session token always writes its own list, even when it could read another (its subagent's)", async () => {
    const subagent = await sessions.open(w.deps, w.session, {});
    await write([item('Mine')]);
    expect((await todos.get(w.deps, w.session, { sessionId: subagent.session.id })).revision).toBe(0);
  });

  it("another chat's list is not readable by a session (nothing is shared between chats), nor told to exist", async () => {
    const sibling = await sessions.open(w.deps, w.agent, {});
    const subagent = await sessions.open(w.deps, w.session, {});
    const subActor = await resolveActor(w.deps, subagent.token);
    const missing = (id: string) => `Error: session ${id} not found.`;
    await expectRefused(todos.get(w.deps, w.session, { sessionId: sibling.session.id }), 'NOT_FOUND', missing(sibling.session.id));
    await expectRefused(sessions.get(w.deps, w.session, { sessionId: sibling.session.id }), 'NOT_FOUND', missing(sibling.session.id));
    // A subagent does not read the session above it; that session reads the subagent.
    await expectRefused(todos.get(w.deps, subActor, { sessionId: w.sessionId }), 'NOT_FOUND', missing(w.sessionId));
    expect((await todos.get(w.deps, w.session, { sessionId: subagent.session.id })).sessionId).toBe(subagent.session.id);
    expect((await sessions.list(w.deps, w.session)).sessions.map((s) => s.id).sort()).toEqual([w.sessionId, subagent.session.id].sort());
    expect((await sessions.list(w.deps, subActor)).sessions.map((s) => s.id)).toEqual([subagent.session.id]);
  });
});

describe('turns', () => {
  it('start and end move the turn number and state', async () => {
    expect((await sessions.startTurn(w.deps, w.session)).session.turn).toEqual({ number: 1, state: 'running' });
    expect((await sessions.endTurn(w.deps, w.session)).session.turn).toEqual({ number: 1, state: 'ended' });
    expect((await sessions.startTurn(w.deps, w.session)).session.turn).toEqual({ number: 2, state: 'running' });
    expect((await view()).session.turn).toEqual({ number: 2, state: 'running' });
  });

  it('refuses to start a turn while one runs, and changes nothing', async () => {
    await sessions.startTurn(w.deps, w.session);
    const snapshot = w.store.snapshot();
    await expectRefused(
      sessions.startTurn(w.deps, w.session),
      'CONFLICT',
      'Error: turn 1 is still running; end it before starting the next.',
    );
    expect(w.store.snapshot()).toEqual(snapshot);
  });

  it('refuses to end a turn when none runs (never started, or already ended)', async () => {
    await expectRefused(sessions.endTurn(w.deps, w.session), 'CONFLICT', 'Error: no turn is running; start one first.');
    await sessions.startTurn(w.deps, w.session);
    await sessions.endTurn(w.deps, w.session);
    const snapshot = w.store.snapshot();
    await expectRefused(sessions.endTurn(w.deps, w.session), 'CONFLICT', 'Error: no turn is running; start one first.');
    expect(w.store.snapshot()).toEqual(snapshot);
  });

  it('turns belong to a session: keys without one are refused, viewers as read-only', async () => {
    for (const actor of [w.agent, w.admin]) {
      await expectRefused(
        sessions.startTurn(w.deps, actor),
        'NO_OWNING_SESSION',
        'Error: turns belong to a session: call with a session token.',
      );
    }
    await expectRefused(
      sessions.endTurn(w.deps, w.viewer),
      'FORBIDDEN',
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
  });

  it('a subagent runs its own turns', async () => {
    const subActor = await resolveActor(w.deps, (await sessions.open(w.deps, w.session, {})).token);
    await sessions.startTurn(w.deps, w.session);
    expect((await sessions.startTurn(w.deps, subActor)).session.turn).toEqual({ number: 1, state: 'running' });
    expect((await sessions.endTurn(w.deps, subActor)).session.turn).toEqual({ number: 1, state: 'ended' });
    expect((await view()).session.turn).toEqual({ number: 1, state: 'running' });
  });
});

describe('the standing plan across turns (seed 000: "What the chat shows")', () => {
  it('is null before anything is written', async () => {
    expect((await view()).standingPlan).toBeNull();
  });

  it('shows the list recorded during the turn, stays after the turn ends, clears when the next starts', async () => {
    await sessions.startTurn(w.deps, w.session);
    await write([item('Read', 'completed'), item('Fix', 'in_progress')]);
    expect((await view()).standingPlan).toEqual({
      revision: 1,
      turnNumber: 1,
      items: [item('Read', 'completed'), item('Fix', 'in_progress')],
    });

    await write([item('Read', 'completed'), item('Fix', 'completed')]);
    expect((await view()).standingPlan).toEqual({
      revision: 2,
      turnNumber: 1,
      items: [item('Read', 'completed'), item('Fix', 'completed')],
    });

    await sessions.endTurn(w.deps, w.session);
    expect((await view()).standingPlan).toEqual({
      revision: 2,
      turnNumber: 1,
      items: [item('Read', 'completed'), item('Fix', 'completed')],
    });

    await sessions.startTurn(w.deps, w.session);
    const cleared = await view();
    expect(cleared.standingPlan).toBeNull();
    // The list itself is still the latest update: only the plan shown in the chat cleared.
    expect(cleared.todo).toMatchObject({ revision: 2, items: [item('Read', 'completed'), item('Fix', 'completed')] });

    await write([item('Deploy', 'in_progress')]);
    expect((await view()).standingPlan).toEqual({ revision: 3, turnNumber: 2, items: [item('Deploy', 'in_progress')] });
  });

  it('a list written before any turn started is the plan until the first turn starts', async () => {
    await write([item('A')]);
    expect((await view()).standingPlan).toEqual({ revision: 1, turnNumber: 0, items: [item('A')] });
    await sessions.startTurn(w.deps, w.session);
    expect((await view()).standingPlan).toBeNull();
  });

  it('a list written after the turn ended belongs to that turn and shows until the next starts', async () => {
    await sessions.startTurn(w.deps, w.session);
    await sessions.endTurn(w.deps, w.session);
    await write([item('A', 'completed')]);
    expect((await view()).standingPlan).toMatchObject({ revision: 1, turnNumber: 1 });
  });

  it('an empty list written in the turn is an empty standing plan, not none', async () => {
    await sessions.startTurn(w.deps, w.session);
    await write([item('A')]);
    await write([]);
    expect((await view()).standingPlan).toEqual({ revision: 2, turnNumber: 1, items: [] });
  });

  it('others read the same view by naming the session', async () => {
    await sessions.startTurn(w.deps, w.session);
    await write([item('A', 'in_progress')]);
    expect(await sessions.get(w.deps, w.viewer, { sessionId: w.sessionId })).toEqual(await view());
  });

  it('a subagent has its own standing plan', async () => {
    const subActor = await resolveActor(w.deps, (await sessions.open(w.deps, w.session, {})).token);
    await sessions.startTurn(w.deps, w.session);
    await write([item('Parent', 'in_progress')]);
    await sessions.startTurn(w.deps, subActor);
    expect((await view(subActor)).standingPlan).toBeNull();
    await write([item('Child', 'in_progress')], subActor);
    expect((await view(subActor)).standingPlan).toEqual({ revision: 1, turnNumber: 1, items: [item('Child', 'in_progress')] });
    expect((await view()).standingPlan!.items).toEqual([item('Parent', 'in_progress')]);
  });
});
