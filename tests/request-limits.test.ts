// Black-box tests of request-level limits: the tRPC batch cap (a larger batch is refused whole, before any call runs),
// sockets that never finish their headers closed instead of held, and what the HTTP parser refuses answered with a text.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

/** A batch POST of `n` calls of one procedure, each with `input`. */
async function batch(procedure: string, n: number, input: unknown, token: string) {
  const body = Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), input]));
  const res = await fetch(`${server.url}/trpc/${Array(n).fill(procedure).join(',')}?batch=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('tRPC batches', () => {
  it('a batch of 1,000 todos.write calls is refused whole with a 400 naming the limit; none of them runs', async () => {
    const { session, token } = await sessionClient(server, 'batcher');
    const write = { todos: [{ content: 'Batched', status: 'pending' }] };
    const refused = await batch('todos.write', 1_000, write, token);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: {
        message: 'Error: a batch may hold at most 50 calls (this one has 1000); send fewer calls per request.',
        code: -32600,
        data: { code: 'BAD_REQUEST', httpStatus: 400, appCode: 'INVALID_INPUT', details: null },
      },
    });
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(0);

    // 51 is one too many; 50 all run (each a revision of the list).
    expect((await batch('todos.write', 51, write, token)).status).toBe(400);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(0);
    const allowed = await batch('todos.write', 50, write, token);
    expect(allowed.status).toBe(200);
    expect((allowed.body as unknown[]).length).toBe(50);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(50);
  });

  it('a GET batch of queries is capped the same way', async () => {
    const { token } = await sessionClient(server, 'reader');
    const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 60 }, (_, i) => [String(i), {}]))));
    const res = await fetch(`${server.url}/trpc/${Array(60).fill('todos.get').join(',')}?batch=1&input=${input}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'Error: a batch may hold at most 50 calls (this one has 60); send fewer calls per request.',
    );
  });
});

describe("a batch's input keys", () => {
  it("a key that is no call's index (`__proto__`, 5 in a batch of two) is refused, naming it; none of the calls runs", async () => {
    const { session, token } = await sessionClient(server, 'stray keys');
    const write = JSON.stringify({ todos: [{ content: 'Batched', status: 'pending' }] });
    const post = (body: string) =>
      fetch(`${server.url}/trpc/todos.write,todos.write?batch=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body,
      });
    for (const [body, key] of [
      [`{"0":${write},"1":${write},"__proto__":${write}}`, '__proto__'],
      [`{"0":${write},"5":${write}}`, '5'],
      [`{"0":${write},"01":${write}}`, '01'],
    ] as const) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(await res.json()).toEqual({
        error: {
          message: `Error: invalid input: a batch's input is keyed by its calls' indexes (0 to 1); \`${key}\` is none of them.`,
          code: -32600,
          data: { code: 'BAD_REQUEST', httpStatus: 400, appCode: 'INVALID_INPUT', details: null },
        },
      });
    }
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(0);
    const get = await fetch(`${server.url}/trpc/todos.get?batch=1&input=${encodeURIComponent('{"__proto__":{}}')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(get.status).toBe(400);
    expect(((await get.json()) as { error: { message: string } }).error.message).toBe(
      "Error: invalid input: a batch's input is keyed by its calls' indexes (0); `__proto__` is none of them.",
    );
    // Keyed by index, the same batch runs.
    expect((await post(`{"0":${write},"1":${write}}`)).status).toBe(200);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(2);
  });
});

describe('slow sockets', () => {
  it('200 connections that never finish their headers are closed after the headers timeout; the server answers meanwhile', async () => {
    const slow = await startServer({ env: { AGENT_TASKS_HEADERS_TIMEOUT_MS: '1000' } });
    try {
      const { port } = new URL(slow.url);
      const opened = Date.now();
      const closedAt = await Promise.all(
        Array.from(
          { length: 200 },
          () =>
            new Promise<number>((resolve) => {
              const socket = net.connect(Number(port), '127.0.0.1', () =>
                socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '),
              );
              socket.on('error', () => undefined);
              socket.resume(); // reads the server's 408, so the close that follows is seen
              socket.on('close', () => resolve(Date.now()));
              setTimeout(() => socket.destroy(), 10_000).unref();
            }),
        ).concat([
          (async () => {
            expect((await fetch(`${slow.url}/healthz`)).status).toBe(200);
            return opened;
          })(),
        ]),
      );
      // Closed by the server (well before the test's own 10 s), at about the 1 s timeout (checked every second).
      const late = closedAt.filter((t) => t - opened >= 4_000).length;
      expect(late, `${late} of 200 still open after 4 s`).toBe(0);
      expect(Math.max(...closedAt) - opened).toBeGreaterThanOrEqual(900);
    } finally {
      await slow.stop();
    }
  });
});

/** Writes raw bytes on a new connection and returns everything the server sent before closing it. */
function raw(bytes: string) {
  const { port } = new URL(server.url);
  return new Promise<string>((resolve) => {
    let answer = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
  });
}

describe('requests the HTTP parser refuses', () => {
  it('headers past 16 KiB, a request too slow and bytes that are no HTTP are answered with an Error: text, not an empty body', async () => {
    const long = await fetch(`${server.url}/trpc/tasks.list?input=${'x'.repeat(20_000)}`);
    expect(long.status).toBe(431);
    expect(await long.json()).toEqual({
      error: 'Error: the request line and headers are larger than 16 KiB; send a shorter URL (a large input goes in a POST body).',
    });
    const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(garbage.split('\r\n\r\n')[1]).toBe('{"error":"Error: the request is not valid HTTP."}');
    const slow = await startServer({ env: { AGENT_TASKS_HEADERS_TIMEOUT_MS: '1000' } });
    try {
      const { port } = new URL(slow.url);
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: '));
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(answer.split('\r\n\r\n')[1]).toBe('{"error":"Error: the request did not arrive in time; send it again."}');
    } finally {
      await slow.stop();
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
