// Black-box tests of `agent-tasks serve --workers 2`: two processes share the port and the SQLite file, one of them
// runs every write, and they stay correct across processes — live events, revocations (of calls and of streams),
// compare-and-set writes, claims, claim leases, notifications, a worker crash; writes go to the writer's own socket.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdWriteLock, sqliteOnly } from './support/database.ts';
import { adminClient, countRows, sessionClient } from './support/fixtures.ts';
import {
  type PinnedConnection,
  connectionOn as connectionOnWorker,
  connectionsOnWorkers,
  pidOfRequest,
  pinnedConnection,
} from './support/pinned-connection.ts';
import { type RunningServer, agentTasksBin, startServer } from './support/server.ts';
import { startReceiver, waitFor } from './support/webhook-receiver.ts';
import { guardMs } from './support/time-guard.ts';

let server: RunningServer;
const open: PinnedConnection[] = [];

/** One kept-alive connection on each of the two workers. */
async function bothWorkers() {
  const [a, b] = await connectionsOnWorkers(server, 2);
  if (!a || !b) throw new Error('expected two workers');
  open.push(a, b);
  return [a, b] as const;
}

/** Another kept-alive connection to the worker with this pid (a stream takes its connection over). */
async function connectionOn(pid: number) {
  const connection = await connectionOnWorker(server, pid);
  open.push(connection);
  return connection;
}

/** The pid of the worker that runs the writes (the latest to say so: a writer that died is replaced). */
const writerPid = () => writerPidOf(server);

function writerPidOf(on: RunningServer): number {
  const line = on
    .output()
    .split('\n')
    .findLast((l) => /"msg":"worker \d+ ready/.test(l) && l.includes('"writer":true'));
  const pid = line?.match(/"pid":(\d+)/)?.[1];
  if (!pid) throw new Error('no worker said it is the writer');
  return Number(pid);
}

const list = (n: number) => [
  { content: `Step ${n}`, status: 'in_progress' as const },
  { content: 'Ship it', status: 'pending' as const },
];

// One worker writes, the others hand it their mutations; a PostgreSQL DATABASE_URL refuses --workers above 1.
sqliteOnly('agent-tasks serve --workers 2', () => {
  beforeAll(async () => {
    // Kept-alive connections pinned to a worker wait through sleeps longer than the default 5 s keep-alive: a longer one,
    // so a test's next call does not meet a socket the server is closing (a "socket hang up" on a busy machine).
    server = await startServer({
      process: true,
      env: { AGENT_TASKS_WORKERS: '2', AGENT_TASKS_OUTBOX_POLL_MS: '50', AGENT_TASKS_KEEP_ALIVE_TIMEOUT_MS: '300000' },
    });
    // The writer says it is ready once its socket listens, which may come just after the server's "listening" line.
    await waitFor('the writer to say it is ready', () => server.output().includes('"writer":true'), guardMs(10_000));
  });
  afterAll(async () => {
    for (const connection of open) connection.close();
    await server?.stop();
  });

  it('runs two worker processes besides the primary, and both answer requests', async () => {
    const [a, b] = await bothWorkers();
    const primary = server.process().pid;
    expect(a.pid).not.toBe(b.pid);
    expect([a.pid, b.pid]).not.toContain(primary);
    expect(server.output()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(2 workers, ready in \d+ ms\)/);
  });

  it('a write through one worker reaches an SSE subscriber on the other promptly (target 100 ms), every one in order', async () => {
    const s = await sessionClient(server, 'watched across workers');
    const [watcher, writer] = await bothWorkers();
    const viewer = (await adminClient(server).keys.create({ name: 'dashboard', role: 'viewer' })).token;
    const stream = watcher.watch('todos.watch', { sessionId: s.session.id }, viewer);
    await stream.opened;
    await new Promise((resolve) => setTimeout(resolve, 200)); // the stream's replay is done
    const delays: number[] = [];
    for (let n = 1; n <= 20; n++) {
      const { revision } = await writer.mutate<{ revision: number }>('todos.write', { todos: list(n) }, s.token);
      const acknowledged = performance.now();
      const event = await waitFor(`event ${revision}`, () => stream.events.find((e) => e.id === String(revision)), guardMs(1_000), 1);
      delays.push(Math.max(0, event.at - acknowledged));
    }
    stream.stop();
    expect(stream.events.map((e) => e.id)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
    expect((stream.events[19]?.data as { items: unknown[] }).items).toEqual(list(20));
    expect(Math.max(...delays)).toBeLessThan(guardMs(100));
  });

  it('a key revoked through one worker is refused by the other within 1 s', async () => {
    const admin = adminClient(server);
    const created = await admin.keys.create({ name: 'to revoke', role: 'agent' });
    const [a, b] = await bothWorkers();
    // Both workers have resolved (and cached) the key.
    for (const worker of [a, b])
      expect(await worker.query<{ role: string }>('workspaces.whoami', undefined, created.token)).toMatchObject({ role: 'agent' });
    await a.mutate('keys.revoke', { id: created.key.id }, server.adminKey);
    const revokedAt = performance.now();
    const refusal = await waitFor(
      'the other worker refusing the key',
      async () => {
        const answer = await b.request('GET', '/trpc/workspaces.whoami', { token: created.token });
        return answer.status === 401 ? answer : null;
      },
      guardMs(1_000),
      5,
    );
    expect(performance.now() - revokedAt).toBeLessThan(guardMs(1_000));
    expect(JSON.parse(refusal.body).error.message).toBe('Error: unauthorized: this API key has been revoked.');
  });

  it('a key revoked through the worker that is not the writer is refused there by the very next request', async () => {
    const [a, b] = await bothWorkers();
    const other = a.pid === writerPid() ? b : a;
    const created = await adminClient(server).keys.create({ name: 'revoked here', role: 'agent' });
    // The worker has resolved (and cached) the key; after a write through it, the writer holds SQLite's write-lock turn.
    expect(await other.query<{ role: string }>('workspaces.whoami', undefined, created.token)).toMatchObject({ role: 'agent' });
    await other.mutate('keys.create', { name: 'a write first', role: 'viewer' }, server.adminKey);
    // With the primary stopped, the revocation cannot come round through it: it must come with the writer's answer.
    const primary = server.process().pid as number;
    process.kill(primary, 'SIGSTOP');
    try {
      await other.mutate('keys.revoke', { id: created.key.id }, server.adminKey);
      const answer = await other.request('GET', '/trpc/workspaces.whoami', { token: created.token });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).error.message).toBe('Error: unauthorized: this API key has been revoked.');
    } finally {
      process.kill(primary, 'SIGCONT');
    }
  });

  it('streams on one worker end within 1 s when their key is revoked, or their session token dropped, through the other', async () => {
    const [a, b] = await bothWorkers();
    /** Another connection to worker `a` (each stream takes its connection over). */
    const onA = async () => {
      for (let i = 0; i < 40; i++) {
        const connection = await pinnedConnection(server);
        if (connection.pid === a.pid) {
          open.push(connection);
          return connection;
        }
        connection.close();
      }
      throw new Error('no second connection reached the worker');
    };
    const admin = adminClient(server);
    const viewer = await admin.keys.create({ name: 'revoked across workers', role: 'viewer' });
    const agent = (await admin.keys.create({ name: 'reopens across workers', role: 'agent' })).token;
    type Opened = { token: string };
    const first = await b.mutate<Opened>('sessions.open', { externalId: 'across-workers' }, agent);
    const second = await b.mutate<Opened>('sessions.open', { externalId: 'across-workers' }, agent);
    const watched = { listName: 'across-workers' };
    const [viewerStream, droppedStream, keptStream] = await Promise.all(
      [viewer.token, second.token, first.token].map(async (token) => {
        const stream = (await onA()).watch('tasks.watch', watched, token);
        await stream.opened;
        return stream;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // the streams are listening
    expect([viewerStream, droppedStream, keptStream].map((stream) => stream!.endedAt)).toEqual([null, null, null]);

    await b.mutate('keys.revoke', { id: viewer.key.id }, server.adminKey);
    const revokedAt = performance.now();
    await waitFor("the revoked key's stream ended", () => viewerStream!.endedAt !== null, guardMs(1_000));
    expect(viewerStream!.endedAt! - revokedAt).toBeLessThan(guardMs(1_000));

    expect([droppedStream, keptStream].map((stream) => stream!.endedAt)).toEqual([null, null]);
    for (let i = 0; i < 20; i++) await b.mutate('sessions.open', { externalId: 'across-workers' }, agent);
    const droppedAt = performance.now();
    await waitFor("the dropped token's stream ended", () => droppedStream!.endedAt !== null, guardMs(1_000));
    expect(droppedStream!.endedAt! - droppedAt).toBeLessThan(guardMs(1_000));

    // The session's first token still streams: a task created through the other worker reaches it.
    await b.mutate('tasks.create', { ...watched, subject: 'Still watched' }, first.token);
    await waitFor('the kept stream follows', () => keptStream!.events.length > 0, guardMs(5_000));
    expect(keptStream!.endedAt).toBeNull();
    for (const stream of [viewerStream, droppedStream, keptStream]) stream!.stop();
  });

  it('a key revoked by `agent-tasks keys revoke` on the file is refused by every worker within 1 s', async () => {
    const created = await adminClient(server).keys.create({ name: 'revoked by the operator', role: 'agent' });
    const [a, b] = await bothWorkers();
    for (const worker of [a, b]) await worker.query('workspaces.whoami', undefined, created.token);
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [agentTasksBin, 'keys', 'revoke', created.key.id, '--database', server.databaseFile], (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    const revokedAt = performance.now();
    for (const worker of [a, b]) {
      await waitFor(
        `worker ${worker.pid} refusing the key`,
        async () => (await worker.request('GET', '/trpc/workspaces.whoami', { token: created.token })).status === 401,
        guardMs(1_000),
        5,
      );
    }
    expect(performance.now() - revokedAt).toBeLessThan(guardMs(1_000));
  });

  it('writers racing on one base revision through both workers: exactly one wins, the rest are refused as stale', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: list(0) });
    const connections = await Promise.all(Array.from({ length: 8 }, () => pinnedConnection(server)));
    open.push(...connections);
    expect(new Set(connections.map((c) => c.pid)).size).toBe(2);
    const answers = await Promise.all(
      connections.map((c, i) => c.request('POST', '/trpc/todos.write', { token: s.token, body: { todos: list(i + 1), baseRevision: 1 } })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const lost of answers.filter((a) => a.status !== 200)) {
      expect(lost.status).toBe(409);
      expect(JSON.parse(lost.body).error.message).toBe(
        'Error: stale revision: this update was based on revision 1, but the list is at revision 2; read the list again and send the whole list.',
      );
    }
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(2);
  });

  it('writers without a base revision through both workers are all recorded, each on its own revision', async () => {
    const s = await sessionClient(server);
    const connections = await Promise.all(Array.from({ length: 8 }, () => pinnedConnection(server)));
    open.push(...connections);
    const revisions = (
      await Promise.all(
        connections.flatMap((c, i) =>
          [0, 1, 2].map((k) => c.mutate<{ revision: number }>('todos.write', { todos: list(i * 3 + k) }, s.token)),
        ),
      )
    ).map((a) => a.revision);
    expect(revisions.sort((x, y) => x - y)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(24);
  });

  it('writes through both workers wait for an outside process holding the write lock, and land once it lets go', async () => {
    const s = await sessionClient(server);
    await s.client.todos.get();
    const [a, b] = await bothWorkers();
    for (const worker of [a, b]) await worker.query('todos.get', undefined, s.token);
    const release = await holdWriteLock(server);
    const writes = [a, b, a, b].map((worker, n) => worker.mutate<{ revision: number }>('todos.write', { todos: list(n) }, s.token));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await release();
    const revisions = (await Promise.all(writes)).map((w) => w.revision).sort();
    expect(revisions).toEqual([1, 2, 3, 4]);
  });

  it('claims through both workers take each ready task once', async () => {
    const s = await sessionClient(server);
    const listName = `claims-${Date.now()}`;
    for (let i = 0; i < 6; i++) await s.client.tasks.create({ subject: `Task ${i}`, listName });
    const agents = await Promise.all(
      Array.from({ length: 3 }, (_, i) => s.client.sessions.open({ title: `claimer ${i}`, agentName: `agent-${i}` })),
    );
    const connections = await Promise.all(Array.from({ length: 6 }, () => pinnedConnection(server)));
    open.push(...connections);
    const claims = await Promise.all(
      connections.flatMap((c, i) =>
        [0, 1].map(() => c.request('POST', '/trpc/tasks.claim', { token: agents[i % 3]?.token, body: { listName } })),
      ),
    );
    const taken = claims
      .filter((a) => a.status === 200)
      .map((a) => (JSON.parse(a.body).result.data as { task: { id: string } | null }).task?.id)
      .filter((id): id is string => Boolean(id));
    expect(taken).toHaveLength(6);
    expect(new Set(taken).size).toBe(6);
  });

  it('an MCP session opened through one worker keeps working through the other, and closing it anywhere closes it', async () => {
    const s = await sessionClient(server, 'mcp across workers');
    const [a, b] = await bothWorkers();
    const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    /** One JSON-RPC call over a pinned connection; the answer (JSON, or the first SSE data line). */
    const rpc = async (on: PinnedConnection, body: unknown, session?: string, method = 'POST') => {
      const answer = await on.request(method, '/mcp', {
        token: s.token,
        body,
        headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) },
      });
      const data = answer.body.split('\n').find((line) => line.startsWith('data: '));
      return {
        ...answer,
        json: (data ? JSON.parse(data.slice(6)) : answer.body ? JSON.parse(answer.body) : null) as Record<string, any> | null,
      };
    };
    const init = await rpc(a, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    });
    expect(init.status).toBe(200);
    const session = init.headers['mcp-session-id'] as string;
    expect(session).toBeTruthy();
    expect((await rpc(a, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);

    const tools = await rpc(b, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(tools.status).toBe(200);
    expect((tools.json?.result.tools as { name: string }[]).map((t) => t.name)).toContain('todo_write');
    for (const [n, on] of [b, a, b].entries()) {
      const call = await rpc(
        on,
        { jsonrpc: '2.0', id: 10 + n, method: 'tools/call', params: { name: 'todo_write', arguments: { todos: list(n) } } },
        session,
      );
      expect(call.status).toBe(200);
      expect(call.json?.result).toEqual({
        content: [{ type: 'text', text: 'Updated todo list: 1 pending, 1 in progress, 0 completed' }],
        isError: false,
      });
    }
    expect((await s.client.todos.get()).revision).toBe(3);

    expect((await rpc(b, undefined, session, 'DELETE')).status).toBe(200);
    const closed = await rpc(a, { jsonrpc: '2.0', id: 20, method: 'tools/list' }, session);
    expect(closed.status).toBe(404);
    expect(closed.json?.error.message).toBe('Error: MCP session not found (closed or idle too long); initialize a new one.');
  });

  it('each notification is delivered once, whichever worker recorded it', async () => {
    const admin = adminClient(server);
    // A slow receiver: two workers polling the same outbox would both pick a message up while it answers.
    const hook = await startReceiver({ answerAfterMs: 300 });
    try {
      await admin.channels.create({ name: 'once', url: hook.url });
      const agent = createClient({ url: server.url, token: (await admin.keys.create({ name: 'runner', role: 'agent' })).token });
      const runs = await Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          const { client } = await openSessionClient(agent, { title: `runner ${i}` });
          const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none' });
          const run = await client.runs.execute({ startAttemptId });
          const tasks = ['First', 'Second'].map((action) => ({ action, expected_result: `${action}: verified` }));
          await client.runs.name({ runId: run.id, name: `Run ${i}` });
          let { attemptId } = await client.runs.intake({ runId: run.id, tasks, progress_checklist_outcome: '2 ordered tasks are ready' });
          for (const task of [1, 2]) {
            const view = await client.runs.step({
              runId: run.id,
              attemptId: attemptId ?? '',
              evidence: `Task ${task} checked.`,
              progress_execution_outcome: `Task ${task} is done`,
            });
            attemptId = view.attemptId;
          }
          return run.id;
        }),
      );
      await waitFor('every notification accepted', () => hook.accepted().length >= 8, guardMs(15_000));
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // several more outbox polls on every worker
      const keys = hook.received.map((h) => (h.body as { idempotencyKey: string }).idempotencyKey);
      expect(keys).toHaveLength(8);
      expect(new Set(keys).size).toBe(8);
      const runsSeen = hook.received.map((h) => (h.body as { run: { id: string } }).run.id);
      for (const id of runs) expect(runsSeen.filter((r) => r === id)).toHaveLength(2);
    } finally {
      await hook.down();
    }
  });

  it('one worker runs the writes: a write through the other waits while the writer is stopped, reads there do not', async () => {
    const s = await sessionClient(server);
    const [a, b] = await bothWorkers();
    const writer = writerPid();
    expect([a.pid, b.pid]).toContain(writer);
    const other = a.pid === writer ? b : a;
    const reader = await connectionOn(other.pid);
    // The other worker writes last: were it writing itself, it would now hold SQLite's write lock and need nobody.
    expect((await other.mutate<{ revision: number }>('todos.write', { todos: list(1) }, s.token)).revision).toBe(1);
    const requestId = randomUUID();
    process.kill(writer, 'SIGSTOP');
    let write: Promise<{ status: number; body: string }> | undefined;
    try {
      write = other.request('POST', '/trpc/todos.write', { token: s.token, body: { todos: list(2) }, requestId });
      let answered = false;
      void write.then(() => (answered = true));
      // Reads are answered by the worker itself, at once, and see what was committed.
      expect((await reader.query<{ revision: number }>('todos.get', undefined, s.token)).revision).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(answered).toBe(false);
    } finally {
      process.kill(writer, 'SIGCONT');
    }
    const answer = await write;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).result.data).toMatchObject({ revision: 2 });
    // Answered and logged by the worker that took the request.
    await waitFor('the access log line', () => pidOfRequest(server, requestId), guardMs(2_000));
    expect(pidOfRequest(server, requestId)).toBe(other.pid);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(2);
  });

  it('a refusal of a write handed to the writer is answered as the writer answers it: status, text, code, details', async () => {
    const s = await sessionClient(server);
    const [a, b] = await bothWorkers();
    const writer = a.pid === writerPid() ? a : b;
    const other = writer === a ? b : a;
    await other.mutate('todos.write', { todos: list(1) }, s.token);
    await other.mutate('todos.write', { todos: list(2) }, s.token);
    const stale = { todos: list(3), baseRevision: 1 };
    const [there, here] = await Promise.all(
      [writer, other].map((on) => on.request('POST', '/trpc/todos.write', { token: s.token, body: stale })),
    );
    expect(there?.status).toBe(409);
    expect(here?.status).toBe(409);
    const errorOf = (answer: { body: string } | undefined) => {
      const { message, code, data } = JSON.parse(answer?.body ?? '{}').error;
      return { message, code, appCode: data.appCode, httpStatus: data.httpStatus, details: data.details };
    };
    expect(errorOf(here)).toEqual(errorOf(there));
    expect(errorOf(here).message).toBe(
      'Error: stale revision: this update was based on revision 1, but the list is at revision 2; read the list again and send the whole list.',
    );
    // The input contract is checked by the worker that took the request; nothing is recorded.
    const invalid = await other.request('POST', '/trpc/todos.write', { token: s.token, body: { todos: 'none' } });
    expect(invalid.status).toBe(400);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(2);
  });

  it('a claim lease that runs out while both workers serve the list is returned once: one history entry, one live event', async () => {
    const s = await sessionClient(server, 'lease across workers');
    const listName = `lease-${Date.now()}`;
    const task = await s.client.tasks.create({ listName, subject: 'Held, then let go' });
    const [a, b] = await bothWorkers();
    const viewer = (await adminClient(server).keys.create({ name: 'lease watcher', role: 'viewer' })).token;
    const streams = await Promise.all(
      [a.pid, b.pid].map(async (pid) => {
        const stream = (await connectionOn(pid)).watch('tasks.watch', { listName }, viewer);
        await stream.opened;
        return stream;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // the streams are listening
    // Claimed through each worker in turn (the shortest lease), so both processes know of leases on the list.
    const claimed = await a.mutate<{ task: { id: string } | null }>('tasks.claim', { listName, id: task.id, leaseMs: 1_000 }, s.token);
    expect(claimed.task?.id).toBe(task.id);
    const expired = (e: { data: unknown }) => {
      const data = e.data as { kind?: string; taskId?: string };
      return data.kind === 'lease_expired' && data.taskId === task.id;
    };
    for (const stream of streams) await waitFor('the lease_expired event', () => stream.events.find(expired), guardMs(10_000));
    // Two lease sweeps later (every 2 s in each worker), still one of each.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    for (const stream of streams) expect(stream.events.filter(expired)).toHaveLength(1);
    const history = await b.query<{ changes: { kind: string }[] }>('tasks.history', { listName, id: task.id }, s.token);
    expect(history.changes.filter((c) => c.kind === 'lease_expired')).toHaveLength(1);
    expect((await a.query<{ status: string }>('tasks.get', { listName, id: task.id }, s.token)).status).toBe('pending');
    for (const stream of streams) stream.stop();
  });

  it('the writer killed with SIGKILL is replaced by a new writer, and writes through both workers land again', async () => {
    const s = await sessionClient(server);
    await bothWorkers();
    const a = { pid: writerPid() };
    process.kill(a.pid, 'SIGKILL');
    await waitFor('the primary to log the replacement', () => server.output().includes('worker died; starting a new one'), guardMs(10_000));
    const workers = await waitFor(
      'two live workers again',
      async () => {
        const connections = await Promise.all(Array.from({ length: 4 }, () => pinnedConnection(server)));
        open.push(...connections);
        const pids = new Set(connections.map((c) => c.pid));
        return pids.size === 2 && !pids.has(a.pid) ? pids : null;
      },
      guardMs(15_000),
      100,
    );
    expect(workers.size).toBe(2);
    // The new writer says it is ready once its socket listens, which may be just after it first answers HTTP.
    await waitFor('the new writer to say it is ready', () => workers.has(writerPid()), guardMs(10_000));
    let revision = 0;
    for (const pid of workers) {
      const on = await connectionOn(pid);
      expect((await on.mutate<{ revision: number }>('todos.write', { todos: list(++revision) }, s.token)).revision).toBe(revision);
    }
  });
  it('writes go from a worker to the writer straight: with the primary stopped, a write through the other worker lands', async () => {
    const s = await sessionClient(server);
    const [a, b] = await bothWorkers();
    const other = a.pid === writerPid() ? b : a;
    // The writer holds SQLite's write-lock turn after this one (nobody else asked), so it needs the primary for nothing.
    expect((await other.mutate<{ revision: number }>('todos.write', { todos: list(1) }, s.token)).revision).toBe(1);
    const primary = server.process().pid as number;
    process.kill(primary, 'SIGSTOP');
    try {
      // Relayed through the primary, this would wait for SIGCONT; the guard fails it well before.
      const written = other.mutate<{ revision: number }>('todos.write', { todos: list(2) }, s.token);
      const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), guardMs(5_000)));
      expect(await Promise.race([written.then((w) => w.revision), late])).toBe(2);
    } finally {
      process.kill(primary, 'SIGCONT');
    }
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(2);
  });

  it('a worker that replaces a dead one finds the writer: its writes land, answered by itself', async () => {
    const s = await sessionClient(server);
    const [a, b] = await bothWorkers();
    const writer = writerPid();
    const dead = a.pid === writer ? b.pid : a.pid;
    const deaths = server.output().split('worker died; starting a new one').length;
    process.kill(dead, 'SIGKILL');
    await waitFor(
      'the primary to log the replacement',
      () => server.output().split('worker died; starting a new one').length > deaths,
      guardMs(10_000),
    );
    const replacement = await waitFor(
      'the new worker to answer',
      async () => {
        const connection = await pinnedConnection(server);
        open.push(connection);
        return connection.pid !== writer && connection.pid !== dead ? connection : null;
      },
      guardMs(15_000),
      100,
    );
    const requestId = randomUUID();
    const answer = await replacement.request('POST', '/trpc/todos.write', { token: s.token, body: { todos: list(1) }, requestId });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).result.data).toMatchObject({ revision: 1 });
    await waitFor('the access log line', () => pidOfRequest(server, requestId), guardMs(2_000));
    expect(pidOfRequest(server, requestId)).toBe(replacement.pid);
    expect(writerPid()).toBe(writer);
  });

  // Last in the file: it leaves this address braked for unknown tokens.
  it('failed authentications are counted once across workers: past 30 from one address both answer 429; a key that worked passes', async () => {
    const [a, b] = await bothWorkers();
    const bad = (i: number) => `atk_g${String(i).padStart(3, '0')}_${'x'.repeat(20)}`;
    // A key that works, used through one worker only before the guesses.
    const working = (await adminClient(server).keys.create({ name: 'works', role: 'viewer' })).token;
    expect((await a.request('GET', '/trpc/workspaces.whoami', { token: working })).status).toBe(200);
    // Guesses alternate between the workers until one is refused. Counted once (30 per address, by default; earlier
    // tests' revoked keys count too), that comes by the 31st; counted per worker it would take about 60.
    let answered401 = 0;
    for (let i = 0; i < 80; i++) {
      const status = (await (i % 2 ? a : b).request('GET', '/trpc/workspaces.whoami', { token: bad(i) })).status;
      if (status === 429) break;
      expect(status).toBe(401);
      answered401++;
    }
    expect(answered401).toBeLessThanOrEqual(30);
    expect(answered401).toBeGreaterThan(10);
    for (const worker of [a, b]) {
      const refused = await worker.request('GET', '/trpc/workspaces.whoami', { token: bad(100) });
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body).error.message).toMatch(
        /^Error: too many failed authentications from this address; try again in \d+ s\.$/,
      );
      // The key that worked through the first worker still passes on both.
      expect((await worker.request('GET', '/trpc/workspaces.whoami', { token: working })).status).toBe(200);
    }
  });
});

sqliteOnly('the writer’s socket', () => {
  it('is in a directory only the server’s user can open, takes no call without the writer’s secret, goes at the stop', async () => {
    const own = await startServer({ process: true, env: { AGENT_TASKS_WORKERS: '2' } });
    let dir: string | undefined;
    try {
      const workers = await connectionsOnWorkers(own, 2);
      for (const worker of workers) worker.close();
      const environ = readFileSync(`/proc/${workers[0]?.pid}/environ`, 'utf8').split('\0');
      dir = environ.find((e) => e.startsWith('AGENT_TASKS_SOCKET_DIR='))?.slice('AGENT_TASKS_SOCKET_DIR='.length);
      expect(dir).toBeTruthy();
      expect(statSync(dir as string).mode & 0o777).toBe(0o700);
      const sockets = readdirSync(dir as string);
      expect(sockets).toHaveLength(1);
      expect(sockets[0]).toMatch(/^writer-\d+\.sock$/);
      const address = path.join(dir as string, sockets[0] as string);
      expect(lstatSync(address).isSocket()).toBe(true);
      // A call sent without the secret first (as the server's own user could): the connection is closed, nothing runs.
      const admin = adminClient(own);
      const keysBefore = (await admin.keys.list()).keys.length;
      const whoami = await admin.workspaces.whoami();
      const actor = { workspaceId: whoami.workspace.id, role: 'admin', keyId: 'forged', sessionId: null, agentName: null };
      for (const first of [
        'null',
        JSON.stringify({ hello: 'guess' }),
        JSON.stringify({ call: 1, path: 'keys.create', input: { name: 'forged', role: 'admin' }, actor, requestId: 'forged' }),
      ]) {
        const socket = net.createConnection(address);
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        const closed = new Promise((resolve) => socket.once('close', resolve));
        socket.write(
          `${first}\n${JSON.stringify({ call: 2, path: 'keys.create', input: { name: 'forged', role: 'admin' }, actor, requestId: 'forged' })}\n`,
        );
        await closed;
        expect(answer).toBe('');
      }
      expect((await admin.keys.list()).keys).toHaveLength(keysBefore);
      // The writer is still the one that started, and still runs the workers' writes.
      expect(own.output()).not.toContain('worker died');
      await admin.keys.create({ name: 'after the forgeries', role: 'viewer' });
      expect((await admin.keys.list()).keys).toHaveLength(keysBefore + 1);
    } finally {
      await own.stop();
    }
    expect(existsSync(dir as string)).toBe(false);
  });
});

sqliteOnly("a run's view from the writer", () => {
  it("arrives whole from a step handed to the writer, made by the worker from the run's version: the writer's bytes, non-ASCII intact", async () => {
    // Answers as the server sends them (the suite's contract check would send a fresh copy of each instead).
    const own = await startServer({ process: true, env: { AGENT_TASKS_WORKERS: '2', AGENT_TASKS_VERIFY_OUTPUTS: '0' } });
    const connections: PinnedConnection[] = [];
    try {
      await waitFor('the writer to say it is ready', () => own.output().includes('"writer":true'), guardMs(10_000));
      const s = await sessionClient(own);
      const [a, b] = await connectionsOnWorkers(own, 2);
      if (!a || !b) throw new Error('expected two workers');
      connections.push(a, b);
      const writer = a.pid === writerPidOf(own) ? a : b;
      const other = writer === a ? b : a;
      const tasks = Array.from({ length: 40 }, (_, i) => ({
        action: `Étape ${i + 1}: vérifier — 検証 ${i + 1} 🙂 "quoted" \\ back`,
        expected_result: `Résultat ${i + 1} ✓`,
      }));
      const { startAttemptId } = await s.client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
      const run = await s.client.runs.execute({ startAttemptId });
      await s.client.runs.name({ runId: run.id, name: 'Vérification ✓' });
      const ready = await s.client.runs.intake({ runId: run.id, tasks, progress_checklist_outcome: 'Prêt ✓' });
      const step = { runId: run.id, attemptId: ready.attemptId, evidence: 'vu ✓', progress_execution_outcome: 'étape 1 faite 🙂' };
      const answer = await other.request('POST', '/trpc/runs.step', { token: s.token, body: step });
      expect(answer.status).toBe(200);
      // Every byte as sent: the length told, and the text exactly JSON's (nothing cut or decoded wrong on the way).
      expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
      const view = JSON.parse(answer.body).result.data;
      expect(JSON.stringify({ result: { data: view } })).toBe(answer.body);
      expect(view.tasks).toEqual(tasks);
      expect(view.blocks.work.tasks[0]).toMatchObject({ title: tasks[0]?.action, state: 'done', outcome: 'étape 1 faite 🙂' });
      // The same run read on the writer: the same view but for the clock's count on the task in progress.
      const there = JSON.parse(
        (await writer.request('GET', `/trpc/runs.get?input=${encodeURIComponent(JSON.stringify({ runId: run.id }))}`, { token: s.token }))
          .body,
      ).result.data;
      const withoutClock = (v: { blocks: { work: { tasks: { timeMs: number }[] } } }) => ({
        ...v,
        blocks: { ...v.blocks, work: { ...v.blocks.work, tasks: v.blocks.work.tasks.map((t) => ({ ...t, timeMs: 0 })) } },
      });
      expect(withoutClock(view)).toEqual(withoutClock(there));
      // The worker made the view from the writer's answer, the run's version (apps/server/test/writer-link.test.ts shows
      // the line): the same bytes as the writer's own answer to that step sent again there, which is the run rebuilt at
      // that version.
      const again = await writer.request('POST', '/trpc/runs.step', { token: s.token, body: step });
      expect(again.status).toBe(200);
      expect(again.body).toBe(answer.body);
      // Sent again through the worker: the writer answers the recorded step by the run's version then, and the worker
      // makes the same view again, though the run and its clock moved on since.
      await s.client.runs.step({ ...step, attemptId: view.attemptId, evidence: 'vu 2', progress_execution_outcome: 'étape 2' });
      const resent = await other.request('POST', '/trpc/runs.step', { token: s.token, body: step });
      expect(resent.status).toBe(200);
      expect(resent.body).toBe(answer.body);
    } finally {
      for (const connection of connections) connection.close();
      await own.stop();
    }
  });
});
