// Black-box tests of concurrent writers over HTTP: optimistic revisions, exactly one winner, nothing lost.
import { createClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe('optimistic concurrency on todo_write', () => {
  it('accepts an update based on the current revision', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: [{ content: 'A', status: 'pending' }] });
    const answer = await s.client.todos.write({ todos: [{ content: 'A', status: 'in_progress' }], baseRevision: 1 });
    expect(answer.revision).toBe(2);
  });

  it('refuses a stale update with the current revision named, and records nothing', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: [{ content: 'A', status: 'pending' }] });
    await s.client.todos.write({ todos: [{ content: 'A', status: 'completed' }] });
    const refusal = await refused(s.client.todos.write({ todos: [{ content: 'B', status: 'pending' }], baseRevision: 1 }));
    expect(refusal.message).toBe(
      'Error: stale revision: this update was based on revision 1, but the list is at revision 2; read the list again and send the whole list.',
    );
    expect(refusal.code).toBe('STALE_REVISION');
    expect(refusal.httpStatus).toBe(409);
    expect(refusal.details).toEqual({ currentRevision: 2 });
    expect((await s.client.todos.get()).items).toEqual([{ content: 'A', status: 'completed' }]);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(2);
  });

  it('of writers racing on the same base revision, exactly one wins', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: [{ content: 'Start', status: 'pending' }] });
    // Separate clients: separate HTTP requests, really in flight together.
    const writers = Array.from({ length: 12 }, () => createClient({ url: server.url, token: s.token }));
    const results = await Promise.allSettled(
      writers.map((w, i) => w.todos.write({ todos: [{ content: `Writer ${i}`, status: 'in_progress' }], baseRevision: 1 })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const lost of results.filter((r) => r.status === 'rejected')) {
      expect(lost.reason.message).toBe(
        'Error: stale revision: this update was based on revision 1, but the list is at revision 2; read the list again and send the whole list.',
      );
    }
    const winner = results.findIndex((r) => r.status === 'fulfilled');
    expect((await s.client.todos.get()).items).toEqual([{ content: `Writer ${winner}`, status: 'in_progress' }]);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(2);
  });

  it('concurrent writers without a base revision are all recorded, each as its own revision', async () => {
    const s = await sessionClient(server);
    const writers = Array.from({ length: 10 }, () => createClient({ url: server.url, token: s.token }));
    const answers = await Promise.all(writers.map((w, i) => w.todos.write({ todos: [{ content: `Item ${i}`, status: 'pending' }] })));
    expect(answers.map((a) => a.revision).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await s.client.todos.history({ limit: 100 })).cards).toHaveLength(10);
  });
});
