// Black-box tests of the dashboard's procedures over HTTP: the session tree and its live signal, task lists and
// graphs, the outbox (admin only), a run link's live feed without a key, and every admin procedure refused to viewers.
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledge, countRows, nameAndIntake, refused } from './support/fixtures.ts';
import { adminClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { startReceiver, waitFor } from './support/webhook-receiver.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    env: { AGENT_TASKS_RETRY_BASE_MS: '100', AGENT_TASKS_RETRY_MAX_MS: '200', AGENT_TASKS_OUTBOX_POLL_MS: '50' },
  });
});
afterAll(async () => {
  await server?.stop();
});

async function workspace(name: string) {
  const created = await adminClient(server).workspaces.create({ name });
  const admin = createClient({ url: server.url, token: created.adminKey });
  const agent = createClient({ url: server.url, token: (await admin.keys.create({ name: 'agent', role: 'agent' })).token });
  const viewer = createClient({ url: server.url, token: (await admin.keys.create({ name: 'viewer', role: 'viewer' })).token });
  return { id: created.workspace.id, admin, agent, viewer };
}

describe('session tree', () => {
  it('lists every session with subagents under their parent, counts and last activity; signals changes live', async () => {
    const ws = await workspace('tree');
    const signals: { sessionId: string; kind: string }[] = [];
    const feed = ws.viewer.trpc.dashboard.watchSessions.subscribe({}, { onData: ({ data }) => signals.push(data) });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const parent = await openSessionClient(ws.agent, { title: 'parent', agentName: 'lead' });
      const child = await openSessionClient(parent.client, { title: 'child' });
      const other = await openSessionClient(ws.agent, { title: 'other' });
      await child.client.todos.write({
        todos: [
          { content: 'a', status: 'in_progress' },
          { content: 'b', status: 'completed' },
        ],
      });
      await parent.client.sessions.startTurn();

      const tree = await ws.viewer.trpc.dashboard.sessionTree.query();
      expect(tree.sessions.map((n) => [n.session.title, n.depth, n.children, n.revision])).toEqual([
        ['parent', 0, 1, 0],
        ['child', 1, 0, 1],
        ['other', 0, 0, 0],
      ]);
      expect(tree.sessions[0]!.session.agentName).toBe('lead');
      expect(tree.sessions[1]!.counts).toEqual({ pending: 0, inProgress: 1, completed: 1 });
      const card = (await ws.viewer.todos.history({ sessionId: child.session.id, limit: 1 })).cards[0]!;
      expect(tree.sessions[1]!.lastActivityAt).toBe(card.createdAt);
      expect(tree.sessions[2]!.lastActivityAt).toBe(other.session.createdAt);

      await waitFor('five signals', () => signals.length >= 5 || null);
      expect(signals.map((s) => [s.sessionId, s.kind])).toEqual([
        [parent.session.id, 'opened'],
        [child.session.id, 'opened'],
        [other.session.id, 'opened'],
        [child.session.id, 'todo'],
        [parent.session.id, 'turn'],
      ]);
      // Another workspace's sessions neither show nor signal here.
      const elsewhere = await workspace('elsewhere');
      await openSessionClient(elsewhere.agent, { title: 'not here' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(signals).toHaveLength(5);
      expect((await ws.viewer.trpc.dashboard.sessionTree.query()).sessions).toHaveLength(3);
    } finally {
      feed.unsubscribe();
    }
  });
});

describe('task lists and graphs', () => {
  it("gives the lists with counts, and a list's whole graph with open blockers, readiness, waves and critical path", async () => {
    const ws = await workspace('graphs');
    const { client } = await openSessionClient(ws.agent, { title: 'planner' });
    const fe = await client.tasks.create({ subject: 'Build frontend' });
    const be = await client.tasks.create({ subject: 'Build backend' });
    const it2 = await client.tasks.create({ subject: 'Integrate', blockedBy: [fe.id, be.id] });
    await client.tasks.update({ id: fe.id, status: 'in_progress' });
    await client.tasks.update({ id: fe.id, status: 'completed' });
    await client.tasks.create({ listName: 'ops', subject: 'Rotate keys' });

    expect((await ws.viewer.trpc.dashboard.taskLists.query()).lists).toEqual([
      { name: 'default', createdAt: expect.any(String), counts: { pending: 2, inProgress: 0, completed: 1 } },
      { name: 'ops', createdAt: expect.any(String), counts: { pending: 1, inProgress: 0, completed: 0 } },
    ]);
    const graph = await ws.viewer.trpc.dashboard.taskGraph.query({});
    expect(graph.tasks.map((t) => [t.subject, t.status, t.ready, t.unresolvedBlockers, t.blockedBy])).toEqual([
      ['Build frontend', 'completed', false, [], []],
      ['Build backend', 'pending', true, [], []],
      ['Integrate', 'pending', false, [be.id], [fe.id, be.id]],
    ]);
    expect(graph.waves).toEqual([[be.id], [it2.id]]);
    expect(graph.criticalPath).toEqual([be.id, it2.id]);

    // Watching after lastChangeSeq brings exactly the changes made since.
    const events: string[] = [];
    const feed = ws.viewer.tasks.watch(
      { lastEventId: String(graph.lastChangeSeq) },
      { onData: ({ data }) => events.push(`${data.kind} ${data.task.subject}`) },
    );
    try {
      await client.tasks.update({ id: be.id, owner: 'backend-agent' });
      await waitFor('the change', () => events.length >= 1 || null);
      expect(events).toEqual(['updated Build backend']);
    } finally {
      feed.unsubscribe();
    }
    expect(await ws.viewer.trpc.dashboard.taskGraph.query({ listName: 'nothing-here' })).toEqual({
      listName: 'nothing-here',
      tasks: [],
      waves: [],
      criticalPath: [],
      lastChangeSeq: 0,
    });
  });
});

describe('outbox and run links', () => {
  it("shows an admin each notification's delivery state and last error; refuses viewers and agents", async () => {
    const ws = await workspace('outbox');
    const receiver = await startReceiver();
    receiver.respond = (_hook, index) => (index === 0 ? 503 : 200);
    try {
      await ws.admin.channels.create({ name: 'chat', url: receiver.url });
      const { client } = await openSessionClient(ws.agent, { title: 'runner' });
      const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none' });
      const run = await client.runs.execute({ startAttemptId });
      await nameAndIntake(client, {
        runId: run.id,
        name: 'Ship',
        progress_checklist_outcome: 'One',
        tasks: [{ action: 'a', expected_result: 'b' }],
      });

      const first = await waitFor('a failed attempt', async () => {
        const { messages } = await ws.admin.trpc.dashboard.outbox.query({});
        return messages[0]?.attempts === 1 && messages[0].state === 'retrying' ? messages[0] : null;
      });
      expect(first).toMatchObject({ runId: run.id, kind: 'checklist_ready', url: receiver.url, deliveredAt: null });
      expect(first.lastError).toContain('503');
      const delivered = await waitFor('the retry', async () => {
        const { messages } = await ws.admin.trpc.dashboard.outbox.query({ limit: 10 });
        return messages[0]?.state === 'delivered' ? messages[0] : null;
      });
      expect(delivered).toMatchObject({ attempts: 2, lastError: null, nextAttemptAt: null });

      for (const who of [ws.viewer, ws.agent]) {
        const refusal = await refused(who.trpc.dashboard.outbox.query({}));
        expect(refusal.code).toBe('FORBIDDEN');
      }
      expect((await refused(ws.viewer.trpc.dashboard.outbox.query({}))).message).toBe(
        'Error: forbidden: viewer keys are read-only (this key is viewer).',
      );
      expect((await refused(ws.agent.trpc.dashboard.outbox.query({}))).message).toBe(
        'Error: forbidden: this call needs an admin key (this key is agent).',
      );
    } finally {
      await receiver.down();
    }
  });

  it("streams a run's view by its link with no key at all, and names an unknown run", async () => {
    const ws = await workspace('link');
    const { client } = await openSessionClient(ws.agent, { title: 'runner' });
    const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
    const run = await client.runs.execute({ startAttemptId });
    await nameAndIntake(client, {
      runId: run.id,
      name: 'Ship',
      progress_checklist_outcome: 'Two',
      tasks: [
        { action: 'a', expected_result: 'b' },
        { action: 'c', expected_result: 'd' },
      ],
    });

    const anonymous = createClient({ url: server.url, token: '' });
    const labels: string[] = [];
    const feed = anonymous.trpc.dashboard.watchRunLink.subscribe(
      { runId: run.id },
      { onData: ({ data }) => labels.push(data.run.blocks.work.label) },
    );
    try {
      await waitFor('the current view', () => labels.length >= 1 || null);
      await acknowledge(client, run.id, { task: 1, evidence: 'e', progress_execution_outcome: 'o' });
      await waitFor('the step', () => labels.length >= 2 || null);
      expect(labels).toEqual(['Task 1/2', 'Task 2/2']);
    } finally {
      feed.unsubscribe();
    }
    const error = await new Promise<unknown>((resolve) => {
      const sub = anonymous.trpc.dashboard.watchRunLink.subscribe(
        { runId: 'run_missing' },
        { onError: (e) => (sub.unsubscribe(), resolve(e)), onData: () => resolve(null) },
      );
    });
    expect((error as Error).message).toBe('Error: run run_missing not found.');
  });
});

describe('admin procedures refuse viewer keys, and record nothing', () => {
  it('keys, channels, settings and the outbox', async () => {
    const ws = await workspace('refusals');
    const { key } = await ws.admin.keys.create({ name: 'target', role: 'agent' });
    const channel = await ws.admin.channels.create({ name: 'chat', url: 'http://127.0.0.1:9/x' });
    const forbidden = 'Error: forbidden: viewer keys are read-only (this key is viewer).';
    const keys = () => countRows(server, 'ApiKey', '"workspaceId" = ?', ws.id);
    const channels = () => countRows(server, 'NotificationChannel', '"workspaceId" = ?', ws.id);
    const before = {
      keys: await keys(),
      channels: await channels(),
      revoked: await countRows(server, 'ApiKey', '"revokedAt" IS NOT NULL AND "workspaceId" = ?', ws.id),
    };
    const calls = [
      () => ws.viewer.keys.create({ name: 'x', role: 'admin' }),
      () => ws.viewer.keys.list(),
      () => ws.viewer.keys.revoke({ id: key.id }),
      () => ws.viewer.channels.create({ name: 'x', url: 'https://example.com/hook' }),
      () => ws.viewer.channels.list(),
      () => ws.viewer.channels.delete({ id: channel.id }),
      () => ws.viewer.workspaces.updateSettings({ oneActiveRule: false }),
      () => ws.viewer.trpc.dashboard.outbox.query({}),
    ];
    for (const call of calls) {
      const refusal = await refused(call());
      expect(refusal.message).toBe(forbidden);
      expect(refusal.code).toBe('FORBIDDEN');
    }
    expect({
      keys: await keys(),
      channels: await channels(),
      revoked: await countRows(server, 'ApiKey', '"revokedAt" IS NOT NULL AND "workspaceId" = ?', ws.id),
    }).toEqual(before);
    expect((await ws.admin.workspaces.settings()).oneActiveRule).toBe(true);
  });
});
