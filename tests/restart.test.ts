// Black-box test that everything recorded survives a server restart on the same SQLite file.
import { createClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ process: true });
});
afterAll(() => server.stop());

describe('restart', () => {
  it('the latest update is still the list after the server restarts; history, turns and tokens too', async () => {
    const s = await sessionClient(server, 'long job');
    await s.client.sessions.startTurn();
    await s.client.todos.write({ todos: [{ content: 'A', status: 'pending' }] });
    await s.client.todos.write({
      todos: [
        { content: 'A', status: 'completed' },
        { content: 'B', status: 'in_progress' },
      ],
    });

    await server.restart();

    const again = createClient({ url: server.url, token: s.token });
    const view = await again.sessions.get();
    expect(view.todo).toMatchObject({
      revision: 2,
      items: [
        { content: 'A', status: 'completed' },
        { content: 'B', status: 'in_progress' },
      ],
    });
    expect(view.session).toMatchObject({ title: 'long job', turn: { number: 1, state: 'running' } });
    expect(view.standingPlan?.revision).toBe(2);
    expect((await again.todos.history()).cards.map((c) => c.revision)).toEqual([2, 1]);
    expect((await again.todos.write({ todos: [], baseRevision: 2 })).revision).toBe(3);
    expect(server.output()).not.toContain('First run');
  });
});
