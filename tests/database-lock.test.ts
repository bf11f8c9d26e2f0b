// Black-box tests of the database's write lock held by another process (SQLite's, or PostgreSQL's table locks): a write waits for it (a real wait, up to the busy
// timeout), and past the timeout it is answered 503 with Retry-After, logged, and records nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, sessionClient } from './support/fixtures.ts';
import { holdWriteLock } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { guardMs } from './support/time-guard.ts';

const BUSY = 'Error: the database is busy (another process held its write lock too long); retry shortly.';
const list = [{ content: 'Hold the lock', status: 'pending' as const }];

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ env: { AGENT_TASKS_BUSY_TIMEOUT_MS: '1500' } });
});
afterAll(() => server.stop());

describe('another process holding the write lock', () => {
  it('a write waits for the lock and lands once it is released, inside the busy timeout', async () => {
    const s = await sessionClient(server);
    await s.client.todos.get(); // the token is resolved (and cached) before the lock is taken
    const release = await holdWriteLock(server);
    const started = performance.now();
    const write = s.client.todos.write({ todos: list });
    setTimeout(() => void release(), 600);
    const answer = await write;
    expect(answer.revision).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(550);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(1);
  });

  it('reads are answered while the lock is held', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: list });
    const release = await holdWriteLock(server);
    try {
      const started = performance.now();
      expect((await s.client.todos.get()).revision).toBe(1);
      expect(performance.now() - started).toBeLessThan(guardMs(1_000));
    } finally {
      await release();
    }
  });

  it('past the busy timeout the write is answered 503 with Retry-After and the busy text, logged, and nothing is recorded', async () => {
    const s = await sessionClient(server);
    await s.client.todos.get();
    const release = await holdWriteLock(server);
    let response: Response;
    const started = performance.now();
    try {
      response = await fetch(`${server.url}/trpc/todos.write`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}`, 'x-request-id': 'busy-write-1' },
        body: JSON.stringify({ todos: list }),
      });
    } finally {
      await release();
    }
    const waited = performance.now() - started;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = (await response.json()) as { error: { message: string; data: { appCode: string; httpStatus: number } } };
    expect(body.error.message).toBe(BUSY);
    expect(body.error.data).toMatchObject({ appCode: 'UNAVAILABLE', httpStatus: 503 });
    // A real wait up to the timeout, not an immediate failure.
    expect(waited).toBeGreaterThanOrEqual(1400);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(0);
    expect((await s.client.todos.get()).revision).toBe(0);
    const logged = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"busy-write-1"'));
    expect(logged.some((line) => line.includes('database busy: answered 503') && line.includes('"level":40'))).toBe(true);
    expect(logged.some((line) => line.includes('"status":503'))).toBe(true);
    expect(server.output()).not.toContain('"level":50');
    // Once the lock is free the same write goes through.
    expect((await s.client.todos.write({ todos: list })).revision).toBe(1);
  });
});
