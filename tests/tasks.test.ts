// Black-box tests of the task graph (seed 001) over HTTP: the seed's example, edges, deletion, filters, versions, history.
import { createClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, keyClient, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

let lists = 0;
const freshList = () => `list-${++lists}`;
const taskRows = () => countRows(server, 'Task');
const changeRows = () => countRows(server, 'TaskChange');

describe("the seed's example", () => {
  it('T-003 becomes ready exactly when T-001 and T-002 are completed', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const frontend = await s.client.tasks.create({ listName, subject: 'Build frontend' });
    const backend = await s.client.tasks.create({ listName, subject: 'Build backend' });
    const tests = await s.client.tasks.create({ listName, subject: 'Run integration tests', blockedBy: [frontend.id, backend.id] });
    expect(frontend.id).toMatch(/^T-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(tests).toMatchObject({ status: 'pending', blockedBy: [frontend.id, backend.id], blocks: [], threadID: s.session.id });

    const listed = await s.client.tasks.list({ listName });
    expect(listed.tasks.map((t) => [t.subject, t.status, t.blockedBy, t.ready])).toEqual([
      ['Build frontend', 'pending', [], true],
      ['Build backend', 'pending', [], true],
      ['Run integration tests', 'pending', [frontend.id, backend.id], false],
    ]);

    const blocked = await refused(s.client.tasks.update({ listName, id: tests.id, status: 'in_progress' }));
    expect(blocked.message).toBe(
      `Error: task ${tests.id} is blocked by ${frontend.id}, ${backend.id}; it cannot be started until they are completed.`,
    );
    expect(blocked.code).toBe('TASK_BLOCKED');

    await s.client.tasks.update({ listName, id: frontend.id, status: 'completed' });
    let ready = await s.client.tasks.list({ listName, readyOnly: true });
    expect(ready.tasks.map((t) => t.id)).toEqual([backend.id]);
    const stillBlocked = await refused(s.client.tasks.update({ listName, id: tests.id, status: 'completed' }));
    expect(stillBlocked.message).toBe(`Error: task ${tests.id} is blocked by ${backend.id}; it cannot be completed until it is completed.`);

    await s.client.tasks.update({ listName, id: backend.id, status: 'completed' });
    ready = await s.client.tasks.list({ listName, readyOnly: true });
    expect(ready.tasks.map((t) => t.id)).toEqual([tests.id]);
    expect((await s.client.tasks.update({ listName, id: tests.id, status: 'in_progress' })).status).toBe('in_progress');
  });
});

describe('dependencies', () => {
  it('blocks and blockedBy mirror each other; updates add and remove edges', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const a = await s.client.tasks.create({ listName, subject: 'A' });
    const b = await s.client.tasks.create({ listName, subject: 'B', blockedBy: [a.id] });
    const c = await s.client.tasks.create({ listName, subject: 'C' });
    expect((await s.client.tasks.get({ listName, id: a.id })).blocks).toEqual([b.id]);

    await s.client.tasks.update({ listName, id: c.id, addBlocks: [b.id] });
    expect((await s.client.tasks.get({ listName, id: b.id })).blockedBy).toEqual([a.id, c.id]);
    expect((await s.client.tasks.get({ listName, id: c.id })).blocks).toEqual([b.id]);

    await s.client.tasks.update({ listName, id: b.id, removeBlockedBy: [a.id] });
    expect((await s.client.tasks.get({ listName, id: a.id })).blocks).toEqual([]);
    expect((await s.client.tasks.get({ listName, id: b.id })).blockedBy).toEqual([c.id]);
  });

  it('refuses a self-dependency, an unknown task and a cycle, naming it; nothing is recorded', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const a = await s.client.tasks.create({ listName, subject: 'A' });
    const b = await s.client.tasks.create({ listName, subject: 'B', blockedBy: [a.id] });
    const c = await s.client.tasks.create({ listName, subject: 'C', blockedBy: [b.id] });
    const before = { tasks: await taskRows(), changes: await changeRows(), a: await s.client.tasks.get({ listName, id: a.id }) };

    const self = await refused(s.client.tasks.update({ listName, id: a.id, addBlockedBy: [a.id] }));
    expect(self.message).toBe(`Error: invalid dependency: ${a.id} cannot depend on itself.`);
    const unknown = await refused(s.client.tasks.update({ listName, id: a.id, addBlockedBy: ['T-0000'] }));
    expect(unknown.message).toBe(`Error: invalid dependency: task T-0000 not found in list "${listName}".`);
    const cycle = await refused(s.client.tasks.update({ listName, id: a.id, addBlockedBy: [c.id] }));
    expect(cycle.message).toBe(`Error: invalid dependency: it would close a cycle ${a.id} → ${b.id} → ${c.id} → ${a.id}.`);
    expect(cycle.code).toBe('INVALID_DEPENDENCY');
    const direct = await refused(s.client.tasks.update({ listName, id: a.id, addBlockedBy: [b.id], subject: 'A renamed' }));
    expect(direct.message).toBe(`Error: invalid dependency: it would close a cycle ${a.id} → ${b.id} → ${a.id}.`);

    expect(await s.client.tasks.get({ listName, id: a.id })).toEqual(before.a);
    expect(await taskRows()).toBe(before.tasks);
    expect(await changeRows()).toBe(before.changes);
    const createCycle = await refused(s.client.tasks.create({ listName, subject: 'D', blockedBy: [c.id], blocks: [a.id] }));
    expect(createCycle.message).toMatch(/^Error: invalid dependency: it would close a cycle /);
    expect(await taskRows()).toBe(before.tasks);
  });

  it('deleting a task removes it from lists and edges; dependants may become ready; its record and history stay', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const a = await s.client.tasks.create({ listName, subject: 'Obsolete step' });
    const b = await s.client.tasks.create({ listName, subject: 'Next step', blockedBy: [a.id] });
    await s.client.tasks.update({ listName, id: a.id, status: 'deleted' });
    expect((await s.client.tasks.list({ listName })).tasks.map((t) => t.id)).toEqual([b.id]);
    expect((await s.client.tasks.get({ listName, id: b.id })).blockedBy).toEqual([]);
    expect((await s.client.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.id)).toEqual([b.id]);
    const gone = await s.client.tasks.get({ listName, id: a.id });
    expect(gone).toMatchObject({ status: 'deleted', blocks: [], subject: 'Obsolete step' });
    const history = (await s.client.tasks.history({ listName, id: a.id })).changes;
    expect(history.map((c) => c.kind)).toEqual(['created', 'updated', 'deleted']);
    expect(history[1]?.changes).toEqual({ blocks: { from: [], to: [b.id] } });
    expect(history[2]?.changes).toEqual({ status: { from: 'pending', to: 'deleted' }, blocks: { from: [b.id], to: [] } });
    expect((await s.client.tasks.history({ listName, id: b.id })).changes.at(-1)?.changes).toEqual({ blockedBy: { from: [a.id], to: [] } });
    const again = await refused(s.client.tasks.update({ listName, id: a.id, status: 'pending' }));
    expect(again.message).toBe(`Error: task ${a.id} is deleted; it can no longer change.`);
    expect((await s.client.tasks.list({ listName, status: ['deleted'] })).tasks.map((t) => t.id)).toEqual([a.id]);
  });
});

describe('fields, filters, versions and history', () => {
  it('merges metadata; a key set to null is removed', async () => {
    const s = await sessionClient(server);
    const t = await s.client.tasks.create({ subject: 'Tag me', metadata: { area: 'ui', points: 3 } });
    const u = await s.client.tasks.update({ id: t.id, metadata: { points: null, reviewer: 'ana' } });
    expect(u.metadata).toEqual({ area: 'ui', reviewer: 'ana' });
  });

  it('lists active tasks by default; filters by status and owner; completed on request', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const a = await s.client.tasks.create({ listName, subject: 'A', owner: 'ana' });
    const b = await s.client.tasks.create({ listName, subject: 'B' });
    await s.client.tasks.update({ listName, id: b.id, status: 'completed' });
    expect((await s.client.tasks.list({ listName })).tasks.map((t) => t.id)).toEqual([a.id]);
    expect((await s.client.tasks.list({ listName, includeCompleted: true })).tasks.map((t) => t.id)).toEqual([a.id, b.id]);
    expect((await s.client.tasks.list({ listName, status: ['completed'] })).tasks.map((t) => t.id)).toEqual([b.id]);
    expect((await s.client.tasks.list({ listName, owner: 'ana' })).tasks.map((t) => t.id)).toEqual([a.id]);
    // Owned by someone else: not ready for this caller.
    expect((await s.client.tasks.list({ listName, readyOnly: true })).tasks).toEqual([]);
  });

  it('refuses a stale expectedVersion with the current task, and records nothing', async () => {
    const s = await sessionClient(server);
    const t = await s.client.tasks.create({ subject: 'Versioned' });
    const v2 = await s.client.tasks.update({ id: t.id, expectedVersion: 1, description: 'first edit' });
    expect(v2.version).toBe(2);
    const changes = await changeRows();
    const stale = await refused(s.client.tasks.update({ id: t.id, expectedVersion: 1, description: 'lost edit' }));
    expect(stale.message).toBe(`Error: stale version: task ${t.id} was read at version 1 but is now at version 2; read it again.`);
    expect(stale.code).toBe('STALE_VERSION');
    expect((stale.details?.current as { description: string }).description).toBe('first edit');
    expect(await changeRows()).toBe(changes);
  });

  it('records every change: who, when, which fields from what to what', async () => {
    const s = await sessionClient(server);
    const t = await s.client.tasks.create({ subject: 'Audit me' });
    await s.client.tasks.update({ id: t.id, subject: 'Audit me twice', status: 'in_progress', activeForm: 'Auditing' });
    const { changes } = await s.client.tasks.history({ id: t.id });
    expect(changes).toHaveLength(2);
    expect(changes[1]).toMatchObject({
      kind: 'updated',
      by: { sessionId: s.session.id },
      changes: {
        subject: { from: 'Audit me', to: 'Audit me twice' },
        status: { from: 'pending', to: 'in_progress' },
        activeForm: { from: null, to: 'Auditing' },
      },
    });
    expect(Date.parse(changes[1]?.at ?? '')).toBeGreaterThan(0);
  });

  it('refuses bad input with clear errors, recording nothing', async () => {
    const s = await sessionClient(server);
    const before = await taskRows();
    expect((await refused(s.client.tasks.create({ subject: '  ' }))).message).toBe(
      'Error: invalid task: `subject` must be a non-empty string.',
    );
    expect((await refused(s.client.tasks.create({ subject: 'x', threadID: 'ses_x' } as never))).message).toBe(
      'Error: invalid input: `threadID` is set from the session that creates the task; leave it out.',
    );
    expect((await refused(s.client.tasks.create({ subject: 'x', metadata: [] as never }))).message).toBe(
      'Error: invalid task: `metadata` must be a JSON object.',
    );
    expect((await refused(s.client.tasks.update({ id: 'nope' }))).message).toBe(
      'Error: invalid input: `id`: "nope" is not a task id (T-… or #n).',
    );
    expect((await refused(s.client.tasks.update({ id: 'T-1', status: 'done' as never }))).message).toBe(
      'Error: invalid task: `status` must be one of pending, in_progress, completed, deleted (got "done").',
    );
    expect((await refused(s.client.tasks.get({ id: 'T-missing' }))).message).toBe('Error: task T-missing not found in list "default".');
    expect(await taskRows()).toBe(before);
  });

  it('needs an owning session to create; viewers never write', async () => {
    const agent = await keyClient(server, 'agent');
    expect((await refused(agent.tasks.create({ subject: 'x' }))).message).toBe(
      'Error: TaskCreate requires an owning agent session before anything is written.',
    );
    const viewer = await keyClient(server, 'viewer');
    expect((await refused(viewer.tasks.create({ subject: 'x' }))).code).toBe('FORBIDDEN');
  });
});

describe('sharing, isolation and restart', () => {
  it('tasks persist across a restart, and sessions opened later see them; other workspaces never do', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const t = await s.client.tasks.create({ listName, subject: 'Survive restart' });
    await server.restart();
    const later = await sessionClient(server);
    expect((await later.client.tasks.get({ listName, id: t.id })).subject).toBe('Survive restart');

    const { adminKey } = await adminClient(server).workspaces.create({ name: 'other' });
    const outsider = createClient({ url: server.url, token: adminKey });
    // In another workspace the list does not exist, and no name of this workspace is offered as a near one.
    const missing = `Error: task list "${listName}" does not exist; this workspace has no task lists yet (TaskCreate starts one).`;
    expect((await refused(outsider.tasks.list({ listName }))).message).toBe(missing);
    expect((await refused(outsider.tasks.get({ listName, id: t.id }))).message).toBe(missing);
  });
});

describe('large lists', () => {
  it('lists 1,000 active tasks, and deletes a task that blocks 600 others in one update', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const files = Array.from({ length: 1000 }, (_, i) => ({
      name: `${i + 1}.json`,
      content: JSON.stringify({
        id: String(i + 1),
        subject: `Step ${i + 1}`,
        status: 'pending',
        blockedBy: i > 0 && i <= 600 ? ['1'] : [],
      }),
    }));
    const imported = await s.client.tasks.import({ listName, format: 'claude', files });
    expect(imported.imported).toBe(1000);
    expect((await s.client.tasks.list({ listName })).tasks).toHaveLength(1000);
    expect((await s.client.tasks.list({ listName, readyOnly: true })).tasks).toHaveLength(400);

    const hub = imported.ids['1'] ?? '';
    expect((await s.client.tasks.get({ listName, id: hub })).blocks).toHaveLength(600);
    await s.client.tasks.update({ listName, id: hub, status: 'deleted' });
    expect((await s.client.tasks.list({ listName, readyOnly: true })).tasks).toHaveLength(999);
    expect((await s.client.tasks.plan({ listName })).waves).toHaveLength(1);
  });
});

describe('readiness follows every change', () => {
  it('reopening a blocker, removing an edge, and adding one to a completed blocker each update who is ready', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const ready = async () => (await s.client.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.subject);
    const a = await s.client.tasks.create({ listName, subject: 'A' });
    const b = await s.client.tasks.create({ listName, subject: 'B', blockedBy: [a.id] });
    expect(await ready()).toEqual(['A']);
    await s.client.tasks.update({ listName, id: a.id, status: 'completed' });
    expect(await ready()).toEqual(['B']);
    await s.client.tasks.update({ listName, id: a.id, status: 'pending' });
    expect(await ready()).toEqual(['A']);
    await s.client.tasks.update({ listName, id: b.id, removeBlockedBy: [a.id] });
    expect(await ready()).toEqual(['A', 'B']);
    const c = await s.client.tasks.create({ listName, subject: 'C' });
    await s.client.tasks.update({ listName, id: c.id, status: 'completed' });
    await s.client.tasks.update({ listName, id: b.id, addBlockedBy: [c.id] });
    expect(await ready()).toEqual(['A', 'B']);
    await s.client.tasks.update({ listName, id: b.id, addBlockedBy: [a.id] });
    expect(await ready()).toEqual(['A']);
    expect((await s.client.tasks.claim({ listName })).task?.subject).toBe('A');
  });
});
