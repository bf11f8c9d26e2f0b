// Unit tests of the task graph use cases (seed 001) against the in-memory store: the seed's example, mirrored
// edges, refused edges leaving nothing behind, deletion, metadata, listing, claims, versions, history, the plan,
// threads and roles.
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskCreateInput, TaskUpdateInput } from '@agent-tasks/schema';
import { type Actor, type TaskWrite, resolveActor, keys, sessions, tasks, workspaces } from '../src/index.ts';
import { type World, agentSession, expectNoTaskChange, expectRefused, makeWorld, taskState } from './fixtures.ts';

let w: World;
let alice: Actor;
let bob: Actor;

beforeEach(async () => {
  w = await makeWorld();
  alice = await agentSession(w, 'alice');
  bob = await agentSession(w, 'bob');
});

const create = (actor: Actor, subject: string, extra: Partial<TaskCreateInput> = {}) =>
  tasks.create(w.deps, actor, { subject, description: '', ...extra });
const update = (actor: Actor, input: TaskUpdateInput) => tasks.update(w.deps, actor, input);
const get = (id: string, listName?: string) => tasks.get(w.deps, w.viewer, { id, listName });
const list = (actor: Actor, input: Parameters<typeof tasks.list>[2] = {}) => tasks.list(w.deps, actor, input);
const ids = (summaries: { tasks: { id: string }[] }) => summaries.tasks.map((t) => t.id);
/** The seed's TaskList line: `T-001 [pending] Build frontend  blockedBy: []`. */
const taskLine = (t: { id: string; status: string; subject: string; blockedBy: string[] }) =>
  `${t.id} [${t.status}] ${t.subject}  blockedBy: [${t.blockedBy.join(', ')}]`;
const history = (id: string) => tasks.history(w.deps, w.viewer, { id }).then((h) => h.changes);

/** The seed's example: T-001 Build frontend, T-002 Build backend, T-003 Run integration tests blocked by both. */
async function seedExample(actor: Actor = w.session) {
  const t1 = await create(actor, 'Build frontend');
  const t2 = await create(actor, 'Build backend');
  const t3 = await create(actor, 'Run integration tests', { blockedBy: [t1.id, t2.id] });
  return { t1: t1.id, t2: t2.id, t3: t3.id };
}

describe("the seed's example", () => {
  it('T-003 waits for both builds: not ready, cannot start or complete, until both complete', async () => {
    const { t1, t2, t3 } = await seedExample();

    const listed = await list(w.session);
    expect(listed.tasks.map(taskLine)).toEqual([
      `${t1} [pending] Build frontend  blockedBy: []`,
      `${t2} [pending] Build backend  blockedBy: []`,
      `${t3} [pending] Run integration tests  blockedBy: [${t1}, ${t2}]`,
    ]);
    expect(listed.tasks.map((t) => t.ready)).toEqual([true, true, false]);
    expect(ids(await list(w.session, { readyOnly: true }))).toEqual([t1, t2]);

    const before = taskState(w);
    await expectRefused(
      update(w.session, { id: t3, status: 'in_progress' }),
      'TASK_BLOCKED',
      `Error: task ${t3} is blocked by ${t1}, ${t2}; it cannot be started until they are completed.`,
    );
    const refused = await expectRefused(
      update(w.session, { id: t3, status: 'completed' }),
      'TASK_BLOCKED',
      `Error: task ${t3} is blocked by ${t1}, ${t2}; it cannot be completed until they are completed.`,
    );
    expect(refused.details).toEqual({ blockedBy: [t1, t2] });
    await expectRefused(tasks.claim(w.deps, alice, { id: t3 }), 'CLAIM_REFUSED', `Error: cannot claim ${t3}: blocked by ${t1}, ${t2}.`);
    expectNoTaskChange(w, before);

    await update(w.session, { id: t1, status: 'completed' });
    await expectRefused(
      update(w.session, { id: t3, status: 'in_progress' }),
      'TASK_BLOCKED',
      `Error: task ${t3} is blocked by ${t2}; it cannot be started until it is completed.`,
    );
    expect((await list(w.session)).tasks.find((t) => t.id === t3)).toMatchObject({ blockedBy: [t2], ready: false });

    await update(w.session, { id: t2, status: 'completed' });
    // T-003 now unblocked.
    const after = await list(w.session);
    expect(after.tasks.map(taskLine)).toEqual([`${t3} [pending] Run integration tests  blockedBy: []`]);
    expect(after.tasks[0]!.ready).toBe(true);
    expect(ids(await list(w.session, { readyOnly: true }))).toEqual([t3]);
    // The edges stay: TaskGet still names both blockers; only the summary drops resolved ones.
    expect((await get(t3)).blockedBy).toEqual([t1, t2]);
    expect((await update(w.session, { id: t3, status: 'in_progress' })).status).toBe('in_progress');
    expect((await update(w.session, { id: t3, status: 'completed' })).status).toBe('completed');
  });

  it('a created task has the seed shape: T-{uuid}, pending, empty edges and metadata, the default list', async () => {
    w.clock.set('2025-05-05T05:05:05.000Z');
    const t = await create(w.session, 'Run tests', { description: 'all of them', activeForm: 'Running tests' });
    expect(t).toEqual({
      id: 'T-00000000-0000-4000-8000-000000000001',
      ref: '#1',
      listName: 'default',
      subject: 'Run tests',
      description: 'all of them',
      status: 'pending',
      activeForm: 'Running tests',
      blocks: [],
      blockedBy: [],
      metadata: {},
      labels: [],
      threadID: w.sessionId,
      version: 1,
      createdAt: '2025-05-05T05:05:05.000Z',
      updatedAt: '2025-05-05T05:05:05.000Z',
    });
    expect(await get(t.id)).toEqual(t);
    expect(t).not.toHaveProperty('owner');
  });
});

describe('blocks and blockedBy mirror each other', () => {
  it('after create, with blockedBy and with blocks', async () => {
    const { t1, t2, t3 } = await seedExample();
    const deploy = await create(w.session, 'Deploy', { blockedBy: [t3] });
    const lint = await create(w.session, 'Lint', { blocks: [t3, deploy.id] });
    expect((await get(t1)).blocks).toEqual([t3]);
    expect((await get(t2)).blocks).toEqual([t3]);
    expect((await get(t3)).blockedBy).toEqual([t1, t2, lint.id]);
    expect((await get(t3)).blocks).toEqual([deploy.id]);
    expect((await get(deploy.id)).blockedBy).toEqual([t3, lint.id]);
    expect(lint.blocks).toEqual([t3, deploy.id]);
    expect(lint.blockedBy).toEqual([]);
  });

  it('creating a dependant versions its blockers too (their `blocks` changed)', async () => {
    const fe = await create(w.session, 'Build frontend');
    expect(fe.version).toBe(1);
    await create(w.session, 'Run integration tests', { blockedBy: [fe.id] });
    expect((await get(fe.id)).version).toBe(2);
    const claimed = await tasks.claim(w.deps, w.session, {});
    expect(claimed.task).toMatchObject({ id: fe.id, version: 3 });
  });

  it("an update reads the task's edges once when it changes none, and again after it changes one", async () => {
    const { t1, t2, t3 } = await seedExample();
    let reads = 0;
    const count = () => {
      for (let i = 0; i < 6; i++) w.store.once('tasks.edgesOf', async () => void reads++);
    };
    count();
    const renamed = await update(w.session, { id: t3, subject: 'Run the integration tests' });
    expect(reads).toBe(1);
    expect(renamed).toMatchObject({ subject: 'Run the integration tests', blockedBy: [t1, t2] });
    reads = 0;
    const unblocked = await update(w.session, { id: t3, removeBlockedBy: [t2] });
    expect(reads).toBe(2);
    expect(unblocked.blockedBy).toEqual([t1]);
    expect((await history(t3)).at(-1)?.changes).toMatchObject({ blockedBy: { from: [t1, t2], to: [t1] } });
  });

  it('a write names the tasks whose searchable text changed (subject, description, deletion), and only those', async () => {
    const { t1, t3 } = await seedExample();
    const texts: (readonly string[] | undefined)[] = [];
    const capture = () => w.store.once('tasks.commit', async (_repos, args) => void texts.push((args[1] as TaskWrite).texts));
    capture();
    await update(w.session, { id: t3, metadata: { sprint: 4 } });
    capture();
    await update(w.session, { id: t3, subject: 'Run the integration tests' });
    capture();
    await update(w.session, { id: t3, description: 'Both services up' });
    capture();
    await update(w.session, { id: t1, status: 'deleted' });
    // Deleting T-1 also writes T-3 (its blockedBy changed), whose text did not.
    expect(texts).toEqual([[], [t3], [t3], [t1]]);
  });

  it('after adding and removing edges from either side', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B')).id;
    const c = (await create(w.session, 'C')).id;

    await update(w.session, { id: c, addBlockedBy: [a] });
    await update(w.session, { id: a, addBlocks: [b] });
    expect(await get(a)).toMatchObject({ blocks: [c, b], blockedBy: [] });
    expect(await get(b)).toMatchObject({ blocks: [], blockedBy: [a] });
    expect(await get(c)).toMatchObject({ blocks: [], blockedBy: [a] });

    await update(w.session, { id: a, removeBlocks: [c] });
    expect(await get(a)).toMatchObject({ blocks: [b] });
    expect(await get(c)).toMatchObject({ blockedBy: [] });

    await update(w.session, { id: b, removeBlockedBy: [a] });
    expect(await get(a)).toMatchObject({ blocks: [] });
    expect(await get(b)).toMatchObject({ blockedBy: [] });
    expect(w.store.snapshot().taskEdges).toEqual([]);
  });

  it('adding an edge that exists, or removing one that does not, changes nothing', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B', { blockedBy: [a] })).id;
    const before = taskState(w);
    await update(w.session, { id: b, addBlockedBy: [a] });
    await update(w.session, { id: a, addBlocks: [b] });
    await update(w.session, { id: a, removeBlockedBy: [b] });
    await update(w.session, { id: b, removeBlocks: [a] });
    expectNoTaskChange(w, before);
  });

  it('each side records the edge change in its history and the other side is versioned', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B')).id;
    await update(w.session, { id: b, addBlockedBy: [a] });
    expect((await get(a)).version).toBe(2);
    expect((await get(b)).version).toBe(2);
    expect((await history(a)).at(-1)).toMatchObject({ kind: 'updated', changes: { blocks: { from: [], to: [b] } } });
    expect((await history(b)).at(-1)).toMatchObject({ kind: 'updated', changes: { blockedBy: { from: [], to: [a] } } });
  });
});

describe('refused edges record nothing', () => {
  it('an unknown task, on create and on update', async () => {
    const a = (await create(w.session, 'A')).id;
    const before = taskState(w);
    await expectRefused(
      create(w.session, 'B', { blockedBy: [a, 'T-unknown'] }),
      'INVALID_DEPENDENCY',
      'Error: invalid dependency: task T-unknown not found in list "default".',
    );
    await expectRefused(
      create(w.session, 'B', { blocks: ['T-unknown'] }),
      'INVALID_DEPENDENCY',
      'Error: invalid dependency: task T-unknown not found in list "default".',
    );
    await expectRefused(
      update(w.session, { id: a, addBlockedBy: ['T-unknown'] }),
      'INVALID_DEPENDENCY',
      'Error: invalid dependency: task T-unknown not found in list "default".',
    );
    await expectRefused(
      update(w.session, { id: a, subject: 'A renamed', addBlocks: ['T-unknown'] }),
      'INVALID_DEPENDENCY',
      'Error: invalid dependency: task T-unknown not found in list "default".',
    );
    expectNoTaskChange(w, before);
    expect((await get(a)).subject).toBe('A');
  });

  it('a refused create on a new list does not create the list', async () => {
    const before = taskState(w);
    await expectRefused(
      create(w.session, 'B', { listName: 'fresh', blockedBy: ['T-unknown'] }),
      'INVALID_DEPENDENCY',
      'Error: invalid dependency: task T-unknown not found in list "fresh".',
    );
    expectNoTaskChange(w, before);
    expect(w.store.snapshot().taskLists.size).toBe(0);
  });

  it('a task of another list counts as unknown', async () => {
    const other = (await create(w.session, 'Elsewhere', { listName: 'other' })).id;
    const a = (await create(w.session, 'A')).id;
    const before = taskState(w);
    await expectRefused(
      update(w.session, { id: a, addBlockedBy: [other] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: task ${other} not found in list "default".`,
    );
    expectNoTaskChange(w, before);
  });

  it('a deleted task', async () => {
    const gone = (await create(w.session, 'Gone')).id;
    const a = (await create(w.session, 'A')).id;
    await update(w.session, { id: gone, status: 'deleted' });
    const before = taskState(w);
    await expectRefused(
      update(w.session, { id: a, addBlockedBy: [gone] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: task ${gone} not found in list "default".`,
    );
    await expectRefused(
      create(w.session, 'B', { blocks: [gone] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: task ${gone} not found in list "default".`,
    );
    expectNoTaskChange(w, before);
  });

  it('a self edge, on update from either side and on create', async () => {
    const a = (await create(w.session, 'A')).id;
    const before = taskState(w);
    await expectRefused(
      update(w.session, { id: a, addBlockedBy: [a] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: ${a} cannot depend on itself.`,
    );
    await expectRefused(
      update(w.session, { id: a, addBlocks: [a] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: ${a} cannot depend on itself.`,
    );
    // Ids are predictable here: the next task is the second uuid.
    const next = 'T-00000000-0000-4000-8000-000000000002';
    await expectRefused(
      create(w.session, 'B', { blockedBy: [next] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: ${next} cannot depend on itself.`,
    );
    expectNoTaskChange(w, before);
  });

  it('a direct cycle names T-a → T-b → T-a', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B', { blockedBy: [a] })).id;
    const before = taskState(w);
    const error = await expectRefused(
      update(w.session, { id: a, addBlockedBy: [b] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: it would close a cycle ${a} → ${b} → ${a}.`,
    );
    expect(error.details).toEqual({ cycle: [a, b, a] });
    await expectRefused(
      update(w.session, { id: b, addBlocks: [a] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: it would close a cycle ${a} → ${b} → ${a}.`,
    );
    expectNoTaskChange(w, before);
  });

  it('an indirect cycle names the whole way round, from the task that would be blocked', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B', { blockedBy: [a] })).id;
    const c = (await create(w.session, 'C', { blockedBy: [b] })).id;
    const before = taskState(w);
    await expectRefused(
      update(w.session, { id: a, addBlockedBy: [c] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: it would close a cycle ${a} → ${b} → ${c} → ${a}.`,
    );
    await expectRefused(
      create(w.session, 'D', { blockedBy: [c], blocks: [a] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: it would close a cycle ${a} → ${b} → ${c} → T-00000000-0000-4000-8000-000000000004 → ${a}.`,
    );
    expectNoTaskChange(w, before);
  });

  it('a cycle closed by two edges of the same call is caught, and the earlier edge is undone', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B')).id;
    const before = taskState(w);
    await expectRefused(
      update(w.session, { id: a, addBlockedBy: [b], addBlocks: [b] }),
      'INVALID_DEPENDENCY',
      `Error: invalid dependency: it would close a cycle ${b} → ${a} → ${b}.`,
    );
    expectNoTaskChange(w, before);
  });
});

describe('deleting a task', () => {
  it('removes its edges; its dependants become ready once nothing else blocks them', async () => {
    const { t1, t2, t3 } = await seedExample();
    const deploy = (await create(w.session, 'Deploy', { blockedBy: [t3] })).id;

    const deleted = await update(w.session, { id: t1, status: 'deleted' });
    expect(deleted).toMatchObject({ status: 'deleted', blocks: [], blockedBy: [] });
    expect(await get(t3)).toMatchObject({ blockedBy: [t2], blocks: [deploy] });
    expect(w.store.snapshot().taskEdges.some((e) => e.blockerId === t1 || e.blockedId === t1)).toBe(false);
    expect(ids(await list(w.session, { readyOnly: true }))).toEqual([t2]);

    await update(w.session, { id: t2, status: 'deleted' });
    expect(ids(await list(w.session, { readyOnly: true }))).toEqual([t3]);
    expect((await list(w.session)).tasks.find((t) => t.id === t3)).toMatchObject({ blockedBy: [], ready: true });

    // A deleted task in the middle of a chain unblocks what came after it.
    await update(w.session, { id: t3, status: 'deleted' });
    expect(ids(await list(w.session, { readyOnly: true }))).toEqual([deploy]);
  });

  it('TaskGet still returns it, with its history; a deleted task can no longer change', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B', { blockedBy: [a] })).id;
    await update(w.session, { id: a, status: 'deleted' });
    expect(await get(a)).toMatchObject({ id: a, status: 'deleted', version: 3 });
    expect((await history(a)).map((c) => c.kind)).toEqual(['created', 'updated', 'deleted']);
    expect((await history(a)).at(-1)!.changes).toEqual({ status: { from: 'pending', to: 'deleted' }, blocks: { from: [b], to: [] } });
    expect((await history(b)).at(-1)).toMatchObject({ kind: 'updated', changes: { blockedBy: { from: [a], to: [] } } });

    const before = taskState(w);
    for (const input of [{ subject: 'again' }, { status: 'pending' as const }, { status: 'deleted' as const }]) {
      await expectRefused(update(w.session, { id: a, ...input }), 'CONFLICT', `Error: task ${a} is deleted; it can no longer change.`);
    }
    await expectRefused(tasks.claim(w.deps, alice, { id: a }), 'CLAIM_REFUSED', `Error: cannot claim ${a}: it is deleted, not pending.`);
    expectNoTaskChange(w, before);
  });

  it('is left out of lists unless asked for by status', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B')).id;
    await update(w.session, { id: a, status: 'deleted' });
    expect(ids(await list(w.session))).toEqual([b]);
    expect(ids(await list(w.session, { includeCompleted: true }))).toEqual([b]);
    expect(ids(await list(w.session, { status: ['deleted'] }))).toEqual([a]);
  });

  it('leaves it out of the plan', async () => {
    const { t1, t2, t3 } = await seedExample();
    await update(w.session, { id: t2, status: 'deleted' });
    expect(await tasks.plan(w.deps, w.viewer, {})).toEqual({
      listName: 'default',
      waves: [[t1], [t3]],
      criticalPath: [t1, t3],
      criticalPathLength: 2,
    });
  });
});

describe('metadata', () => {
  it('is merged: keys set, replaced, and removed by null; the history shows the whole before and after', async () => {
    const t = await create(w.session, 'A', { metadata: { area: 'ui', estimate: 3, dropped: null } });
    expect(t.metadata).toEqual({ area: 'ui', estimate: 3 });
    const updated = await update(w.session, { id: t.id, metadata: { estimate: 5, area: null, reviewer: 'kim' } });
    expect(updated.metadata).toEqual({ estimate: 5, reviewer: 'kim' });
    expect(updated.version).toBe(2);
    expect((await history(t.id)).at(-1)!.changes).toEqual({
      metadata: { from: { area: 'ui', estimate: 3 }, to: { estimate: 5, reviewer: 'kim' } },
    });
  });

  it('a patch that changes nothing records nothing', async () => {
    const t = await create(w.session, 'A', { metadata: { a: 1 } });
    const before = taskState(w);
    expect((await update(w.session, { id: t.id, metadata: { a: 1, gone: null } })).version).toBe(1);
    expect((await update(w.session, { id: t.id, metadata: {} })).version).toBe(1);
    expectNoTaskChange(w, before);
  });
});

describe('tasks.list', () => {
  /** mine: pending owned by alice; free: pending unowned; waiting: blocked by free; busy: bob's; done; gone. */
  async function mixedList() {
    const mine = (await create(w.session, 'Mine', { owner: 'alice' })).id;
    const free = (await create(w.session, 'Free')).id;
    const waiting = (await create(w.session, 'Waiting', { blockedBy: [free] })).id;
    const busy = (await create(w.session, 'Busy')).id;
    await tasks.claim(w.deps, bob, { id: busy });
    const done = (await create(w.session, 'Done')).id;
    await update(w.session, { id: done, status: 'completed' });
    const gone = (await create(w.session, 'Gone')).id;
    await update(w.session, { id: gone, status: 'deleted' });
    return { mine, free, waiting, busy, done, gone };
  }

  it('by default: pending and in-progress tasks, oldest first, with their readiness for the caller', async () => {
    const t = await mixedList();
    const listed = await list(alice);
    expect(listed.listName).toBe('default');
    expect(ids(listed)).toEqual([t.mine, t.free, t.waiting, t.busy]);
    expect(listed.tasks.map((x) => x.ready)).toEqual([true, true, false, false]);
    expect(listed.tasks.map((x) => x.blockedBy)).toEqual([[], [], [t.free], []]);
    expect(listed.tasks[3]).toMatchObject({ status: 'in_progress', owner: 'bob' });
    expect((await list(bob)).tasks.map((x) => x.ready)).toEqual([false, true, false, false]);
  });

  it('includeCompleted adds completed tasks; status picks exact statuses', async () => {
    const t = await mixedList();
    expect(ids(await list(alice, { includeCompleted: true }))).toEqual([t.mine, t.free, t.waiting, t.busy, t.done]);
    expect(ids(await list(alice, { status: ['completed'] }))).toEqual([t.done]);
    expect(ids(await list(alice, { status: ['in_progress', 'deleted'] }))).toEqual([t.busy, t.gone]);
    expect(ids(await list(alice, { status: ['pending'], includeCompleted: true }))).toEqual([t.mine, t.free, t.waiting]);
  });

  it('owner filters by owner', async () => {
    const t = await mixedList();
    expect(ids(await list(w.viewer, { owner: 'alice' }))).toEqual([t.mine]);
    expect(ids(await list(w.viewer, { owner: 'bob' }))).toEqual([t.busy]);
    expect(ids(await list(w.viewer, { owner: 'nobody' }))).toEqual([]);
  });

  it('readyOnly: what the caller could start now', async () => {
    const t = await mixedList();
    expect(ids(await list(alice, { readyOnly: true }))).toEqual([t.mine, t.free]);
    expect(ids(await list(bob, { readyOnly: true }))).toEqual([t.free]);
    // A key without a session has no agent name: only unowned tasks are ready for it.
    expect(ids(await list(w.agent, { readyOnly: true }))).toEqual([t.free]);
    expect(ids(await list(alice, { readyOnly: true, status: ['in_progress'] }))).toEqual([]);
    expect(ids(await list(alice, { readyOnly: true, owner: 'alice' }))).toEqual([t.mine]);
  });

  it('readyOnly with an owner: what that owner could start now among its own tasks, whoever asks', async () => {
    const t = await mixedList();
    expect(ids(await list(bob, { readyOnly: true, owner: 'alice' }))).toEqual([t.mine]);
    expect(ids(await list(w.viewer, { readyOnly: true, owner: 'alice' }))).toEqual([t.mine]);
    // bob's only task is in progress; nobody owns the free one.
    expect(ids(await list(alice, { readyOnly: true, owner: 'bob' }))).toEqual([]);
    const next = (await create(w.session, 'Next for bob', { owner: 'bob' })).id;
    const later = (await create(w.session, 'Later for bob', { owner: 'bob', blockedBy: [t.free] })).id;
    expect(ids(await list(alice, { readyOnly: true, owner: 'bob' }))).toEqual([next]);
    await update(w.session, { id: t.free, status: 'completed' });
    expect(ids(await list(w.agent, { readyOnly: true, owner: 'bob' }))).toEqual([next, later]);
  });

  it('limit keeps the oldest', async () => {
    const t = await mixedList();
    expect(ids(await list(alice, { limit: 2 }))).toEqual([t.mine, t.free]);
  });

  it('lists are separate by name, and a list never written is empty', async () => {
    const a = (await create(w.session, 'A', { listName: 'sprint-1' })).id;
    await create(w.session, 'B');
    expect(ids(await list(w.viewer, { listName: 'sprint-1' }))).toEqual([a]);
    await expectRefused(
      list(w.viewer, { listName: 'never' }),
      'NOT_FOUND',
      'Error: task list "never" does not exist; the nearest names are "default", "sprint-1".',
    );
    expect(await list(w.viewer)).toMatchObject({ listName: 'default' });
    await expectRefused(tasks.get(w.deps, w.viewer, { id: a }), 'NOT_FOUND', `Error: task ${a} not found in list "default".`);
  });

  it('another workspace sees none of it', async () => {
    const a = (await create(w.session, 'A')).id;
    const other = await workspaces.createWorkspace(w.deps, w.admin, { name: 'other' });
    const outsider = await resolveActor(w.deps, other.adminKey);
    expect(await list(outsider)).toEqual({ listName: 'default', tasks: [] });
    await expectRefused(
      tasks.get(w.deps, outsider, { id: a }),
      'NOT_FOUND',
      'Error: task list "default" does not exist; %s.'.replace('%s', 'this workspace has no task lists yet (TaskCreate starts one)'),
    );
  });
});

describe('claims', () => {
  it('a named claim sets in_progress and the owner atomically, as one "claimed" change', async () => {
    const a = (await create(w.session, 'A')).id;
    w.clock.set('2025-02-02T00:00:00.000Z');
    const { task } = await tasks.claim(w.deps, alice, { id: a });
    expect(task).toMatchObject({ id: a, status: 'in_progress', owner: 'alice', version: 2, updatedAt: '2025-02-02T00:00:00.000Z' });
    expect((await history(a)).at(-1)).toEqual({
      seq: 2,
      taskId: a,
      kind: 'claimed',
      by: { sessionId: alice.sessionId, keyId: w.agent.keyId, keyName: 'agent' },
      at: '2025-02-02T00:00:00.000Z',
      changes: { status: { from: 'pending', to: 'in_progress' }, owner: { from: null, to: 'alice' } },
    });
  });

  it('a task already assigned to the claimer can be claimed by it', async () => {
    const a = (await create(w.session, 'A', { owner: 'alice' })).id;
    expect((await tasks.claim(w.deps, alice, { id: a })).task).toMatchObject({ status: 'in_progress', owner: 'alice' });
  });

  it('refuses, with exact texts and nothing recorded: owned by another, not pending, blocked', async () => {
    const a = (await create(w.session, 'A')).id;
    await tasks.claim(w.deps, alice, { id: a });
    const b = (await create(w.session, 'B')).id;
    await update(w.session, { id: b, status: 'completed' });
    const c = (await create(w.session, 'C', { blockedBy: [a] })).id;
    const d = (await create(w.session, 'D', { owner: 'alice' })).id;

    const before = taskState(w);
    await expectRefused(tasks.claim(w.deps, bob, { id: a }), 'CLAIM_REFUSED', `Error: cannot claim ${a}: already claimed by alice.`);
    await expectRefused(tasks.claim(w.deps, bob, { id: d }), 'CLAIM_REFUSED', `Error: cannot claim ${d}: already claimed by alice.`);
    await expectRefused(
      tasks.claim(w.deps, alice, { id: a }),
      'CLAIM_REFUSED',
      `Error: cannot claim ${a}: it is in_progress, not pending.`,
    );
    await expectRefused(tasks.claim(w.deps, bob, { id: b }), 'CLAIM_REFUSED', `Error: cannot claim ${b}: it is completed, not pending.`);
    await expectRefused(tasks.claim(w.deps, bob, { id: c }), 'CLAIM_REFUSED', `Error: cannot claim ${c}: blocked by ${a}.`);
    await expectRefused(tasks.claim(w.deps, bob, { id: 'T-unknown' }), 'NOT_FOUND', 'Error: task T-unknown not found in list "default".');
    expectNoTaskChange(w, before);
  });

  it('claim-next takes the oldest ready task for the claimer, and null when nothing is ready', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B', { owner: 'bob' })).id;
    const c = (await create(w.session, 'C')).id;
    const d = (await create(w.session, 'D', { blockedBy: [a] })).id;

    expect((await tasks.claim(w.deps, alice, {})).task).toMatchObject({ id: a, owner: 'alice', status: 'in_progress' });
    // B is bob's: alice skips it.
    expect((await tasks.claim(w.deps, alice, {})).task).toMatchObject({ id: c, owner: 'alice' });
    const before = taskState(w);
    expect(await tasks.claim(w.deps, alice, {})).toEqual({ task: null, lostRace: null });
    expectNoTaskChange(w, before);
    expect((await tasks.claim(w.deps, bob, {})).task).toMatchObject({ id: b, owner: 'bob' });
    // C was ready for bob too, and alice claimed it moments ago: nothing is ready because of a lost race.
    expect(await tasks.claim(w.deps, bob, {})).toEqual({ task: null, lostRace: { id: c, ref: '#3', owner: 'alice' } });

    await update(alice, { id: a, status: 'completed' });
    expect((await tasks.claim(w.deps, bob, {})).task).toMatchObject({ id: d, owner: 'bob' });
  });

  it('claim-next on a named list that does not exist is refused and creates nothing; on the default list it is null', async () => {
    const before = taskState(w);
    await expectRefused(
      tasks.claim(w.deps, alice, { listName: 'nothing-here' }),
      'NOT_FOUND',
      'Error: task list "nothing-here" does not exist; this workspace has no task lists yet (TaskCreate starts one).',
    );
    expect(await tasks.claim(w.deps, alice, {})).toEqual({ task: null });
    expectNoTaskChange(w, before);
  });

  it('an explicit owner claims under that name; a key without a session must name one', async () => {
    const a = (await create(w.session, 'A')).id;
    await expectRefused(
      tasks.claim(w.deps, w.agent, { id: a }),
      'NO_OWNING_SESSION',
      'Error: a claim needs an agent name: call with a session token or name an `owner`.',
    );
    expect((await tasks.claim(w.deps, w.agent, { id: a, owner: 'carol' })).task).toMatchObject({ owner: 'carol' });
  });

  it('a session without an agent name claims under its session id', async () => {
    const a = (await create(w.session, 'A')).id;
    expect((await tasks.claim(w.deps, w.session, { id: a })).task).toMatchObject({ owner: w.sessionId });
  });

  it('concurrent claims of the same task: exactly one wins', async () => {
    const a = (await create(w.session, 'A')).id;
    const results = await Promise.allSettled([tasks.claim(w.deps, alice, { id: a }), tasks.claim(w.deps, bob, { id: a })]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: `Error: cannot claim ${a}: already claimed by alice.` });
  });

  it('concurrent claim-next calls take different tasks', async () => {
    const a = (await create(w.session, 'A')).id;
    const b = (await create(w.session, 'B')).id;
    const [x, y, z] = await Promise.all([tasks.claim(w.deps, alice, {}), tasks.claim(w.deps, bob, {}), tasks.claim(w.deps, w.session, {})]);
    expect([x.task?.id, y.task?.id, z.task]).toEqual([a, b, null]);
  });
});

describe('expectedVersion', () => {
  it('a stale version is refused with the current task in the details, and nothing changes', async () => {
    const a = (await create(w.session, 'A')).id;
    await update(w.session, { id: a, subject: 'A2' });
    const current = await get(a);
    const before = taskState(w);
    const error = await expectRefused(
      update(bob, { id: a, expectedVersion: 1, status: 'completed' }),
      'STALE_VERSION',
      `Error: stale version: task ${a} was read at version 1 but is now at version 2; read it again.`,
    );
    expect(error.details).toEqual({ currentVersion: 2, current });
    expectNoTaskChange(w, before);
    expect((await update(bob, { id: a, expectedVersion: 2, status: 'completed' })).version).toBe(3);
  });

  it('an edge change on the other side makes a read stale', async () => {
    const a = await create(w.session, 'A');
    await create(w.session, 'B', { blockedBy: [a.id] });
    await expectRefused(
      update(w.session, { id: a.id, expectedVersion: a.version, subject: 'A2' }),
      'STALE_VERSION',
      `Error: stale version: task ${a.id} was read at version 1 but is now at version 2; read it again.`,
    );
  });

  it('a compare-and-set lost to a concurrent writer retries the whole write, then gives up with CONFLICT', async () => {
    const a = (await create(w.session, 'A')).id;
    const listId = [...w.store.snapshot().tasks.values()].find((t) => t.id === a)!.listId;
    const rival = async (repos: Parameters<Parameters<typeof w.store.once>[1]>[0]) => {
      const row = (await repos.tasks.get(listId, a))!;
      await repos.tasks.commit(listId, {
        tasks: [{ task: { ...row, version: row.version + 1 }, fromVersion: row.version }],
        changes: [],
        readiness: [],
      });
    };
    let losses = 0;
    const lose = (times: number) => {
      const hook = async (repos: Parameters<typeof rival>[0]) => {
        await rival(repos);
        if (++losses < times) w.store.once('tasks.commit', hook);
      };
      w.store.once('tasks.commit', hook);
    };

    lose(1);
    const rollbacks = w.store.rollbacks;
    expect(await update(w.session, { id: a, subject: 'A2' })).toMatchObject({ subject: 'A2', version: 2 });
    expect(w.store.rollbacks).toBe(rollbacks + 1);

    losses = 0;
    lose(5);
    const before = taskState(w);
    await expectRefused(
      update(w.session, { id: a, subject: 'A3' }),
      'CONFLICT',
      'Error: the task kept changing under concurrent writers; try again.',
    );
    expect(losses).toBe(5);
    expectNoTaskChange(w, before);
  });
});

describe('history', () => {
  it('records who, when, and which fields went from what to what, oldest first', async () => {
    w.clock.set('2025-01-01T10:00:00.000Z');
    const a = (await create(alice, 'Write docs', { activeForm: 'Writing docs' })).id;
    w.clock.set('2025-01-01T11:00:00.000Z');
    await update(w.agent, { id: a, subject: 'Write the docs', description: 'all pages', activeForm: null, owner: 'bob' });
    w.clock.set('2025-01-01T12:00:00.000Z');
    await update(bob, { id: a, status: 'in_progress' });

    const changes = await history(a);
    expect(changes.map((c) => [c.seq, c.kind, c.by, c.at])).toEqual([
      [1, 'created', { sessionId: alice.sessionId, keyId: w.agent.keyId, keyName: 'agent' }, '2025-01-01T10:00:00.000Z'],
      [2, 'updated', { sessionId: null, keyId: w.agent.keyId, keyName: 'agent' }, '2025-01-01T11:00:00.000Z'],
      [3, 'updated', { sessionId: bob.sessionId, keyId: w.agent.keyId, keyName: 'agent' }, '2025-01-01T12:00:00.000Z'],
    ]);
    expect(changes[0]!.changes).toMatchObject({
      subject: { from: null, to: 'Write docs' },
      status: { from: null, to: 'pending' },
      activeForm: { from: null, to: 'Writing docs' },
    });
    expect(changes[1]!.changes).toEqual({
      subject: { from: 'Write docs', to: 'Write the docs' },
      description: { from: '', to: 'all pages' },
      activeForm: { from: 'Writing docs', to: null },
      owner: { from: null, to: 'bob' },
    });
    expect(changes[2]!.changes).toEqual({ status: { from: 'pending', to: 'in_progress' } });
    expect(await get(a)).toMatchObject({ version: 3, updatedAt: '2025-01-01T12:00:00.000Z', createdAt: '2025-01-01T10:00:00.000Z' });
  });

  it('an update that changes nothing is not recorded and does not move the version', async () => {
    const a = (await create(alice, 'A')).id;
    const before = taskState(w);
    expect((await update(bob, { id: a, subject: 'A', status: 'pending' })).version).toBe(1);
    expect((await update(bob, { id: a })).version).toBe(1);
    expectNoTaskChange(w, before);
  });

  it('each recorded change is published after commit on the list topic, with the task as it stood', async () => {
    const { t1, t3 } = await seedExample();
    const published = w.events.published.filter((e) => e.topic === `tasks:${w.workspaceId}:default`);
    expect(published.map((e) => e.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(published.at(-1)!.data).toMatchObject({ taskId: expect.any(String), task: { blocks: [t3] } });
    const feed = await tasks.changesAfter(w.deps, w.viewer, { after: 2, limit: 2 });
    expect(feed.more).toBe(true);
    expect(feed.events.map((e) => [e.seq, e.taskId, e.kind])).toEqual([
      [3, t3, 'created'],
      [4, t1, 'updated'],
    ]);
    expect(feed.events.map((e) => e)).toEqual(published.slice(2, 4).map((e) => e.data));
  });
});

describe('tasks.plan', () => {
  it("the seed's example: both builds in the first wave, then the integration tests", async () => {
    const { t1, t2, t3 } = await seedExample();
    const deploy = (await create(w.session, 'Deploy', { blockedBy: [t3] })).id;
    expect(await tasks.plan(w.deps, w.viewer, {})).toEqual({
      listName: 'default',
      waves: [[t1, t2], [t3], [deploy]],
      criticalPath: [t1, t3, deploy],
      criticalPathLength: 3,
    });
  });

  it('completed tasks drop out and their edges are ignored; in-progress tasks stay', async () => {
    const { t1, t2, t3 } = await seedExample();
    await update(w.session, { id: t1, status: 'completed' });
    await tasks.claim(w.deps, alice, { id: t2 });
    expect(await tasks.plan(w.deps, w.viewer, {})).toEqual({
      listName: 'default',
      waves: [[t2], [t3]],
      criticalPath: [t2, t3],
      criticalPathLength: 2,
    });
  });

  it('a list never written has an empty plan', async () => {
    expect(await tasks.plan(w.deps, w.viewer, {})).toEqual({
      listName: 'default',
      waves: [],
      criticalPath: [],
      criticalPathLength: 0,
    });
    await expectRefused(
      tasks.plan(w.deps, w.viewer, { listName: 'none' }),
      'NOT_FOUND',
      'Error: task list "none" does not exist; this workspace has no task lists yet (TaskCreate starts one).',
    );
  });
});

describe('threads and roles', () => {
  it('threadID is the creating session, and stays so whoever updates the task', async () => {
    const a = await create(alice, 'A');
    expect(a.threadID).toBe(alice.sessionId);
    const sub = await agentSession(w, 'alice-helper', alice);
    const b = await create(sub, 'B');
    expect(b.threadID).toBe(sub.sessionId);
    expect((await update(bob, { id: a.id, subject: 'A2' })).threadID).toBe(alice.sessionId);
  });

  it('a viewer reads but cannot write, and nothing is recorded', async () => {
    const { t1, t3 } = await seedExample();
    const before = taskState(w);
    const readOnly = 'Error: forbidden: viewer keys are read-only (this key is viewer).';
    await expectRefused(create(w.viewer, 'X'), 'FORBIDDEN', readOnly);
    await expectRefused(update(w.viewer, { id: t1, status: 'completed' }), 'FORBIDDEN', readOnly);
    await expectRefused(update(w.viewer, { id: t3, removeBlockedBy: [t1] }), 'FORBIDDEN', readOnly);
    await expectRefused(tasks.claim(w.deps, w.viewer, { id: t1, owner: 'v' }), 'FORBIDDEN', readOnly);
    await expectRefused(tasks.claim(w.deps, w.viewer, { owner: 'v' }), 'FORBIDDEN', readOnly);
    await expectRefused(tasks.claim(w.deps, w.viewer, { owner: 'v', listName: 'none' }), 'FORBIDDEN', readOnly);
    expectNoTaskChange(w, before);
    expect((await get(t1)).subject).toBe('Build frontend');
    expect(ids(await list(w.viewer))).toHaveLength(3);
    expect(await history(t1)).toHaveLength(2);
  });

  it('an agent key without a session cannot create, and nothing is written', async () => {
    const before = taskState(w);
    await expectRefused(
      create(w.agent, 'X'),
      'NO_OWNING_SESSION',
      'Error: TaskCreate requires an owning agent session before anything is written.',
    );
    expectNoTaskChange(w, before);
  });

  it("a person's key (member or admin) creates and updates tasks, its history naming the key; a member opens no session", async () => {
    const memberKey = (await keys.create(w.deps, w.admin, { name: 'Ada', role: 'member' })).token;
    const member = await resolveActor(w.deps, memberKey);
    const made = await create(member, 'Planned by a person');
    expect(made.threadID).toBe(member.keyId);
    expect((await create(w.admin, 'Planned by the admin')).threadID).toBe(w.admin.keyId);
    await tasks.update(w.deps, member, { id: made.id, status: 'in_progress', expectedVersion: 1 });
    const { changes } = await tasks.history(w.deps, w.viewer, { id: made.id });
    expect(changes.map((c) => [c.kind, c.by])).toEqual([
      ['created', { sessionId: null, keyId: member.keyId, keyName: 'Ada' }],
      ['updated', { sessionId: null, keyId: member.keyId, keyName: 'Ada' }],
    ]);
    const before = taskState(w);
    await expectRefused(
      sessions.open(w.deps, member, { title: 'no' }),
      'FORBIDDEN',
      'Error: forbidden: this call needs an agent key (this key is member).',
    );
    await expectRefused(
      tasks.claim(w.deps, member, { id: made.id, owner: 'ada' }),
      'FORBIDDEN',
      'Error: forbidden: this call needs an agent key (this key is member).',
    );
    expectNoTaskChange(w, before);
  });

  it('a key without a session may still update tasks others created', async () => {
    const a = (await create(alice, 'A')).id;
    expect((await update(w.agent, { id: a, status: 'completed' })).status).toBe('completed');
  });

  it('updating an unknown task or in an unknown list is not found', async () => {
    await expectRefused(
      update(alice, { id: 'T-unknown', subject: 'x' }),
      'NOT_FOUND',
      'Error: task list "default" does not exist; this workspace has no task lists yet (TaskCreate starts one).',
    );
    await create(alice, 'A');
    await expectRefused(
      update(alice, { id: 'T-unknown', subject: 'x' }),
      'NOT_FOUND',
      'Error: task T-unknown not found in list "default".',
    );
  });
});

describe('edges added and removed within one call', () => {
  // src/task-changes.ts commit(), `before` (lines 113-118): before = after − added + removed, so an edge added and
  // removed inside one transaction counts as having existed before it.
  it('an edge added and removed in the same call (add a blocker, then delete) leaves the blocker untouched', async () => {
    const a = (await create(w.session, 'A')).id;
    const x = (await create(w.session, 'X')).id;
    await update(w.session, { id: x, addBlockedBy: [a], status: 'deleted' });
    expect((await history(x)).at(-1)!.changes).toEqual({ status: { from: 'pending', to: 'deleted' } });
    expect(await history(a)).toHaveLength(1); // today: a second change `blocks: [X] → []`
    expect((await get(a)).version).toBe(1); // today: 2
  });
});

describe("an update's footprint", () => {
  const footprintOf = (input: TaskUpdateInput) => tasks.updateFootprint('ws_1', input);

  it("one that changes only the task's own fields is the task's own, within its list's", () => {
    for (const fields of [
      { subject: 'New' },
      { description: 'More', activeForm: 'Doing it' },
      { metadata: { n: 1 }, expectedVersion: 3 },
      { repoURL: 'https://example.com/r', priority: 'P1' as const, labels: ['x'] },
    ]) {
      expect(footprintOf({ listName: 'plan', id: 'T-1', ...fields })).toBe('tasks:ws_1/plan/task:T-1');
    }
    expect(footprintOf({ id: 'T-1', subject: 'New' })).toBe('tasks:ws_1/default/task:T-1');
  });

  it("one that changes a status, an owner, a parent, evidence or an edge is its list's", () => {
    for (const fields of [
      { status: 'completed' as const },
      { owner: 'bob' },
      { parentID: 'T-2' },
      { evidence: [{ kind: 'note', text: 'done' }] },
      { addBlockedBy: ['T-2'] },
      { blocks: [] },
      { removeBlocks: ['T-3'], subject: 'New' },
    ]) {
      expect(footprintOf({ listName: 'plan', id: 'T-1', ...fields } as TaskUpdateInput)).toBe('tasks:ws_1/plan');
    }
  });

  it('an update asks the store for its footprint', async () => {
    const task = await create(alice, 'With a footprint');
    w.store.footprints = [];
    await update(alice, { id: task.id, metadata: { n: 1 } });
    await update(alice, { id: task.id, status: 'in_progress' });
    expect(w.store.footprints).toEqual([`tasks:${alice.workspaceId}/default/task:${task.id}`, `tasks:${alice.workspaceId}/default`]);
  });
});
