// Tests of the in-memory channel, run and outbox repositories: faithful to the port's doc comments and the real store's
// constraints, and rolled back with a failed transaction like the other repositories.
import { describe, expect, it } from 'vitest';
import type { ChannelRecord, OutboxRecord, RunRecord, RunStartRecord, RunStepRecordData, WorkspaceRecord } from '../src/index.ts';
import { ConstraintError, FakeSender, PUBLIC_URL, makeDeps } from './memory-store.ts';
import { taskRecord } from './fixtures.ts';

const T0 = new Date('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const ws = (id: string): WorkspaceRecord => ({ id, name: id, oneActiveRule: true, createdAt: T0 });
const channel = (id: string, workspaceId = 'ws_1', createdAt = T0): ChannelRecord => ({ id, workspaceId, name: id, kind: 'webhook', url: `https://hooks.example.com/${id}`, createdAt });
const start = (id: string, workspaceId = 'ws_1'): RunStartRecord => ({
  id,
  workspaceId,
  sessionId: 'ses_1',
  parentRunId: null,
  skipNotificationCheck: false,
  taskContext: null,
  runId: null,
  createdAt: T0,
});
const run = (id: string, patch: Partial<RunRecord> = {}): RunRecord => ({
  id,
  workspaceId: 'ws_1',
  sessionId: 'ses_1',
  parentRunId: null,
  startAttemptId: `start_of_${id}`,
  name: null,
  pendingName: null,
  executionNote: null,
  status: 'intake',
  revising: false,
  attemptId: 'att_1',
  taskContext: null,
  connections: [],
  notice: null,
  tasks: [],
  moves: [],
  remarks: [],
  cursor: 0,
  checklistOutcome: 'Pending',
  executionOutcome: 'Pending',
  taskOutcomes: [],
  taskTimes: [],
  currentSince: null,
  blocker: null,
  revision: 0,
  version: 1,
  createdAt: T0,
  updatedAt: T0,
  ...patch,
});
const stepRow = (runId: string, seq: number, attemptId: string | null = null): RunStepRecordData => ({
  runId,
  seq,
  kind: 'step',
  label: `Task ${seq}/3`,
  task: seq,
  attemptId,
  evidence: 'e',
  outcome: 'o',
  at: T0,
});
const message = (id: string, patch: Partial<OutboxRecord> = {}): OutboxRecord => ({
  id,
  workspaceId: 'ws_1',
  channelId: 'ch_1',
  url: 'https://hooks.example.com/ch_1',
  runId: 'run_1',
  kind: 'checklist_ready',
  payload: { text: id },
  idempotencyKey: `key_${id}`,
  attempts: 0,
  nextAttemptAt: T0,
  deliveredAt: null,
  lastError: null,
  createdAt: T0,
  deadAt: null,
  retriedAt: null,
  ...patch,
});

async function seeded() {
  const made = makeDeps();
  await made.store.transaction(async (repos) => {
    await repos.workspaces.create(ws('ws_1'));
    await repos.workspaces.create(ws('ws_2'));
  });
  return made;
}

describe('the fake deps', () => {
  it('carry the address of run pages', () => {
    expect(makeDeps().deps.runPage('run_1')).toBe(`${PUBLIC_URL}/runs/run_1`);
  });

  it('the fake sender answers as scripted, then with its fallback, and records every call', async () => {
    const sender = new FakeSender().answer('HTTP 500', true);
    expect(await sender.send('u', { a: 1 }, 'k1')).toEqual({ ok: false, error: 'HTTP 500' });
    expect(await sender.send('u', { a: 2 }, 'k2')).toEqual({ ok: true });
    sender.fallback = { ok: false, error: 'down' };
    expect(await sender.send('u', {}, 'k3')).toEqual({ ok: false, error: 'down' });
    expect(sender.calls.map((c) => c.idempotencyKey)).toEqual(['k1', 'k2', 'k3']);
  });
});

describe('a failed transaction leaves no channel, start, run, step or message behind', () => {
  it('rolls back every write of the new repositories', async () => {
    const { store } = await seeded();
    await store.transaction(async (repos) => {
      await repos.runs.create(run('run_1'));
      await repos.runs.createStart(start('start_1'));
    });
    const before = store.snapshot();
    await expect(
      store.transaction(async (repos) => {
        await repos.channels.create(channel('ch_1'));
        await repos.runs.createStart(start('start_2'));
        expect(await repos.runs.markStartExecuted('start_1', 'run_1')).toBe(true);
        await repos.runs.update({ ...run('run_1'), status: 'running', version: 2 }, 1);
        await repos.runs.appendStep(stepRow('run_1', 1));
        await repos.outbox.enqueue(message('msg_1'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(store.snapshot()).toEqual(before);
    expect(await store.runs.get('ws_1', 'run_1')).toMatchObject({ status: 'intake', version: 1 });
    expect(await store.runs.getStart('ws_1', 'start_1')).toMatchObject({ runId: null });
    expect(await store.outbox.forRun('run_1')).toEqual([]);
  });
});

describe('channels', () => {
  it('lists a workspace by creation (then id), and deletes only within the workspace', async () => {
    const { store } = await seeded();
    await store.transaction(async (repos) => {
      await repos.channels.create(channel('ch_b', 'ws_1', at(0)));
      await repos.channels.create(channel('ch_a', 'ws_1', at(0)));
      await repos.channels.create(channel('ch_0', 'ws_1', at(-1)));
      await repos.channels.create(channel('ch_x', 'ws_2'));
    });
    expect((await store.channels.list('ws_1')).map((c) => c.id)).toEqual(['ch_0', 'ch_a', 'ch_b']);
    expect(await store.channels.delete('ws_2', 'ch_a')).toBe(false);
    expect(await store.channels.delete('ws_1', 'ch_a')).toBe(true);
    expect(await store.channels.delete('ws_1', 'ch_a')).toBe(false);
    expect((await store.channels.list('ws_1')).map((c) => c.id)).toEqual(['ch_0', 'ch_b']);
  });

  it('refuses a repeated id and a missing workspace', async () => {
    const { store } = await seeded();
    await store.channels.create(channel('ch_1'));
    await expect(store.channels.create(channel('ch_1'))).rejects.toBeInstanceOf(ConstraintError);
    await expect(store.channels.create(channel('ch_2', 'ws_nope'))).rejects.toBeInstanceOf(ConstraintError);
  });
});

describe('runs', () => {
  it('binds a start attempt to its run once', async () => {
    const { store } = await seeded();
    await store.runs.createStart(start('start_1'));
    expect(await store.runs.getStart('ws_2', 'start_1')).toBeNull();
    expect(await store.runs.markStartExecuted('start_1', 'run_1')).toBe(true);
    expect(await store.runs.markStartExecuted('start_1', 'run_2')).toBe(false);
    expect(await store.runs.markStartExecuted('start_nope', 'run_2')).toBe(false);
    expect((await store.runs.getStart('ws_1', 'start_1'))?.runId).toBe('run_1');
  });

  it('a run is read within its workspace, or anywhere by its id', async () => {
    const { store } = await seeded();
    await store.runs.create(run('run_1'));
    expect(await store.runs.get('ws_2', 'run_1')).toBeNull();
    expect((await store.runs.get('ws_1', 'run_1'))?.id).toBe('run_1');
    expect((await store.runs.getAnywhere('run_1'))?.id).toBe('run_1');
    expect(await store.runs.getAnywhere('run_2')).toBeNull();
  });

  it('refuses a repeated id, a start attempt used twice and a missing workspace', async () => {
    const { store } = await seeded();
    await store.runs.create(run('run_1'));
    await expect(store.runs.create(run('run_1'))).rejects.toBeInstanceOf(ConstraintError);
    await expect(store.runs.create(run('run_2', { startAttemptId: 'start_of_run_1' }))).rejects.toBeInstanceOf(ConstraintError);
    await expect(store.runs.create(run('run_3', { workspaceId: 'ws_nope' }))).rejects.toBeInstanceOf(ConstraintError);
  });

  it('writes a run only from the version it was read at, never its keys or creation facts', async () => {
    const { store } = await seeded();
    await store.runs.create(run('run_1'));
    const changed = run('run_1', { status: 'running', cursor: 1, version: 2, workspaceId: 'ws_2', sessionId: 'ses_x', createdAt: at(5) });
    expect(await store.runs.update(changed, 2)).toBe(false);
    expect(await store.runs.update(changed, 1)).toBe(true);
    expect(await store.runs.get('ws_1', 'run_1')).toMatchObject({ status: 'running', cursor: 1, version: 2, sessionId: 'ses_1', createdAt: T0 });
    expect(await store.runs.update(changed, 1)).toBe(false);
    expect(await store.runs.update(run('run_nope'), 1)).toBe(false);
  });

  it('lists a workspace newest first, by session, up to the limit', async () => {
    const { store } = await seeded();
    await store.runs.create(run('run_1', { createdAt: at(1) }));
    await store.runs.create(run('run_2', { createdAt: at(2), sessionId: 'ses_2' }));
    await store.runs.create(run('run_3', { createdAt: at(3) }));
    await store.runs.create(run('run_4', { createdAt: at(4), workspaceId: 'ws_2' }));
    expect((await store.runs.list('ws_1', { limit: 10 })).map((r) => r.id)).toEqual(['run_3', 'run_2', 'run_1']);
    expect((await store.runs.list('ws_1', { sessionId: 'ses_1', limit: 10 })).map((r) => r.id)).toEqual(['run_3', 'run_1']);
    expect((await store.runs.list('ws_1', { limit: 1 })).map((r) => r.id)).toEqual(['run_3']);
  });

  it('steps: one per (run, seq), one per (run, attempt); steps without an attempt never collide', async () => {
    const { store } = await seeded();
    await store.runs.create(run('run_1'));
    await store.runs.appendStep(stepRow('run_1', 2, 'a'));
    await store.runs.appendStep(stepRow('run_1', 1));
    await store.runs.appendStep(stepRow('run_1', 3));
    await expect(store.runs.appendStep(stepRow('run_1', 3))).rejects.toBeInstanceOf(ConstraintError);
    await expect(store.runs.appendStep(stepRow('run_1', 4, 'a'))).rejects.toBeInstanceOf(ConstraintError);
    await expect(store.runs.appendStep(stepRow('run_nope', 1))).rejects.toBeInstanceOf(ConstraintError);
    expect((await store.runs.steps('run_1')).map((s) => s.seq)).toEqual([1, 2, 3]);
    expect((await store.runs.findStepByAttempt('run_1', 'a'))?.seq).toBe(2);
    expect(await store.runs.findStepByAttempt('run_1', 'b')).toBeNull();
  });

  it('what a read returns is a copy: changing it changes nothing stored', async () => {
    const { store } = await seeded();
    await store.runs.create(run('run_1', { tasks: [{ action: 'A', expected_result: 'B' }] }));
    const read = (await store.runs.get('ws_1', 'run_1'))!;
    read.tasks[0]!.action = 'changed';
    read.version = 99;
    expect(await store.runs.get('ws_1', 'run_1')).toMatchObject({ version: 1, tasks: [{ action: 'A', expected_result: 'B' }] });
  });
});

describe('outbox', () => {
  it('due: undelivered messages whose time has come, by next attempt then id, up to the limit', async () => {
    const { store } = await seeded();
    await store.outbox.enqueue(message('msg_b', { nextAttemptAt: at(0) }));
    await store.outbox.enqueue(message('msg_a', { nextAttemptAt: at(0) }));
    await store.outbox.enqueue(message('msg_0', { nextAttemptAt: at(-5) }));
    await store.outbox.enqueue(message('msg_later', { nextAttemptAt: at(10) }));
    await store.outbox.enqueue(message('msg_done', { nextAttemptAt: at(-9), deliveredAt: at(-8) }));
    expect((await store.outbox.due(at(0), 10)).map((m) => m.id)).toEqual(['msg_0', 'msg_a', 'msg_b']);
    expect((await store.outbox.due(at(0), 2)).map((m) => m.id)).toEqual(['msg_0', 'msg_a']);
    expect((await store.outbox.due(at(10), 10)).map((m) => m.id)).toEqual(['msg_0', 'msg_a', 'msg_b', 'msg_later']);
  });

  it('refuses a repeated id or idempotency key', async () => {
    const { store } = await seeded();
    await store.outbox.enqueue(message('msg_1'));
    await expect(store.outbox.enqueue(message('msg_1', { idempotencyKey: 'other' }))).rejects.toBeInstanceOf(ConstraintError);
    await expect(store.outbox.enqueue(message('msg_2', { idempotencyKey: 'key_msg_1' }))).rejects.toBeInstanceOf(ConstraintError);
  });

  it('a failure records its attempts, next time and error (first 500 characters); delivery counts the try and clears the error', async () => {
    const { store } = await seeded();
    await store.outbox.enqueue(message('msg_1'));
    await store.outbox.markFailed('msg_1', 1, at(1000), 'x'.repeat(600));
    expect((await store.outbox.forRun('run_1'))[0]).toMatchObject({ attempts: 1, nextAttemptAt: at(1000), lastError: 'x'.repeat(500), deliveredAt: null });
    await store.outbox.markDelivered('msg_1', at(1500), 2);
    expect((await store.outbox.forRun('run_1'))[0]).toMatchObject({ attempts: 2, lastError: null, deliveredAt: at(1500) });
    await expect(store.outbox.markDelivered('msg_nope', at(0), 1)).rejects.toBeInstanceOf(ConstraintError);
    await expect(store.outbox.markFailed('msg_nope', 1, at(0), 'e')).rejects.toBeInstanceOf(ConstraintError);
  });

  it("dropPending removes only the channel's undelivered messages; forRun lists by creation", async () => {
    const { store } = await seeded();
    await store.outbox.enqueue(message('msg_2', { createdAt: at(2) }));
    await store.outbox.enqueue(message('msg_1', { createdAt: at(1), deliveredAt: at(1) }));
    await store.outbox.enqueue(message('msg_3', { createdAt: at(3), channelId: 'ch_2' }));
    await store.outbox.enqueue(message('msg_4', { createdAt: at(4), runId: 'run_2' }));
    expect((await store.outbox.forRun('run_1')).map((m) => m.id)).toEqual(['msg_1', 'msg_2', 'msg_3']);
    await store.outbox.dropPending('ch_1');
    expect((await store.outbox.forRun('run_1')).map((m) => m.id)).toEqual(['msg_1', 'msg_3']);
    expect(await store.outbox.forRun('run_2')).toEqual([]);
  });
});

describe('tasks.reaches (the task port grew it alongside)', () => {
  it('follows "blocks" edges one or more steps from a task', async () => {
    const { store } = await seeded();
    const task = (id: string, seq: number) => taskRecord(id, seq, {}, T0);
    await store.transaction(async (repos) => {
      await repos.tasks.createList({ id: 'tl_1', workspaceId: 'ws_1', name: 'default', createdAt: T0 });
      for (const [i, id] of ['T-a', 'T-b', 'T-c', 'T-d'].entries()) await repos.tasks.insert(task(id, i + 1));
      await repos.tasks.addEdge('tl_1', { blockerId: 'T-a', blockedId: 'T-b' });
      await repos.tasks.addEdge('tl_1', { blockerId: 'T-b', blockedId: 'T-c' });
    });
    expect(await store.tasks.reaches('T-a', 'T-b')).toBe(true);
    expect(await store.tasks.reaches('T-a', 'T-c')).toBe(true);
    expect(await store.tasks.reaches('T-c', 'T-a')).toBe(false);
    expect(await store.tasks.reaches('T-a', 'T-d')).toBe(false);
    expect(await store.tasks.reaches('T-a', 'T-a')).toBe(false);
  });
});
