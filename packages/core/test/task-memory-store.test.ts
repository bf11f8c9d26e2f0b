// Tests of the in-memory TaskRepository itself: the constraints and orderings its doc comments promise, as the real
// (Prisma) store keeps them, and that task writes roll back with their transaction.
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskStatus } from '@agent-tasks/schema';
import type { Repositories, TaskChangeRecord, TaskEdge, TaskListRecord, TaskRecord } from '../src/index.ts';
import { CounterIds, MemoryStore, makeDeps } from './memory-store.ts';
import { taskRecord } from './fixtures.ts';

const at = new Date('2025-01-01T00:00:00.000Z');
const listRec = (id: string, name = id, workspaceId = 'ws_1'): TaskListRecord => ({ id, workspaceId, name, createdAt: at });
const taskRec = (id: string, seq: number, patch: Partial<TaskRecord> = {}) => taskRecord(id, seq, patch, at);
const edge = (blockerId: string, blockedId: string): TaskEdge => ({ blockerId, blockedId });
const change = (seq: number, taskId: string, listId = 'tl_1'): TaskChangeRecord => ({
  listId,
  seq,
  taskId,
  kind: 'updated',
  sessionId: null,
  keyId: 'key_1',
  at,
  changes: { subject: { from: 'a', to: 'b' } },
  snapshot: {
    id: taskId,
    listName: 'default',
    subject: 'b',
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
    metadata: {},
    threadID: 'ses_1',
    version: 2,
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
  },
});

let store: MemoryStore;
const tx = <T>(work: (repos: Repositories) => Promise<T>) => store.transaction(work);

beforeEach(async () => {
  store = makeDeps().store;
  await tx(async (repos) => {
    await repos.workspaces.create({ id: 'ws_1', name: 'ws', oneActiveRule: true, createdAt: at });
    await repos.tasks.createList(listRec('tl_1', 'default'));
  });
});

/** Inserts tasks T-1… with the given statuses (and owners), in seq order. */
async function seed(...rows: [TaskStatus, (string | null)?][]) {
  await tx(async (repos) => {
    for (const [i, [status, owner]] of rows.entries()) await repos.tasks.insert(taskRec(`T-${i + 1}`, i + 1, { status, owner: owner ?? null }));
  });
}

describe('task lists and counters', () => {
  it('finds a list by workspace and name only; names are unique per workspace', async () => {
    expect(await store.tasks.findList('ws_1', 'default')).toEqual(listRec('tl_1', 'default'));
    expect(await store.tasks.findList('ws_2', 'default')).toBeNull();
    expect(await store.tasks.findList('ws_1', 'other')).toBeNull();
    await expect(tx((r) => r.tasks.createList(listRec('tl_2', 'default')))).rejects.toThrow('already exists');
    await expect(tx((r) => r.tasks.createList(listRec('tl_1', 'x')))).rejects.toThrow('already exists');
    await expect(tx((r) => r.tasks.createList(listRec('tl_3', 'default', 'ws_404')))).rejects.toThrow('missing workspace');
  });

  it('counts tasks and changes per list, separately, from 1', async () => {
    await tx((r) => r.tasks.createList(listRec('tl_2')));
    expect(await tx(async (r) => [await r.tasks.nextTaskSeq('tl_1'), await r.tasks.nextTaskSeq('tl_1'), await r.tasks.nextChangeSeq('tl_1'), await r.tasks.nextTaskSeq('tl_2')])).toEqual([1, 2, 1, 1]);
    await expect(tx((r) => r.tasks.nextTaskSeq('tl_404'))).rejects.toThrow('does not exist');
  });

  it('a rolled-back transaction gives its counters back', async () => {
    await expect(
      tx(async (r) => {
        await r.tasks.nextTaskSeq('tl_1');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await tx((r) => r.tasks.nextTaskSeq('tl_1'))).toBe(1);
  });
});

describe('tasks', () => {
  it('ids are global and unique; seq is unique per list; the list must exist', async () => {
    await seed(['pending']);
    expect(await store.tasks.idTaken('T-1')).toBe(true);
    expect(await store.tasks.idTaken('T-2')).toBe(false);
    await expect(tx((r) => r.tasks.insert(taskRec('T-1', 9)))).rejects.toThrow('already exists');
    await expect(tx((r) => r.tasks.insert(taskRec('T-2', 1)))).rejects.toThrow('already exists');
    await expect(tx((r) => r.tasks.insert(taskRec('T-2', 2, { listId: 'tl_404' })))).rejects.toThrow('missing list');
  });

  it('get is scoped to the list; getMany returns the found ones in seq order; reads are copies', async () => {
    await seed(['pending'], ['pending'], ['pending']);
    expect(await store.tasks.get('tl_2', 'T-1')).toBeNull();
    expect((await store.tasks.getMany('tl_1', ['T-3', 'T-1', 'T-9'])).map((t) => t.id)).toEqual(['T-1', 'T-3']);
    const read = (await store.tasks.get('tl_1', 'T-1'))!;
    read.metadata.x = 1;
    read.subject = 'changed';
    expect(await store.tasks.get('tl_1', 'T-1')).toEqual(taskRec('T-1', 1));
  });

  it('update is a compare-and-set on the version, and leaves the keys and creation facts alone', async () => {
    await seed(['pending']);
    const later = new Date('2025-02-01T00:00:00.000Z');
    const next = taskRec('T-1', 1, { subject: 'new', version: 2, updatedAt: later });
    expect(await tx((r) => r.tasks.update(next, 2))).toBe(false);
    expect((await store.tasks.get('tl_1', 'T-1'))!.version).toBe(1);
    expect(await tx((r) => r.tasks.update({ ...next, seq: 99, createdAt: later }, 1))).toBe(true);
    expect(await store.tasks.get('tl_1', 'T-1')).toEqual(taskRec('T-1', 1, { subject: 'new', version: 2, updatedAt: later }));
    expect(await tx((r) => r.tasks.update(next, 1))).toBe(false);
    expect(await tx((r) => r.tasks.update(taskRec('T-9', 9), 1))).toBe(false);
  });
});

describe('edges', () => {
  beforeEach(() => seed(['pending'], ['pending'], ['pending'], ['pending']));

  it('are unique per (blocker, blocked), need both tasks, and keep insertion order', async () => {
    await tx(async (r) => {
      await r.tasks.addEdge('tl_1', edge('T-3', 'T-4'));
      await r.tasks.addEdge('tl_1', edge('T-1', 'T-4'));
      await r.tasks.addEdge('tl_1', edge('T-2', 'T-3'));
    });
    await expect(tx((r) => r.tasks.addEdge('tl_1', edge('T-3', 'T-4')))).rejects.toThrow('already exists');
    await expect(tx((r) => r.tasks.addEdge('tl_1', edge('T-3', 'T-9')))).rejects.toThrow('missing task T-9');
    expect(await store.tasks.edgesOf(['T-4'])).toEqual([edge('T-3', 'T-4'), edge('T-1', 'T-4')]);
    expect(await store.tasks.edgesOf(['T-3'])).toEqual([edge('T-3', 'T-4'), edge('T-2', 'T-3')]);
    expect(await store.tasks.blocksOf(['T-3', 'T-2'])).toEqual([edge('T-3', 'T-4'), edge('T-2', 'T-3')]);
    expect(await store.tasks.blocksOf(['T-4'])).toEqual([]);
  });

  it('removing is by the pair, harmless when absent; a re-added edge goes last', async () => {
    await tx(async (r) => {
      await r.tasks.addEdge('tl_1', edge('T-1', 'T-4'));
      await r.tasks.addEdge('tl_1', edge('T-2', 'T-4'));
      await r.tasks.removeEdge(edge('T-1', 'T-4'));
      await r.tasks.removeEdge(edge('T-4', 'T-1'));
      await r.tasks.addEdge('tl_1', edge('T-1', 'T-4'));
    });
    expect(await store.tasks.edgesOf(['T-4'])).toEqual([edge('T-2', 'T-4'), edge('T-1', 'T-4')]);
  });

  it('unresolved blockers: those neither completed nor deleted', async () => {
    await tx(async (r) => {
      for (const blocker of ['T-1', 'T-2', 'T-3']) await r.tasks.addEdge('tl_1', edge(blocker, 'T-4'));
      await r.tasks.addEdge('tl_1', edge('T-1', 'T-2'));
      for (const [id, status] of [['T-1', 'completed'], ['T-2', 'in_progress']] as const) {
        const t = (await r.tasks.get('tl_1', id))!;
        await r.tasks.update({ ...t, status, version: 2 }, 1);
      }
    });
    expect(await store.tasks.unresolvedBlockers(['T-4'])).toEqual([edge('T-2', 'T-4'), edge('T-3', 'T-4')]);
    expect(await store.tasks.unresolvedBlockers(['T-2', 'T-4'])).toEqual([edge('T-2', 'T-4'), edge('T-3', 'T-4')]);
    expect(await store.tasks.unresolvedBlockers(['T-1'])).toEqual([]);
  });
});

describe('list, firstReady and graph', () => {
  // T-1 pending alice · T-2 pending · T-3 pending blocked by T-2 · T-4 in_progress bob · T-5 completed · T-6 deleted
  // · T-7 pending blocked by T-5 (completed) and T-6 (deleted) · T-8 pending bob
  beforeEach(async () => {
    await seed(['pending', 'alice'], ['pending'], ['pending'], ['in_progress', 'bob'], ['completed'], ['deleted'], ['pending'], ['pending', 'bob']);
    await tx(async (r) => {
      await r.tasks.addEdge('tl_1', edge('T-2', 'T-3'));
      await r.tasks.addEdge('tl_1', edge('T-5', 'T-7'));
      await r.tasks.addEdge('tl_1', edge('T-6', 'T-7'));
      await r.tasks.addEdge('tl_1', edge('T-4', 'T-8'));
      await r.tasks.addEdge('tl_1', edge('T-5', 'T-2'));
    });
  });
  const ids = (rows: TaskRecord[]) => rows.map((t) => t.id);
  const all = { statuses: ['pending', 'in_progress', 'completed', 'deleted'] as TaskStatus[], limit: 100 };

  it('filters by status and owner, in seq order, up to the limit', async () => {
    expect(ids(await store.tasks.list('tl_1', all))).toEqual(['T-1', 'T-2', 'T-3', 'T-4', 'T-5', 'T-6', 'T-7', 'T-8']);
    expect(ids(await store.tasks.list('tl_1', { statuses: ['in_progress', 'completed'], limit: 100 }))).toEqual(['T-4', 'T-5']);
    expect(ids(await store.tasks.list('tl_1', { ...all, owner: 'bob' }))).toEqual(['T-4', 'T-8']);
    expect(ids(await store.tasks.list('tl_1', { ...all, limit: 3 }))).toEqual(['T-1', 'T-2', 'T-3']);
    expect(ids(await store.tasks.list('tl_2', all))).toEqual([]);
  });

  it('readyFor: pending, unowned or the agent own, every blocker completed or deleted', async () => {
    expect(ids(await store.tasks.list('tl_1', { ...all, readyFor: 'alice' }))).toEqual(['T-1', 'T-2', 'T-7']);
    expect(ids(await store.tasks.list('tl_1', { ...all, readyFor: 'bob' }))).toEqual(['T-2', 'T-7']);
    expect(ids(await store.tasks.list('tl_1', { ...all, readyFor: 'alice', owner: 'alice' }))).toEqual(['T-1']);
  });

  it('firstReady is the oldest ready task for the agent, or null', async () => {
    expect((await store.tasks.firstReady('tl_1', 'alice'))!.id).toBe('T-1');
    expect((await store.tasks.firstReady('tl_1', 'bob'))!.id).toBe('T-2');
    expect(await store.tasks.firstReady('tl_2', 'bob')).toBeNull();
  });

  it('graph: the tasks with the statuses, and only the edges among them', async () => {
    const g = await store.tasks.graph('tl_1', ['pending', 'in_progress']);
    expect(ids(g.tasks)).toEqual(['T-1', 'T-2', 'T-3', 'T-4', 'T-7', 'T-8']);
    expect(g.edges).toEqual([edge('T-2', 'T-3'), edge('T-4', 'T-8')]);
  });
});

describe('change log', () => {
  it('is unique per (list, seq); read per task and per list after a position, oldest first', async () => {
    await tx(async (r) => {
      await r.tasks.appendChange(change(2, 'T-1'));
      await r.tasks.appendChange(change(1, 'T-2'));
      await r.tasks.appendChange(change(3, 'T-1'));
    });
    await expect(tx((r) => r.tasks.appendChange(change(2, 'T-9')))).rejects.toThrow('already exists');
    expect((await store.tasks.changesOf('T-1')).map((c) => c.seq)).toEqual([2, 3]);
    expect((await store.tasks.changesAfter('tl_1', 1, 10)).map((c) => c.seq)).toEqual([2, 3]);
    expect((await store.tasks.changesAfter('tl_1', 0, 2)).map((c) => c.seq)).toEqual([1, 2]);
    expect(await store.tasks.changesAfter('tl_2', 0, 10)).toEqual([]);
    expect((await store.tasks.changesOf('T-2'))[0]).toEqual(change(1, 'T-2'));
  });
});

describe('transactions and hooks', () => {
  it('task writes of a failed transaction leave nothing', async () => {
    const before = store.snapshot();
    await expect(
      tx(async (r) => {
        await r.tasks.insert(taskRec('T-1', await r.tasks.nextTaskSeq('tl_1')));
        await r.tasks.insert(taskRec('T-2', await r.tasks.nextTaskSeq('tl_1')));
        await r.tasks.addEdge('tl_1', edge('T-1', 'T-2'));
        await r.tasks.appendChange(change(await r.tasks.nextChangeSeq('tl_1'), 'T-1'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(store.snapshot()).toEqual(before);
  });

  it('task methods can be hooked', async () => {
    let calls = 0;
    store.once('tasks.firstReady', () => {
      calls++;
    });
    await store.tasks.firstReady('tl_1', 'a');
    await store.tasks.firstReady('tl_1', 'a');
    expect(calls).toBe(1);
  });
});

describe('uuid', () => {
  it('is deterministic, well-formed v4, and counts on its own', () => {
    const ids = new CounterIds();
    ids.id('ses');
    expect([ids.uuid(), ids.uuid()]).toEqual(['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']);
    expect(ids.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(`T-${ids.uuid()}`).toMatch(/^T-[A-Za-z0-9-]{1,64}$/);
  });
});
