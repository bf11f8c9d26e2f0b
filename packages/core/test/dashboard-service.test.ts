// Unit tests of the dashboard reads: the session tree (order, counts, last activity), its live signal, task lists and graphs, the outbox.
import { beforeEach, describe, expect, it } from 'vitest';
import { dashboard, resolveActor, sessions, sessionsTopic, tasks, todos } from '../src/index.ts';
import { type World, expectRefused, item, makeWorld } from './fixtures.ts';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});

describe('session tree', () => {
  it('lists subagents right under their parent, with counts of the latest list and the time of the last update', async () => {
    w.clock.set('2025-03-01T10:00:00.000Z');
    const second = await sessions.open(w.deps, w.agent, { title: 'second' });
    const child = await sessions.open(w.deps, w.session, { title: 'helper' });
    const grandchild = await sessions.open(w.deps, await resolveActor(w.deps, child.token), { title: 'deep' });
    w.clock.set('2025-03-01T11:00:00.000Z');
    await todos.write(w.deps, await resolveActor(w.deps, child.token), {
      todos: [item('a', 'completed'), item('b', 'in_progress'), item('c')],
    });

    const tree = await dashboard.sessionTree(w.deps, w.viewer);
    expect(tree.sessions.map((n) => [n.session.title, n.depth, n.children])).toEqual([
      ['chat', 0, 1],
      ['helper', 1, 1],
      ['deep', 2, 0],
      ['second', 0, 0],
    ]);
    const helper = tree.sessions[1]!;
    expect(helper.counts).toEqual({ pending: 1, inProgress: 1, completed: 1 });
    expect(helper.revision).toBe(1);
    expect(helper.lastActivityAt).toBe('2025-03-01T11:00:00.000Z');
    expect(tree.sessions[3]!.counts).toEqual({ pending: 0, inProgress: 0, completed: 0 });
    expect(tree.sessions[3]!.lastActivityAt).toBe('2025-03-01T10:00:00.000Z');
    expect([second.session.id, grandchild.session.id].every((id) => tree.sessions.some((n) => n.session.id === id))).toBe(true);
  });

  it('signals opening, turns and todo updates on the workspace topic', async () => {
    const before = w.events.published.length;
    const opened = await sessions.open(w.deps, w.agent, {});
    const actor = await resolveActor(w.deps, opened.token);
    await sessions.startTurn(w.deps, actor);
    await todos.write(w.deps, actor, { todos: [item('a')] });
    const signals = w.events.published.slice(before).filter((e) => e.topic === sessionsTopic(w.workspaceId));
    expect(signals.map((e) => e.data)).toMatchObject([
      { sessionId: opened.session.id, kind: 'opened' },
      { sessionId: opened.session.id, kind: 'turn' },
      { sessionId: opened.session.id, kind: 'todo' },
    ]);
  });
});

describe('task lists and graphs', () => {
  it('gives each list with counts, and a graph with open blockers, readiness, waves and the critical path', async () => {
    const fe = await tasks.create(w.deps, w.session, { subject: 'Build frontend', description: '' });
    const be = await tasks.create(w.deps, w.session, { subject: 'Build backend', description: '' });
    const it2 = await tasks.create(w.deps, w.session, { subject: 'Integrate', description: '', blockedBy: [fe.id, be.id] });
    await tasks.update(w.deps, w.session, { id: fe.id, status: 'in_progress' });
    await tasks.update(w.deps, w.session, { id: fe.id, status: 'completed' });
    await tasks.create(w.deps, w.session, { listName: 'other', subject: 'x', description: '' });

    expect((await dashboard.taskLists(w.deps, w.viewer)).lists).toEqual([
      { name: 'default', createdAt: expect.any(String), counts: { pending: 2, inProgress: 0, completed: 1 } },
      { name: 'other', createdAt: expect.any(String), counts: { pending: 1, inProgress: 0, completed: 0 } },
    ]);
    const graph = await dashboard.taskGraph(w.deps, w.viewer, {});
    expect(graph.tasks.map((t) => [t.subject, t.status, t.ready, t.unresolvedBlockers])).toEqual([
      ['Build frontend', 'completed', false, []],
      ['Build backend', 'pending', true, []],
      ['Integrate', 'pending', false, [be.id]],
    ]);
    expect(graph.tasks[2]!.blockedBy).toEqual([fe.id, be.id]);
    expect(graph.waves).toEqual([[be.id], [it2.id]]);
    expect(graph.criticalPath).toEqual([be.id, it2.id]);
    expect(await dashboard.taskGraph(w.deps, w.viewer, { listName: 'none' })).toEqual({
      listName: 'none',
      tasks: [],
      waves: [],
      criticalPath: [],
      lastChangeSeq: 0,
    });
    expect(graph.lastChangeSeq).toBe(7); // three creations (the third also touches its two blockers), two updates
  });
});

describe('outbox', () => {
  it('is for admins only', async () => {
    await expectRefused(
      dashboard.outboxMessages(w.deps, w.viewer, { limit: 10 }),
      'FORBIDDEN',
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
    expect(await dashboard.outboxMessages(w.deps, w.admin, { limit: 10 })).toEqual({ messages: [] });
  });
});
