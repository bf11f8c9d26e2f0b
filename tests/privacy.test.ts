// Black-box tests of what is private: a session's list is read only by itself, the sessions above it, the agent key
// that opened its tree, and viewer or admin keys (nothing is shared between chats, seed 000), in every read, list,
// tree and live signal; and run links an admin can revoke (page, card and live view refused, an open view ended).
import { type AgentTasksClient, createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, nameAndIntake, refused } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';
import { guardMs } from './support/time-guard.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

async function newKey(role: 'admin' | 'agent' | 'viewer', on: AgentTasksClient = adminClient(server)) {
  return createClient({ url: server.url, token: (await on.keys.create({ name: `${role} key`, role })).token });
}

describe("a session's list is private to its own chat", () => {
  it('only itself, the sessions above it, its opening key and viewer/admin keys read it; others are told it does not exist', async () => {
    const keyA = await newKey('agent');
    const keyB = await newKey('agent');
    const viewer = await newKey('viewer');
    const admin = adminClient(server);
    const a = await openSessionClient(keyA, { title: 'chat A' });
    const a1 = await openSessionClient(a.client, { title: 'subagent of A' });
    const a11 = await openSessionClient(a1.client, { title: 'subagent of the subagent' });
    const b = await openSessionClient(keyB, { title: 'chat B' });
    for (const s of [a, a1, a11, b])
      await s.client.todos.write({ todos: [{ content: `Private to ${s.session.title}`, status: 'pending' }] });

    const readers = { a: a.client, a1: a1.client, a11: a11.client, b: b.client, keyA, keyB, viewer, admin };
    const expected: Record<keyof typeof readers, string[]> = {
      a: ['a', 'a1', 'a11'],
      a1: ['a1', 'a11'],
      a11: ['a11'],
      b: ['b'],
      keyA: ['a', 'a1', 'a11'],
      keyB: ['b'],
      viewer: ['a', 'a1', 'a11', 'b'],
      admin: ['a', 'a1', 'a11', 'b'],
    };
    const targets = { a, a1, a11, b };
    for (const [who, client] of Object.entries(readers) as [keyof typeof readers, AgentTasksClient][]) {
      for (const [name, target] of Object.entries(targets)) {
        const sessionId = target.session.id;
        const reads = [
          () => client.todos.get({ sessionId }),
          () => client.todos.history({ sessionId }),
          () => client.todos.card({ sessionId }),
          () => client.sessions.get({ sessionId }),
        ];
        for (const read of reads) {
          if (expected[who].includes(name)) expect((await read()) as unknown, `${who} reads ${name}`).toBeTruthy();
          else
            expect(await refused(read()), `${who} reads ${name}`).toMatchObject({
              code: 'NOT_FOUND',
              message: `Error: session ${sessionId} not found.`,
            });
        }
      }
      // Lists and the tree show exactly the readable sessions (the workspace's other sessions, from other tests, aside).
      const mine = new Set(Object.values(targets).map((t) => t.session.id));
      const nameOf = (id: string) => Object.entries(targets).find(([, t]) => t.session.id === id)?.[0];
      const listed = (await client.sessions.list()).sessions
        .map((s) => s.id)
        .filter((id) => mine.has(id))
        .map(nameOf);
      expect(listed.sort(), `${who} lists`).toEqual([...expected[who]].sort());
      const tree = (await client.trpc.dashboard.sessionTree.query()).sessions
        .map((n) => n.session.id)
        .filter((id) => mine.has(id))
        .map(nameOf);
      expect(tree.sort(), `${who}'s tree`).toEqual([...expected[who]].sort());
    }
  });

  it("a live feed of another chat's list is refused; the sessions signal tells only readable sessions", async () => {
    const a = await openSessionClient(await newKey('agent'), { title: 'watched' });
    const b = await openSessionClient(await newKey('agent'), { title: 'watcher' });
    const error = await new Promise<unknown>((resolve) => {
      const sub = b.client.todos.watch(
        { sessionId: a.session.id },
        { onData: () => resolve(null), onError: (e) => (sub.unsubscribe(), resolve(e)) },
      );
    });
    expect((error as Error).message).toBe(`Error: session ${a.session.id} not found.`);

    const signals: string[] = [];
    const feed = b.client.trpc.dashboard.watchSessions.subscribe({}, { onData: ({ data }) => signals.push(data.sessionId) });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await a.client.todos.write({ todos: [{ content: 'Not for B', status: 'pending' }] });
      await b.client.todos.write({ todos: [{ content: 'For B', status: 'pending' }] });
      await waitFor("B's own signal", () => signals.includes(b.session.id));
      expect(signals).not.toContain(a.session.id);
    } finally {
      feed.unsubscribe();
    }
  });
});

describe('run links an admin can revoke', () => {
  it('a revoked link answers 404 (page, card, live view), ends a live view already open; restored, it works again', async () => {
    const admin = adminClient(server);
    const { client } = await openSessionClient(await newKey('agent'), { title: 'linked run' });
    const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
    const run = await client.runs.execute({ startAttemptId });
    await nameAndIntake(client, {
      runId: run.id,
      name: 'Shared',
      progress_checklist_outcome: 'One',
      tasks: [{ action: 'a', expected_result: 'b' }],
    });
    const link = `${server.url}/runs/${run.id}`;
    expect((await fetch(link)).status).toBe(200);

    const anonymous = createClient({ url: server.url, token: '' });
    let ended = false;
    const feed = anonymous.trpc.dashboard.watchRunLink.subscribe(
      { runId: run.id },
      { onComplete: () => (ended = true), onError: () => (ended = true), onData: () => undefined },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Only an admin of the run's workspace revokes it; nothing changes otherwise.
    for (const who of [client, await newKey('viewer'), await newKey('agent')]) {
      expect(await refused(who.trpc.runs.revokeLink.mutate({ runId: run.id }))).toMatchObject({ code: 'FORBIDDEN' });
    }
    const other = createClient({ url: server.url, token: (await admin.workspaces.create({ name: 'elsewhere' })).adminKey });
    expect(await refused(other.trpc.runs.revokeLink.mutate({ runId: run.id }))).toMatchObject({
      code: 'NOT_FOUND',
      message: `Error: run ${run.id} not found.`,
    });
    expect((await fetch(link)).status).toBe(200);
    expect(await countRows(server, 'Run', '"linkRevokedAt" IS NOT NULL')).toBe(0);

    const revokedAt = Date.now();
    expect(await admin.trpc.runs.revokeLink.mutate({ runId: run.id })).toEqual({ runId: run.id, linkEnabled: false });
    await waitFor('the open live view ended', () => ended, guardMs(1_000));
    expect(Date.now() - revokedAt).toBeLessThan(guardMs(1_000));
    feed.unsubscribe();
    for (const url of [link, `${link}/card.svg`]) {
      const res = await fetch(url);
      expect(res.status, url).toBe(404);
      expect(await res.json()).toEqual({ error: 'Error: run not found.' });
    }
    const refusedView = await new Promise<unknown>((resolve) => {
      const sub = anonymous.trpc.dashboard.watchRunLink.subscribe(
        { runId: run.id },
        { onError: (e) => (sub.unsubscribe(), resolve(e)), onData: () => resolve(null) },
      );
    });
    expect((refusedView as Error).message).toBe(`Error: run ${run.id} not found.`);
    // The run itself is untouched for its workspace.
    expect((await client.runs.get({ runId: run.id })).id).toBe(run.id);

    expect(await admin.trpc.runs.restoreLink.mutate({ runId: run.id })).toEqual({ runId: run.id, linkEnabled: true });
    expect((await fetch(link)).status).toBe(200);
    expect((await fetch(`${link}/card.svg`)).status).toBe(200);
  });
});
