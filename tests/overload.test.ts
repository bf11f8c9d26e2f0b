// Black-box tests of admission under overload: requests past the concurrency limit wait in line, one that waits too
// long is answered 503 with Retry-After and the overloaded text (nothing recorded), and health checks skip the line.
import { refusalOf } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, sessionClient } from './support/fixtures.ts';
import { holdWriteLock } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';
import { guardMs } from './support/time-guard.ts';

let server: RunningServer;
beforeAll(async () => {
  // One request at a time, a 400 ms line: a write waiting for a held write lock keeps the only slot taken.
  // One process: the line is per process.
  server = await startServer({
    env: {
      AGENT_TASKS_WORKERS: '1',
      AGENT_TASKS_MAX_CONCURRENT: '1',
      AGENT_TASKS_MAX_QUEUE_MS: '400',
      AGENT_TASKS_BUSY_TIMEOUT_MS: '4000',
    },
  });
});
afterAll(() => server.stop());

describe('overload', () => {
  it('a request that waited in line past AGENT_TASKS_MAX_QUEUE_MS is answered 503 at once; health checks skip the line', async () => {
    const s = await sessionClient(server);
    const other = await sessionClient(server);
    await s.client.todos.get();
    await other.client.todos.get();
    const release = await holdWriteLock(server);
    try {
      // Takes the only slot and waits there for the lock.
      const write = s.client.todos.write({ todos: [{ content: 'Waits for the lock', status: 'pending' }] });
      await new Promise((resolve) => setTimeout(resolve, 100));

      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);

      const started = performance.now();
      const turnedAway = await fetch(`${server.url}/trpc/todos.write`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${other.token}` },
        body: JSON.stringify({ todos: [{ content: 'Turned away', status: 'pending' }] }),
      });
      const waited = performance.now() - started;
      expect(turnedAway.status).toBe(503);
      expect(turnedAway.headers.get('retry-after')).toBe('1');
      expect(await turnedAway.json()).toEqual({
        error: {
          message: 'Error: the server is overloaded; retry shortly.',
          code: -32603,
          data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503, appCode: 'UNAVAILABLE', details: null },
        },
      });
      expect(waited).toBeGreaterThanOrEqual(350);
      expect(waited).toBeLessThan(guardMs(2_000));

      // Through the SDK the same answer is a refusal with its code.
      const refusal = await other.client.todos.get().then(
        () => expect.fail('expected the overloaded answer'),
        (error: unknown) => refusalOf(error),
      );
      expect(refusal).toMatchObject({ code: 'UNAVAILABLE', httpStatus: 503, message: 'Error: the server is overloaded; retry shortly.' });

      await release();
      expect((await write).revision).toBe(1);
    } finally {
      await release();
    }
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', other.session.id)).toBe(0);
    expect((await other.client.todos.get()).revision).toBe(0);
    await waitFor('the shed requests logged', () => /overloaded: answered \d+ requests 503/.test(server.output()), guardMs(2_000));
  });
});
