// Black-box tests of the live feed of a session's list over SSE, including resuming by last event id.
import type { TodoCard } from '@agent-tasks/schema';
import type { Subscription } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyClient, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

type Client = Awaited<ReturnType<typeof keyClient>>;

/** Subscribes and collects events; resolves `started` once the stream is open. */
function watch(client: Client, input: { sessionId?: string; lastEventId?: string }) {
  const events: { id: string; data: TodoCard }[] = [];
  const errors: unknown[] = [];
  let sub: Subscription | undefined;
  const started = new Promise<void>((resolve) => {
    sub = client.todos.watch(input, { onData: (e) => events.push(e), onError: (e) => errors.push(e), onStarted: resolve });
  });
  const until = async (n: number) => {
    const deadline = Date.now() + 10_000;
    while (events.length < n && errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return events;
  };
  return { events, errors, started, until, stop: () => sub?.unsubscribe() };
}

describe('live feed of a session list', () => {
  it('a dashboard receives each recorded update, then resumes after its last event id without gaps', async () => {
    const s = await sessionClient(server);
    const dashboard = await keyClient(server, 'viewer');
    const first = watch(dashboard, { sessionId: s.session.id });
    await first.started;

    await s.client.todos.write({ todos: [{ content: 'A', status: 'pending' }] });
    await s.client.todos.write({ todos: [{ content: 'A', status: 'in_progress' }] });
    await s.client.todos.write({
      todos: [
        { content: 'A', status: 'completed' },
        { content: 'B', status: 'pending' },
      ],
    });
    const seen = await first.until(3);
    expect(seen.map((e) => e.id)).toEqual(['1', '2', '3']);
    expect(seen[1]?.data.changes.statusChanged).toEqual([{ content: 'A', from: 'pending', to: 'in_progress' }]);
    expect(seen[2]?.data.counts).toEqual({ pending: 1, inProgress: 0, completed: 1 });
    first.stop();

    // Missed while disconnected:
    await s.client.todos.write({ todos: [{ content: 'B', status: 'in_progress' }] });
    await s.client.todos.write({ todos: [{ content: 'B', status: 'completed' }] });

    const resumed = watch(dashboard, { sessionId: s.session.id, lastEventId: '3' });
    await resumed.until(2);
    await s.client.todos.write({ todos: [] });
    const after = await resumed.until(3);
    expect(after.map((e) => e.id)).toEqual(['4', '5', '6']);
    expect(after[2]?.data.items).toEqual([]);
    resumed.stop();
  });

  it('a session watches its own list without naming it', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: [{ content: 'Old', status: 'pending' }] });
    const own = watch(s.client, { lastEventId: '0' });
    await s.client.todos.write({ todos: [{ content: 'New', status: 'pending' }] });
    expect((await own.until(2)).map((e) => e.data.items[0]?.content)).toEqual(['Old', 'New']);
    own.stop();
  });

  it('refuses to watch a session of another workspace', async () => {
    const s = await sessionClient(server);
    const { createClient } = await import('@agent-tasks/sdk');
    const { adminKey } = await createClient({ url: server.url, token: server.adminKey }).workspaces.create({ name: 'elsewhere' });
    const outsider = createClient({ url: server.url, token: adminKey });
    const feed = watch(outsider, { sessionId: s.session.id });
    await feed.until(1);
    expect(feed.errors).toHaveLength(1);
    expect((feed.errors[0] as Error).message).toBe(`Error: session ${s.session.id} not found.`);
    feed.stop();
  });
});
