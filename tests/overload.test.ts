// Black-box test of load shedding (defect 5): past the requests worked on at once, requests wait in one line for a
// bounded time and are then answered 503 with Retry-After instead of waiting without end; nothing else fails, health
// checks and live streams skip the line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { countRows, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ env: { AGENT_TASKS_MAX_CONCURRENT: '2', AGENT_TASKS_MAX_QUEUE_MS: '300', AGENT_TASKS_BUSY_TIMEOUT_MS: '5000', LOG_FORMAT: 'json' } });
});
afterAll(() => server.stop());

describe('overload', () => {
  it('requests past the line answer 503 with Retry-After within the bounded wait; the rest succeed; health checks stay quick', async () => {
    const { token, session } = await sessionClient(server, 'loaded');
    // Writes that cannot finish soon: another process holds the database for 1.5 s, so the two places stay taken.
    const outside = new Database(server.databaseFile);
    outside.exec('BEGIN IMMEDIATE');
    setTimeout(() => {
      outside.exec('ROLLBACK');
      outside.close();
    }, 1_500);
    const health: number[] = [];
    let loading = true;
    const probe = (async () => {
      while (loading) {
        const t0 = performance.now();
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
        health.push(performance.now() - t0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const answers = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const t0 = performance.now();
        const res = await fetch(`${server.url}/trpc/todo.write`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ todos: [{ content: `Write ${i}`, status: 'pending' }] }),
        });
        const text = await res.text();
        return { status: res.status, retryAfter: res.headers.get('retry-after'), text, ms: performance.now() - t0 };
      }),
    );
    loading = false;
    await probe;
    const shed = answers.filter((a) => a.status === 503);
    const served = answers.filter((a) => a.status === 200);
    expect(shed.length + served.length).toBe(30);
    expect(served.length).toBe(2); // the two that held the places, once the lock was released
    expect(countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(2);
    for (const a of shed) {
      expect(a.retryAfter).toBe('1');
      expect(JSON.parse(a.text).error.message).toBe('Error: the server is overloaded; try again in 1 s.');
    }
    // A shed request waited the line's limit (300 ms), not until the lock was gone; health checks never waited.
    expect(Math.max(...shed.map((a) => a.ms))).toBeLessThan(1_200);
    expect(Math.max(...health)).toBeLessThan(500);
    expect(server.output()).toContain('overloaded: answered 503');
  });
});
