// Black-box tests of kept reads (core's ReadCache): a task list page is reused until its list's feed position moves, a
// run's view until the run's version moves (its in-progress entry's time still counted to now); every kind of write, by
// this server or another one on the same database, is seen on the next read.
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, queryRows } from './support/database.ts';
import { acknowledge, adminClient, keyClient, nameAndIntake, stepTask } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { testDatabase } from './support/database.ts';

let server: RunningServer;
let other: RunningServer;
beforeAll(async () => {
  // On a manual clock (heartbeats and lease expiry at a moment of the test's choosing), on the pass's database; the
  // second server is another process on the same database, as a worker or replica is.
  server = await startServer({ manualTime: true, postgres: testDatabase() === 'postgres' });
  other = await startServer({ database: server, adminKey: server.adminKey, process: true });
});
afterAll(async () => {
  await other.stop();
  await server.stop();
});

let lists = 0;
const freshList = () => `kept-pages-${++lists}`;
const agentSession = async (agentName: string) => (await openSessionClient(await keyClient(server, 'agent'), { agentName })).client;
const clock = () => {
  if (!server.clock) throw new Error('the server runs on the wall clock');
  return server.clock;
};
const listIdOf = async (listName: string) =>
  (await queryRows<{ id: string }>(server, 'SELECT "id" FROM "TaskList" WHERE "name" = ?', listName))[0]?.id ?? '';

describe('kept task list pages', () => {
  it('a page is reused while its list has no new change: a row changed behind the server is not seen until the feed position moves', async () => {
    const ann = await agentSession('ann');
    const listName = freshList();
    const task = await ann.tasks.create({ listName, subject: 'Original subject' });
    const ready = () => ann.tasks.list({ listName, readyOnly: true });
    const page = () => ann.tasks.list({ listName });
    expect((await ready()).tasks.map((t) => t.subject)).toEqual(['Original subject']);
    expect((await page()).tasks.map((t) => t.subject)).toEqual(['Original subject']);

    // Not through the server: no change recorded, the feed position unchanged.
    await execute(server, ['UPDATE "Task" SET "subject" = ? WHERE "id" = ?', 'Changed behind the server', task.id]);
    expect((await ready()).tasks.map((t) => t.subject)).toEqual(['Original subject']);
    expect((await page()).tasks.map((t) => t.subject)).toEqual(['Original subject']);
    // A search is never kept: it reads the rows.
    expect((await ann.tasks.list({ listName, query: 'subject' })).tasks.map((t) => t.subject)).toEqual(['Changed behind the server']);

    await execute(server, ['UPDATE "TaskList" SET "changeSeq" = "changeSeq" + 1 WHERE "id" = ?', await listIdOf(listName)]);
    expect((await ready()).tasks.map((t) => t.subject)).toEqual(['Changed behind the server']);
    expect((await page()).tasks.map((t) => t.subject)).toEqual(['Changed behind the server']);
  });

  it('each reader has its own page: readiness and filters are read for the asker', async () => {
    const ann = await agentSession('ann');
    const bob = await agentSession('bob');
    const listName = freshList();
    const mine = await ann.tasks.create({ listName, subject: 'Ann’s task' });
    await ann.tasks.update({ listName, id: mine.id, owner: 'ann' });
    const open = await ann.tasks.create({ listName, subject: 'Anyone’s task', priority: 'P1' });
    expect((await ann.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.id)).toEqual([mine.id, open.id]);
    expect((await bob.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.id)).toEqual([open.id]);
    expect((await bob.tasks.list({ listName, priority: 'P1' })).tasks.map((t) => t.id)).toEqual([open.id]);
    expect((await bob.tasks.list({ listName, owner: 'ann' })).tasks.map((t) => t.id)).toEqual([mine.id]);
    expect((await bob.tasks.list({ listName, limit: 1 })).tasks.map((t) => t.id)).toEqual([mine.id]);
    const annsPage = (await ann.tasks.list({ listName })).tasks;
    const bobsPage = (await bob.tasks.list({ listName })).tasks;
    expect(annsPage.map((t) => t.ready)).toEqual([true, true]);
    expect(bobsPage.map((t) => t.ready)).toEqual([false, true]);
  });

  it('every kind of write is seen on the next read of a kept page: create, update, edges, claim, heartbeat, evidence, lease expiry, delete', async () => {
    const ann = await agentSession('ann');
    const bob = await agentSession('bob');
    const listName = freshList();
    const ready = async () => (await ann.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.subject);
    const page = async () => (await ann.tasks.list({ listName })).tasks;

    const first = await ann.tasks.create({ listName, subject: 'First' });
    const second = await ann.tasks.create({ listName, subject: 'Second', blockedBy: [first.id] });
    expect(await ready()).toEqual(['First']);
    expect((await page()).map((t) => [t.subject, t.blockedBy])).toEqual([
      ['First', []],
      ['Second', [first.id]],
    ]);

    // A blocker completed: the blocked task is ready, and its unresolved blockers are gone.
    await ann.tasks.update({ listName, id: first.id, status: 'completed' });
    expect(await ready()).toEqual(['Second']);
    expect((await page()).map((t) => [t.subject, t.blockedBy])).toEqual([['Second', []]]);

    // A new task; then its subject changed; then an edge added.
    const third = await ann.tasks.create({ listName, subject: 'Third' });
    expect(await ready()).toEqual(['Second', 'Third']);
    await ann.tasks.update({ listName, id: third.id, subject: 'Third, renamed' });
    expect(await ready()).toEqual(['Second', 'Third, renamed']);
    await ann.tasks.update({ listName, id: third.id, addBlockedBy: [second.id] });
    expect(await ready()).toEqual(['Second']);

    // A claim with a lease: off ann's ready page; the whole page shows the lease.
    const claimed = await bob.tasks.claim({ listName, id: second.id, leaseMs: 60_000 });
    expect(await ready()).toEqual([]);
    const leased = (await page()).find((t) => t.id === second.id);
    expect(leased).toMatchObject({ status: 'in_progress', owner: 'bob', leaseExpiresAt: claimed.task?.lease?.expiresAt });

    // A heartbeat records no change, yet the page shows the lease's new end.
    clock().advance(30_000);
    const beat = await bob.tasks.heartbeat({ listName, id: second.id });
    expect(beat.lease.expiresAt).not.toBe(claimed.task?.lease?.expiresAt);
    expect((await page()).find((t) => t.id === second.id)?.leaseExpiresAt).toBe(beat.lease.expiresAt);

    // Evidence a hook saw: the page shows its verdict.
    expect((await page()).find((t) => t.id === second.id)).not.toHaveProperty('verdict');
    await bob.tasks.hookEvidence({ listName, evidence: { kind: 'command', command: 'pnpm test', exitCode: 0 } });
    expect((await page()).find((t) => t.id === second.id)?.verdict).toBe('verified');

    // The lease runs out: the task is ready again, for anyone.
    clock().advance(60_001);
    expect(await server.expireLeases?.()).toBe(1);
    expect(await ready()).toEqual(['Second']);
    expect((await page()).find((t) => t.id === second.id)).not.toHaveProperty('leaseExpiresAt');

    // Deleted: gone from every page.
    await ann.tasks.update({ listName, id: third.id, status: 'deleted' });
    expect((await page()).map((t) => t.subject)).toEqual(['Second']);
  });

  it('a write through another server on the same database is seen on the next read of a page this one kept, and the other way round', async () => {
    const key = await adminClient(server).keys.create({ name: 'on both servers', role: 'agent' });
    const { client: here, token } = await openSessionClient(createClient({ url: server.url, token: key.token }), { agentName: 'ann' });
    const there = createClient({ url: other.url, token });
    const listName = freshList();
    const task = await here.tasks.create({ listName, subject: 'Made here' });
    expect((await here.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.subject)).toEqual(['Made here']);
    expect((await there.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.subject)).toEqual(['Made here']);

    await there.tasks.update({ listName, id: task.id, subject: 'Renamed there' });
    expect((await here.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.subject)).toEqual(['Renamed there']);

    await here.tasks.create({ listName, subject: 'Made here too' });
    expect((await there.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.subject)).toEqual(['Renamed there', 'Made here too']);
  });
});

describe('kept run views', () => {
  const newRun = async (client: Awaited<ReturnType<typeof agentSession>>, name: string) => {
    const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
    const run = await client.runs.execute({ startAttemptId });
    await nameAndIntake(client, {
      runId: run.id,
      name,
      tasks: [stepTask(1), stepTask(2), stepTask(3)],
      progress_checklist_outcome: 'three steps',
    });
    return run.id;
  };

  it("a run's view is reused while the run's version is unchanged: a row changed behind the server is not seen until the version moves", async () => {
    const ann = await agentSession('ann');
    const runId = await newRun(ann, 'Kept view');
    expect((await ann.runs.get({ runId })).name).toBe('Kept view');
    await execute(server, ['UPDATE "Run" SET "name" = ? WHERE "id" = ?', 'Renamed behind the server', runId]);
    expect((await ann.runs.get({ runId })).name).toBe('Kept view');
    await execute(server, ['UPDATE "Run" SET "version" = "version" + 1 WHERE "id" = ?', runId]);
    expect((await ann.runs.get({ runId })).name).toBe('Renamed behind the server');
  });

  it("a kept view still counts the in-progress entry's time to now; every other field as kept", async () => {
    const ann = await agentSession('ann');
    const runId = await newRun(ann, 'Timed view');
    const first = await ann.runs.get({ runId });
    expect(first.blocks.work.inProgress).toBe(1);
    clock().advance(5_000);
    const later = await ann.runs.get({ runId });
    expect(later.blocks.work.tasks[0]?.timeMs).toBe((first.blocks.work.tasks[0]?.timeMs ?? 0) + 5_000);
    const { tasks: laterTasks, ...laterWork } = later.blocks.work;
    const { tasks: firstTasks, ...firstWork } = first.blocks.work;
    expect(laterWork).toEqual(firstWork);
    expect(laterTasks.slice(1)).toEqual(firstTasks.slice(1));
    expect({ ...later, blocks: null }).toEqual({ ...first, blocks: null });

    // A step: the next entry counts from the step on; the one done keeps its time.
    await acknowledge(ann, runId, { evidence: 'checked', progress_execution_outcome: 'step 1 done' });
    clock().advance(2_000);
    const stepped = await ann.runs.get({ runId });
    expect(stepped.blocks.work.tasks.map((t) => [t.state, t.timeMs])).toEqual([
      ['done', 5_000],
      ['in_progress', 2_000],
      ['pending', 0],
    ]);
  });

  it('a change to the run through another server on the same database is seen on the next read of a view this one kept', async () => {
    const key = await adminClient(server).keys.create({ name: 'runs on both servers', role: 'agent' });
    const { client: here, token } = await openSessionClient(createClient({ url: server.url, token: key.token }), { agentName: 'ann' });
    const there = createClient({ url: other.url, token });
    const runId = await newRun(here, 'Seen on both');
    expect((await here.runs.get({ runId })).cursor).toBe(1);
    await acknowledge(there, runId, { evidence: 'checked there', progress_execution_outcome: 'step 1 done there' });
    const seen = await here.runs.get({ runId });
    expect(seen.cursor).toBe(2);
    expect(seen.blocks.work.tasks[0]).toMatchObject({ state: 'done', outcome: 'step 1 done there' });
  });
});
