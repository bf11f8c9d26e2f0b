// Black-box tests of claims (atomic, also under concurrent HTTP requests), the parallel plan, and the live task feed.
import type { TaskEvent } from '@agent-tasks/schema';
import { openSessionClient, taskTools } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyClient, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

let lists = 0;
const freshList = () => `claims-${++lists}`;

async function agentSession(name: string) {
  return openSessionClient(await keyClient(server, 'agent'), { agentName: name });
}

describe('claims', () => {
  it('claims a named task: in_progress and owned by the caller; refusals say why', async () => {
    const ana = await agentSession('ana');
    const bob = await agentSession('bob');
    const listName = freshList();
    const a = await ana.client.tasks.create({ listName, subject: 'A' });
    const b = await ana.client.tasks.create({ listName, subject: 'B', blockedBy: [a.id] });
    const done = await ana.client.tasks.create({ listName, subject: 'Done' });
    await ana.client.tasks.update({ listName, id: done.id, status: 'completed' });

    const claimed = await ana.client.tasks.claim({ listName, id: a.id });
    expect(claimed.task).toMatchObject({ id: a.id, status: 'in_progress', owner: 'ana' });
    expect((await refused(bob.client.tasks.claim({ listName, id: a.id }))).message).toBe(
      `Error: cannot claim ${a.id}: already claimed by ana.`,
    );
    expect((await refused(bob.client.tasks.claim({ listName, id: b.id }))).message).toBe(
      `Error: cannot claim ${b.id}: blocked by ${a.id}.`,
    );
    const notPending = await refused(bob.client.tasks.claim({ listName, id: done.id }));
    expect(notPending.message).toBe(`Error: cannot claim ${done.id}: it is completed, not pending.`);
    expect(notPending.code).toBe('CLAIM_REFUSED');
    expect((await bob.client.tasks.get({ listName, id: b.id })).status).toBe('pending');
  });

  it('claims the next ready task, oldest first, and says when none is ready', async () => {
    const ana = await agentSession('ana');
    const listName = freshList();
    const first = await ana.client.tasks.create({ listName, subject: 'First' });
    const second = await ana.client.tasks.create({ listName, subject: 'Second' });
    await ana.client.tasks.create({ listName, subject: 'Third', blockedBy: [first.id] });
    expect((await ana.client.tasks.claim({ listName })).task?.id).toBe(first.id);
    expect((await ana.client.tasks.claim({ listName })).task?.id).toBe(second.id);
    expect((await ana.client.tasks.claim({ listName })).task).toBeNull();
  });

  it('N agents claiming at once never get the same task', async () => {
    const listName = freshList();
    const lead = await agentSession('lead');
    const created = [];
    for (let i = 0; i < 6; i++) created.push(await lead.client.tasks.create({ listName, subject: `Task ${i}` }));
    const agents = await Promise.all(Array.from({ length: 10 }, (_, i) => agentSession(`agent-${i}`)));
    const results = await Promise.all(agents.map((a) => a.client.tasks.claim({ listName })));
    const won = results.map((r) => r.task).filter((t) => t !== null);
    expect(won).toHaveLength(6);
    expect(new Set(won.map((t) => t.id)).size).toBe(6);
    expect(new Set(won.map((t) => t.owner)).size).toBe(6);
    const list = await lead.client.tasks.list({ listName });
    expect(list.tasks.every((t) => t.status === 'in_progress')).toBe(true);

    // And a named task claimed by many at once has exactly one owner.
    const contested = await lead.client.tasks.create({ listName, subject: 'Contested' });
    const named = await Promise.allSettled(agents.map((a) => a.client.tasks.claim({ listName, id: contested.id })));
    expect(named.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });
});

describe('parallel plan', () => {
  it('gives the remaining graph as waves and the critical path length', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const fe = await s.client.tasks.create({ listName, subject: 'Build frontend' });
    const be = await s.client.tasks.create({ listName, subject: 'Build backend' });
    const it = await s.client.tasks.create({ listName, subject: 'Integration tests', blockedBy: [fe.id, be.id] });
    const deploy = await s.client.tasks.create({ listName, subject: 'Deploy', blockedBy: [it.id] });
    const docs = await s.client.tasks.create({ listName, subject: 'Write docs' });
    let plan = await s.client.tasks.plan({ listName });
    expect(plan.waves).toEqual([[fe.id, be.id, docs.id], [it.id], [deploy.id]]);
    expect(plan.criticalPathLength).toBe(3);
    expect(plan.criticalPath).toEqual([fe.id, it.id, deploy.id]);

    await s.client.tasks.update({ listName, id: fe.id, status: 'completed' });
    await s.client.tasks.update({ listName, id: be.id, status: 'completed' });
    plan = await s.client.tasks.plan({ listName });
    expect(plan.waves).toEqual([[it.id, docs.id], [deploy.id]]);
    expect(plan.criticalPathLength).toBe(2);
  });
});

describe('live feed of a task list', () => {
  it('delivers every change, and resumes after the last event id without gaps', async () => {
    const s = await sessionClient(server);
    const viewer = await keyClient(server, 'viewer');
    const listName = freshList();
    const events: { id: string; data: TaskEvent }[] = [];
    let sub: { unsubscribe(): void } | undefined;
    await new Promise<void>((resolve) => {
      sub = viewer.tasks.watch({ listName }, { onData: (e) => events.push(e), onStarted: resolve });
    });
    const until = async (list: unknown[], n: number) => {
      for (let i = 0; i < 500 && list.length < n; i++) await new Promise((r) => setTimeout(r, 20));
    };
    const a = await s.client.tasks.create({ listName, subject: 'A' });
    const b = await s.client.tasks.create({ listName, subject: 'B', blockedBy: [a.id] });
    await until(events, 3);
    expect(events.map((e) => [e.id, e.data.kind, e.data.taskId])).toEqual([
      ['1', 'created', a.id],
      ['2', 'created', b.id],
      ['3', 'updated', a.id],
    ]);
    expect(events[2]?.data.task.blocks).toEqual([b.id]);
    sub?.unsubscribe();

    await s.client.tasks.update({ listName, id: a.id, status: 'completed' });
    const resumed: { id: string; data: TaskEvent }[] = [];
    const again = viewer.tasks.watch({ listName, lastEventId: '3' }, { onData: (e) => resumed.push(e) });
    await until(resumed, 1);
    await s.client.tasks.claim({ listName });
    await until(resumed, 2);
    expect(resumed.map((e) => [e.id, e.data.kind, e.data.taskId])).toEqual([
      ['4', 'updated', a.id],
      ['5', 'claimed', b.id],
    ]);
    expect(resumed[0]?.data.changes).toEqual({ status: { from: 'pending', to: 'completed' } });
    again.unsubscribe();
  });
});

describe('task tool definitions', () => {
  it('TaskCreate, TaskGet, TaskList, TaskUpdate answer text for a model, and refusals as Error: text', async () => {
    const s = await agentSession('tooling');
    const tools = Object.fromEntries(taskTools(s.client).map((t) => [t.name, t]));
    expect(Object.keys(tools)).toEqual(['TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate', 'TaskClaim', 'TaskPlan']);
    expect((tools.TaskCreate?.inputSchema as { required: string[] }).required).toEqual(['subject']);
    const listName = freshList();
    const created = await tools.TaskCreate?.handler({ listName, subject: 'Build frontend' });
    const id = created?.match(/^Created (T-\S+) \(#1\) \[pending\] Build frontend {2}blockedBy: \[\]$/)?.[1];
    expect(id).toBeDefined();
    expect(await tools.TaskList?.handler({ listName })).toBe('#1 [pending] Build frontend     blockedBy: []');
    expect(JSON.parse((await tools.TaskGet?.handler({ listName, id })) ?? '{}')).toMatchObject({ id, subject: 'Build frontend' });
    expect(await tools.TaskUpdate?.handler({ listName, id, status: 'completed' })).toBe(
      `Updated ${id} [completed] Build frontend (version 2)  blockedBy: []`,
    );
    expect(await tools.TaskUpdate?.handler({ listName, id, blockedBy: [id] })).toBe(
      `Error: invalid dependency: ${id} cannot depend on itself.`,
    );
    expect(await tools.TaskClaim?.handler({ listName })).toBe('No ready task to claim.');
    expect(await tools.TaskPlan?.handler({ listName })).toBe(`No remaining tasks in list "${listName}".`);
  });
});
