// Black-box tests of the operator's limits under `serve --workers 2`: each is the server's, not each worker's. A place
// taken through one worker counts against a request through the other (each request pinned to a worker by its
// connection): live streams per key, admission's slots, the bytes of bodies being read and the bodies of requests not
// yet authenticated read at once; a place given back through one is free through the other.
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { countRows, sessionClient } from './support/fixtures.ts';
import { holdWriteLock, sqliteOnly } from './support/database.ts';
import { type PinnedConnection, connectionOn as connectionOnWorker, pidOfRequest } from './support/pinned-connection.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { guardMs } from './support/time-guard.ts';
import { waitFor } from './support/webhook-receiver.ts';

/** The pids of the server's workers, from their "ready" lines. */
async function workerPids(server: RunningServer): Promise<[number, number]> {
  const pids = await waitFor(
    'both workers to be ready',
    () => {
      const found = [...server.output().matchAll(/"pid":(\d+)[^\n]*"msg":"worker \d+ ready/g)].map((m) => Number(m[1]));
      return found.length >= 2 ? found : null;
    },
    guardMs(10_000),
  );
  return [pids[0] as number, pids[1] as number];
}

const opened: { close(): void }[] = [];

/** A kept-alive connection held by worker `pid`, closed after the tests. */
async function connectionOn(server: RunningServer, pid: number): Promise<PinnedConnection> {
  const connection = await connectionOnWorker(server, pid);
  opened.push(connection);
  return connection;
}

interface RawSocket {
  socket: net.Socket;
  /** Everything the server sent after the pinning request's answer, once the connection closed. */
  closed: Promise<string>;
  /** The text received so far after the pinning request's answer. */
  received(): string;
}

/** A raw socket held by worker `pid`: pinned by a health check over it, then free for bytes the test writes. */
async function socketOn(server: RunningServer, pid: number): Promise<RawSocket> {
  const { port } = new URL(server.url);
  for (let i = 0; i < 40; i++) {
    const id = `pin-${pid}-${i}-${Math.random().toString(36).slice(2)}`;
    const socket = net.connect(Number(port), '127.0.0.1');
    let text = '';
    let pinned = false;
    const answered = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const at = text.indexOf('\r\n\r\n') + 4;
        if (pinned || at < 4) return;
        // The health check's answer, its headers and body, is in: what follows is the test's.
        const length = Number(text.match(/content-length: (\d+)/i)?.[1] ?? 0);
        if (text.length < at + length) return;
        pinned = true;
        text = text.slice(at + length);
        resolve();
      }),
    );
    socket.on('error', () => undefined);
    const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${id}\r\n\r\n`);
    await answered;
    const served = await waitFor(`the access log line of ${id}`, () => pidOfRequest(server, id), guardMs(2_000));
    if (served === pid) {
      opened.push({ close: () => socket.destroy() });
      return { socket, closed, received: () => text };
    }
    socket.destroy();
  }
  throw new Error(`no connection reached worker ${pid}`);
}

const bodyOf = (answer: string) => JSON.parse(answer.split('\r\n\r\n')[1] as string) as { error: { message: string } };

afterAll(() => {
  for (const connection of opened) connection.close();
});

sqliteOnly('--workers 2: streams, bodies and requests not yet authenticated are counted for the server', () => {
  let server: RunningServer;
  let a: number;
  let b: number;
  beforeAll(async () => {
    server = await startServer({
      process: true,
      env: {
        AGENT_TASKS_WORKERS: '2',
        AGENT_TASKS_STREAMS_PER_KEY: '2',
        AGENT_TASKS_BODY_BUFFER_MAX_BYTES: String(16 * 1024 * 1024),
        AGENT_TASKS_UNAUTHENTICATED_MAX_BODIES: '1',
        AGENT_TASKS_KEEP_ALIVE_TIMEOUT_MS: '300000',
      },
    });
    [a, b] = await workerPids(server);
  });
  afterAll(() => server?.stop());

  it('two streams of a key open through one worker: a third through the other is 429; one closed, the other opens it', async () => {
    const { token, session } = await sessionClient(server, 'streams');
    const input = { sessionId: session.id };
    const first = (await connectionOn(server, a)).watch('todos.watch', input, token);
    const second = (await connectionOn(server, a)).watch('todos.watch', input, token);
    await Promise.all([first.opened, second.opened]);
    const other = await connectionOn(server, b);
    const path = `/trpc/todos.watch?input=${encodeURIComponent(JSON.stringify(input))}`;
    const refused = await other.request('GET', path, { token, headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('10');
    expect(JSON.parse(refused.body).error.message).toBe(
      'Error: too many open live streams for this key (2, at most 2); close one before opening another.',
    );
    first.stop();
    // The place comes back through the primary: a stream through the other worker opens (and gets an event).
    const third = await waitFor(
      'a stream through the other worker',
      async () => {
        const watch = (await connectionOn(server, b)).watch('todos.watch', input, token);
        await watch.opened;
        await new Promise((resolve) => setTimeout(resolve, 200));
        if (watch.endedAt !== null) return null;
        return watch;
      },
      guardMs(5_000),
    );
    await (await connectionOn(server, a)).mutate('todos.write', { todos: [{ content: 'Seen', status: 'pending' }] }, token);
    await waitFor('the event on the third stream', () => third.events.length > 0 || null, guardMs(5_000));
    third.stop();
    second.stop();
  });

  it('a 9 MB body held through one worker: a second through the other passes the 16 MB budget and is 503; the first lands', async () => {
    const { token, session } = await sessionClient(server, 'large bodies');
    const size = 9 * 1024 * 1024;
    const body = `{"todos":[${' '.repeat(size - 13)}]}`;
    const head = `POST /trpc/todos.write HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const first = await socketOn(server, a);
    const second = await socketOn(server, b);
    first.socket.write(head + body.slice(0, -1));
    await waitFor('the first body to be read but for its last byte', () => first.socket.writableLength === 0 || null, guardMs(5_000));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    second.socket.write(head + body.slice(0, -1));
    const refused = await second.closed;
    expect(refused).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(bodyOf(refused).error.message).toBe('Error: the server is overloaded; retry shortly.');
    first.socket.write(body.slice(-1));
    expect(await first.closed).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(1);
  });

  it('a body without a token trickling through one worker: another through the other is 503 at once; once it goes, one is read', async () => {
    const head = (length: number) =>
      `POST /trpc/todos.write HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const trickle = await socketOn(server, a);
    trickle.socket.write(`${head(100_000)}{"todos":[`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const other = await socketOn(server, b);
    const started = performance.now();
    other.socket.write(`${head(100_000)}{"todos":[`);
    const busy = await other.closed;
    expect(performance.now() - started).toBeLessThan(guardMs(1_000));
    expect(busy).toMatch(/^HTTP\/1\.1 503 /);
    expect(bodyOf(busy).error.message).toBe('Error: too many requests not yet authenticated are in progress; retry shortly.');
    trickle.socket.destroy();
    // Its place is given back: a whole body without a token through the other worker is read, and refused for its token.
    const body = '{"todos":[]}';
    const answer = await waitFor(
      'a body read through the other worker',
      async () => {
        const next = await socketOn(server, b);
        next.socket.write(`${head(body.length).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}${body}`);
        const text = await next.closed;
        return text.startsWith('HTTP/1.1 503 ') ? null : text;
      },
      guardMs(5_000),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  });
});

sqliteOnly('--workers 2: admission slots are the server’s', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      process: true,
      env: {
        AGENT_TASKS_WORKERS: '2',
        AGENT_TASKS_MAX_CONCURRENT: '1',
        AGENT_TASKS_MAX_QUEUE_MS: '400',
        AGENT_TASKS_BUSY_TIMEOUT_MS: '4000',
        AGENT_TASKS_KEEP_ALIVE_TIMEOUT_MS: '300000',
      },
    });
  });
  afterAll(() => server?.stop());

  it('a write waiting for the lock through one worker holds the one slot: a write through the other waits in line, then 503', async () => {
    const [a, b] = await workerPids(server);
    const waiting = await sessionClient(server, 'holds the slot');
    const turned = await sessionClient(server, 'turned away');
    const one = await connectionOn(server, a);
    const other = await connectionOn(server, b);
    const release = await holdWriteLock(server);
    try {
      const write = one.request('POST', '/trpc/todos.write', {
        token: waiting.token,
        body: { todos: [{ content: 'Waits for the lock', status: 'pending' }] },
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      const answer = await other.request('POST', '/trpc/todos.write', {
        token: turned.token,
        body: { todos: [{ content: 'Turned away', status: 'pending' }] },
      });
      const waited = performance.now() - started;
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(JSON.parse(answer.body).error.message).toBe('Error: the server is overloaded; retry shortly.');
      expect(waited).toBeGreaterThanOrEqual(350);
      await release();
      expect((await write).status).toBe(200);
    } finally {
      await release();
    }
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', waiting.session.id)).toBe(1);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', turned.session.id)).toBe(0);
    // The slot is free again for either worker.
    expect(
      (await other.mutate<{ revision: number }>('todos.write', { todos: [{ content: 'Now', status: 'pending' }] }, turned.token)).revision,
    ).toBe(1);
  });
});
