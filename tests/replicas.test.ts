// Black-box tests of two server processes (replicas A and B) on one PostgreSQL database, any replica answering any
// request: live feeds across them (LISTEN/NOTIFY), claims, compare-and-set writes and exactly-once steps, MCP sessions,
// a notification delivered once, and kill -9 of A under load losing no acknowledged write while B keeps serving.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type AgentTasksClient, type Subscription, createClient, openSessionClient } from '@agent-tasks/sdk';
import type { TodoCard } from '@agent-tasks/schema';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, nameAndIntake, refused } from './support/fixtures.ts';
import { createTestDatabase, stopTestPostgres } from './support/postgres.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { type WebhookReceiver, startReceiver, waitFor } from './support/webhook-receiver.ts';
import { guardMs } from './support/time-guard.ts';

/** Delivery polled every 50 ms by both replicas; at most 3 MCP sessions per key, counted across both. */
const ENV = { AGENT_TASKS_OUTBOX_POLL_MS: '50', AGENT_TASKS_RETRY_BASE_MS: '100', AGENT_TASKS_MCP_SESSIONS_PER_KEY: '3' };
const STALE =
  'Error: stale revision: this update was based on revision 1, but the list is at revision 2; read the list again and send the whole list.';

let a: RunningServer;
let b: RunningServer;
let receiver: WebhookReceiver | undefined;
beforeAll(async () => {
  a = await startServer({ postgres: true, env: ENV });
  b = await startServer({ databaseUrl: a.databaseUrl, adminKey: a.adminKey, env: ENV });
});
afterAll(async () => {
  await receiver?.down();
  await Promise.all([a?.stop(), b?.stop()]);
  await stopTestPostgres();
});

async function query<T>(sql: string, params: unknown[] = [], databaseUrl = a.databaseUrl): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
const count = async (sql: string, params: unknown[] = []) => Number((await query<{ n: string }>(sql, params))[0]?.n);

/** An agent key's token on the shared database, and clients for it on A and on B. */
async function agentKey() {
  const { token } = await adminClient(a).keys.create({ name: 'replica agent', role: 'agent' });
  return { token, onA: createClient({ url: a.url, token }), onB: createClient({ url: b.url, token }) };
}

/** A todo feed on `client`, with the time each event arrived. */
function watchTodo(client: AgentTasksClient, input: { sessionId: string; lastEventId?: string }) {
  const events: { id: string; data: TodoCard; at: number }[] = [];
  let sub: Subscription | undefined;
  const started = new Promise<void>((resolve) => {
    sub = client.todos.watch(input, { onData: (e) => events.push({ ...e, at: performance.now() }), onStarted: resolve });
  });
  const until = (n: number) => waitFor(`${n} events`, () => (events.length >= n ? events : null), 10_000, 2);
  return { events, started, until, stop: () => sub?.unsubscribe() };
}

describe('replicas started together on an empty database', () => {
  it('make one first workspace between them', async () => {
    const empty = await createTestDatabase();
    const keys = [`atk_first_${randomBytes(16).toString('hex')}`, `atk_second_${randomBytes(16).toString('hex')}`];
    const both = await Promise.all(keys.map((adminKey) => startServer({ databaseUrl: empty.url, adminKey })));
    try {
      const workspaces = await query<{ n: string }>('SELECT COUNT(*) AS n FROM "Workspace"', [], empty.url);
      expect(Number(workspaces[0]?.n)).toBe(1);
      expect(both.filter((s) => /First run: created workspace/.test(s.output()))).toHaveLength(1);
      // The winner's admin key works on either replica.
      const winner = keys[both.findIndex((s) => /First run: created workspace/.test(s.output()))]!;
      for (const s of both) expect(await createClient({ url: s.url, token: winner }).workspaces.whoami()).toMatchObject({ role: 'admin' });
    } finally {
      await Promise.all(both.map((s) => s.stop()));
      await empty.drop();
    }
  });
});

describe('live feeds across replicas (LISTEN/NOTIFY)', () => {
  it('a write on A reaches a live subscriber on B within 200 ms, a card over 8 KB too, and B resumes by last event id', async () => {
    const key = await agentKey();
    const { client: onA, session } = await openSessionClient(key.onA, { title: 'live across replicas' });
    await onA.todos.write({ todos: [{ content: 'Warm-up (the first write of a fresh server is not timed)', status: 'pending' }] });
    const feed = watchTodo(key.onB, { sessionId: session.id });
    await feed.started;
    // From the moment A acknowledged the write (committed) until B's subscriber has it; and from when it was sent.
    const afterAck: number[] = [];
    const afterSend: number[] = [];
    for (let i = 1; i <= 10; i++) {
      const sent = performance.now();
      await onA.todos.write({ todos: [{ content: `Step ${i}`, status: 'in_progress' }] });
      const acknowledged = performance.now();
      const [event] = (await feed.until(i)).slice(i - 1);
      expect(event?.id).toBe(String(i + 1));
      afterAck.push((event?.at ?? Infinity) - acknowledged);
      afterSend.push((event?.at ?? Infinity) - sent);
    }
    expect(Math.max(...afterAck)).toBeLessThan(guardMs(200));
    expect(afterSend.sort((x, y) => x - y)[5]).toBeLessThan(guardMs(200));

    // 100 items of 1,000 characters: far past NOTIFY's 8,000-byte payload; B reads it from the table.
    const big = Array.from({ length: 100 }, (_, i) => ({ content: `${i}`.padEnd(1_000, 'x'), status: 'pending' as const }));
    await onA.todos.write({ todos: big });
    const [bigEvent] = (await feed.until(11)).slice(10);
    expect(bigEvent?.id).toBe('12');
    expect(bigEvent?.data.items).toEqual(big);
    feed.stop();

    // Missed while away, written on A; resumed on B after event 12.
    await onA.todos.write({ todos: [{ content: 'Missed 1', status: 'pending' }] });
    await onA.todos.write({ todos: [{ content: 'Missed 2', status: 'pending' }] });
    const resumed = watchTodo(key.onB, { sessionId: session.id, lastEventId: '12' });
    await resumed.until(2);
    // Quotes, backslashes and characters past ASCII reach B as they were written (read from the table).
    const live = 'Live "again": C:\\temp\\new, {"a": [1, "\\u0041"]}, naïve ✓ 😀';
    await onA.todos.write({ todos: [{ content: live, status: 'pending' }] });
    expect((await resumed.until(3)).map((e) => [e.id, e.data.items[0]?.content])).toEqual([
      ['13', 'Missed 1'],
      ['14', 'Missed 2'],
      ['15', live],
    ]);
    resumed.stop();
  });

  it("tells the other replicas of a recorded event by its id alone (they read it from its table), a signal's data with it", async () => {
    const listener = new pg.Client({ connectionString: a.databaseUrl });
    await listener.connect();
    const heard: { topic: string; id: string; data?: unknown }[] = [];
    listener.on('notification', (n) => heard.push(JSON.parse(n.payload ?? '{}') as (typeof heard)[number]));
    try {
      await listener.query('LISTEN agent_tasks_live');
      const key = await agentKey();
      const { client: onA, session } = await openSessionClient(key.onA, { title: 'notices' });
      await onA.todos.write({ todos: [{ content: 'A card (recorded: read from its table)', status: 'pending' }] });
      const card = await waitFor("the card's notice", () => heard.find((n) => n.topic === `todo:${session.id}`), 5_000);
      expect(card).toEqual({ from: expect.any(String), topic: `todo:${session.id}`, id: expect.stringMatching(/^\d+$/) });
      // The session's activity is a signal, recorded nowhere: its data is in the notice.
      const signal = await waitFor(
        'an activity notice',
        () =>
          heard.find((n) => n.topic.startsWith('sessions:') && (n.data as { sessionId?: string } | undefined)?.sessionId === session.id),
        5_000,
      );
      expect(signal.data).toMatchObject({ sessionId: session.id, kind: expect.any(String) });
    } finally {
      await listener.end();
    }
  });

  it('a replica whose LISTEN connection was cut listens again, and its feeds catch up with what was sent meanwhile', async () => {
    const key = await agentKey();
    const { client: onA, session } = await openSessionClient(key.onA, { title: 'cut' });
    const feed = watchTodo(key.onB, { sessionId: session.id });
    await feed.started;
    const cut = await query<{ pid: number }>(
      `SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE query = 'LISTEN agent_tasks_live' AND datname = current_database()`,
    );
    expect(cut).toHaveLength(2);
    // Written while no replica listens (they reconnect after 500 ms): B's feed reads it once B listens again.
    await onA.todos.write({ todos: [{ content: 'During the cut', status: 'pending' }] });
    expect((await feed.until(1)).map((e) => e.data.items[0]?.content)).toEqual(['During the cut']);
    await waitFor('both replicas listening again', async () => {
      const listening = await query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN agent_tasks_live' AND datname = current_database()`,
      );
      return listening.length === 2 && listening.every((l) => !cut.some((c) => c.pid === l.pid)) ? listening : null;
    });
    await onA.todos.write({ todos: [{ content: 'After the cut', status: 'pending' }] });
    expect((await feed.until(2)).map((e) => e.data.items[0]?.content)).toEqual(['During the cut', 'After the cut']);
    feed.stop();
  });

  it('a key revoked on A ends its live stream on B', async () => {
    const { token, key: revoked } = await adminClient(a).keys.create({ name: 'to revoke', role: 'viewer' });
    const viewer = createClient({ url: b.url, token });
    const key = await agentKey();
    const { session } = await openSessionClient(key.onA, { title: 'watched' });
    let ended: unknown;
    await new Promise<void>((resolve) => {
      viewer.todos.watch(
        { sessionId: session.id },
        { onData: () => undefined, onStarted: resolve, onError: (e) => (ended = e), onComplete: () => (ended = 'complete') },
      );
    });
    await adminClient(a).keys.revoke({ id: revoked.id });
    await waitFor('the stream on B to end', () => ended, 5_000);
  });

  it('a key revoked while B was not listening still ends its live stream on B, once B listens again', async () => {
    const { token, key: revoked } = await adminClient(a).keys.create({ name: 'revoked in the cut', role: 'viewer' });
    const viewer = createClient({ url: b.url, token });
    const key = await agentKey();
    const { session } = await openSessionClient(key.onA, { title: 'watched through a cut' });
    let ended: unknown;
    await new Promise<void>((resolve) => {
      viewer.todos.watch(
        { sessionId: session.id },
        { onData: () => undefined, onStarted: resolve, onError: (e) => (ended = e), onComplete: () => (ended = 'complete') },
      );
    });
    const cut = await query<{ pid: number }>(
      `SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE query = 'LISTEN agent_tasks_live' AND datname = current_database()`,
    );
    expect(cut).toHaveLength(2);
    // Revoked while no replica listens (they reconnect after 500 ms): nobody hears the notice; B looks at the key again.
    await adminClient(a).keys.revoke({ id: revoked.id });
    await waitFor('the stream on B to end', () => ended, 5_000);
    await expect(viewer.todos.get({ sessionId: session.id })).rejects.toThrow();
  });
});

describe('writes across replicas', () => {
  it('20 agents claiming through A and B never share a task', async () => {
    const listName = `replica-claims-${Date.now()}`;
    const lead = await openSessionClient((await agentKey()).onA, { agentName: 'lead' });
    for (let i = 0; i < 12; i++) await lead.client.tasks.create({ listName, subject: `Task ${i}` });
    const agents = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const key = await agentKey();
        return openSessionClient(i % 2 === 0 ? key.onA : key.onB, { agentName: `agent-${i}` });
      }),
    );
    const results = await Promise.all(agents.map((agent) => agent.client.tasks.claim({ listName })));
    const won = results.map((r) => r.task).filter((t) => t !== null);
    expect(won).toHaveLength(12);
    expect(new Set(won.map((t) => t.id)).size).toBe(12);
    expect(new Set(won.map((t) => t.owner)).size).toBe(12);
    const owners = await query<{ owner: string }>(
      `SELECT t.owner FROM "Task" t JOIN "TaskList" l ON l.id = t."listId" WHERE l.name = $1 AND t.status = 'in_progress'`,
      [listName],
    );
    expect(owners.map((o) => o.owner).sort()).toEqual(won.map((t) => t.owner).sort());
  });

  it('agents creating the first tasks of a new list through A and B at once all land in one list', async () => {
    const key = await agentKey();
    const { token } = await openSessionClient(key.onA, { title: 'new lists' });
    const clients = Array.from({ length: 10 }, (_, i) => createClient({ url: i % 2 === 0 ? a.url : b.url, token }));
    for (let round = 0; round < 5; round++) {
      const listName = `replica-new-list-${Date.now()}-${round}`;
      const created = await Promise.all(clients.map((c, i) => c.tasks.create({ listName, subject: `First ${i}` })));
      expect(new Set(created.map((t) => t.id)).size).toBe(10);
      const seqs = await query<{ seq: number }>(
        'SELECT t.seq FROM "Task" t JOIN "TaskList" l ON l.id = t."listId" WHERE l.name = $1 ORDER BY t.seq',
        [listName],
      );
      expect(seqs.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await count('SELECT COUNT(*) AS n FROM "TaskList" WHERE name = $1', [listName])).toBe(1);
    }
    // Imports of one Claude Code folder into one new list, through both at once: each answers, all in one list, and
    // the folder's tasks are there once (an import of the same folder again updates them in place).
    const file = (id: string) => ({
      name: `${id}.json`,
      content: JSON.stringify({ id, subject: `Imported ${id}`, status: 'pending', blocks: [], blockedBy: [] }),
    });
    for (let round = 0; round < 3; round++) {
      const listName = `replica-import-${Date.now()}-${round}`;
      const imported = await Promise.all(clients.map((c) => c.tasks.import({ listName, format: 'claude', files: [file('1'), file('2')] })));
      expect(imported.map((r) => r.imported)).toEqual(Array.from({ length: 10 }, () => 2));
      expect(await count('SELECT COUNT(*) AS n FROM "TaskList" WHERE name = $1', [listName])).toBe(1);
      expect((await clients[1]!.tasks.list({ listName })).tasks.map((t) => t.subject).sort()).toEqual(['Imported 1', 'Imported 2']);
    }
  });

  it('20 racing writers on one base revision across both: exactly one wins, the rest recorded nothing', async () => {
    const key = await agentKey();
    const { client, session, token } = await openSessionClient(key.onA, { title: 'race' });
    await client.todos.write({ todos: [{ content: 'Start', status: 'pending' }] });
    const writers = Array.from({ length: 20 }, (_, i) => createClient({ url: i % 2 === 0 ? a.url : b.url, token }));
    const results = await Promise.allSettled(
      writers.map((w, i) => w.todos.write({ todos: [{ content: `Writer ${i}`, status: 'in_progress' }], baseRevision: 1 })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const lost of results.filter((r) => r.status === 'rejected')) expect((lost.reason as Error).message).toBe(STALE);
    const winner = results.findIndex((r) => r.status === 'fulfilled');
    expect((await createClient({ url: b.url, token }).todos.get()).items).toEqual([{ content: `Writer ${winner}`, status: 'in_progress' }]);
    expect(await count('SELECT COUNT(*) AS n FROM "TodoUpdate" WHERE "sessionId" = $1', [session.id])).toBe(2);
  });

  it('a step sent with one attempt through A and B at once is kept exactly once', async () => {
    const key = await agentKey();
    const { client, token } = await openSessionClient(key.onA, { title: 'steps' });
    const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
    const started = await client.runs.execute({ startAttemptId });
    const tasks = ['one', 'two'].map((t) => ({ action: `Do ${t}`, expected_result: `${t} done` }));
    const run = await nameAndIntake(client, { runId: started.id, name: 'Replicated', tasks, progress_checklist_outcome: '2 tasks' });
    const ack = { runId: run.id, attemptId: run.attemptId ?? '', evidence: 'e', progress_execution_outcome: 'o' };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createClient({ url: i % 2 === 0 ? a.url : b.url, token }).runs.step(ack)),
    );
    expect(new Set(results.map((r) => r.cursor))).toEqual(new Set([2]));
    expect(new Set(results.map((r) => r.attemptId)).size).toBe(1);
    expect(await count(`SELECT COUNT(*) AS n FROM "RunStep" WHERE "runId" = $1 AND kind = 'step'`, [run.id])).toBe(1);
  });
});

describe('MCP over HTTP across replicas', () => {
  it('a session opened on A is served by B, request by request; the per-key cap counts both replicas', async () => {
    const key = await agentKey();
    let turn = 0;
    // Every request of the session goes to the other replica than the one before.
    const alternate = (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : input);
      url.host = new URL(turn++ % 2 === 0 ? a.url : b.url).host;
      return fetch(url, init);
    };
    const mcp = new Client({ name: 'replicas', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
        fetch: alternate,
        requestInit: { headers: { authorization: `Bearer ${key.token}` } },
      }),
    );
    for (let i = 1; i <= 4; i++) {
      const result = await mcp.callTool({ name: 'todo_write', arguments: { todos: [{ content: `Via MCP ${i}`, status: 'pending' }] } });
      expect(result.isError).not.toBe(true);
    }
    expect(turn).toBeGreaterThanOrEqual(6);
    await mcp.close();

    // Opened at once through both replicas: 3 allowed for the key, counted in one place.
    const other = await agentKey();
    const opens = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        fetch(`${i % 2 === 0 ? a.url : b.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${other.token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'race', version: '1' } },
          }),
        }).then((res) => res.status),
      ),
    );
    expect(opens.filter((s) => s === 200)).toHaveLength(3);
    expect(opens.filter((s) => s === 429)).toHaveLength(5);
  });
});

describe('notifications with both replicas running', () => {
  it('each message is delivered once, by one replica', async () => {
    receiver = await startReceiver({ answerAfterMs: 50 });
    await adminClient(a).channels.create({ name: 'replicated hook', url: receiver.url });
    const key = await agentKey();
    const runIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { client } = await openSessionClient(i % 2 === 0 ? key.onA : key.onB, { title: `notified ${i}` });
      const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none' });
      const started = await client.runs.execute({ startAttemptId });
      const tasks = [{ action: 'Ship it', expected_result: 'shipped' }];
      const run = await nameAndIntake(client, { runId: started.id, name: `Notified ${i}`, tasks, progress_checklist_outcome: '1 task' });
      await client.runs.step({ runId: run.id, attemptId: run.attemptId ?? '', task: 1, evidence: 'e', progress_execution_outcome: 'o' });
      runIds.push(run.id);
    }
    // checklist_ready and all_tasks_done of each run.
    await waitFor(
      '12 delivered',
      async () => (await count('SELECT COUNT(*) AS n FROM "OutboxMessage" WHERE "deliveredAt" IS NOT NULL')) >= 12 || null,
    );
    await new Promise((resolve) => setTimeout(resolve, 500)); // a second delivery would arrive in this time
    const keys = receiver.received.map((hook) => hook.headers['idempotency-key']);
    expect(keys).toHaveLength(12);
    expect(new Set(keys).size).toBe(12);
    const rows = await query<{ attempts: number }>('SELECT attempts FROM "OutboxMessage" WHERE "runId" = ANY($1)', [runIds]);
    expect(rows.map((r) => r.attempts)).toEqual(Array.from({ length: 12 }, () => 1));
  });
});

describe('kill -9 of a replica under load', () => {
  it('loses no acknowledged write, and B keeps serving', async () => {
    const acknowledged: { sessionId: string; revision: number; content: string }[] = [];
    let killed = false;
    let afterKill = 0;
    const writers = await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        const key = await agentKey();
        return { w, ...(await openSessionClient(w % 2 === 0 ? key.onA : key.onB, { title: `writer ${w}` })) };
      }),
    );
    let stop = false;
    const loops = writers.map(async ({ w, client, session }) => {
      for (let n = 0; !stop; n++) {
        const content = `writer ${w} list ${n}`;
        try {
          const { revision } = await client.todos.write({ todos: [{ content, status: 'in_progress' }] });
          acknowledged.push({ sessionId: session.id, revision, content });
          if (killed && w % 2 === 1) afterKill++;
        } catch {
          if (w % 2 === 1) throw new Error(`a write through B failed (writer ${w})`);
          await new Promise((resolve) => setTimeout(resolve, 20)); // A is gone: its writers' calls fail, unacknowledged
        }
      }
    });
    await waitFor('load on both replicas', () => acknowledged.length >= 200 || null, 30_000);
    a.process().kill('SIGKILL');
    killed = true;
    await waitFor('B serving after the kill', () => afterKill >= 50 || null, 30_000);
    stop = true;
    await Promise.all(loops);

    expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
    const rows = await query<{ sessionId: string; revision: number; items: string }>(
      'SELECT "sessionId", revision, items FROM "TodoUpdate" WHERE "sessionId" = ANY($1)',
      [writers.map((w) => w.session.id)],
    );
    const stored = new Map(rows.map((r) => [`${r.sessionId}/${r.revision}`, (JSON.parse(r.items) as { content: string }[])[0]?.content]));
    const lost = acknowledged.filter((ack) => stored.get(`${ack.sessionId}/${ack.revision}`) !== ack.content);
    expect(lost).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(250);
    // A refusal on B still answers as before.
    const { client } = writers[1]!;
    expect((await refused(client.todos.write({ todos: [], baseRevision: 0 }))).message).toMatch(/^Error: stale revision/);
  });
});
