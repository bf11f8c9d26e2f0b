// Black-box tests: a live stream opened before its key was revoked ends within 1 s of the revocation — todos.watch,
// tasks.watch, runs.watch and the sessions signal; a viewer key's, a session's (its opening key revoked), one opened with
// a stream ticket — while other callers' streams go on; and a stream opened with a session token ends within 1 s of that
// token being dropped (20 newer opens of its session by external id), while the session's other tokens' streams go on.
import { type AgentTasksClient, createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, refused } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { guardMs } from './support/time-guard.ts';
import { waitFor } from './support/webhook-receiver.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

interface Watched {
  /** Whether the server answered the subscription (its stream is open). */
  started: boolean;
  ended: number | null;
  events: number;
  stop(): void;
}

/** Follows a subscription: when it ended (completed or failed) and how many events it got. */
function follow(
  subscribe: (handlers: { onStarted: () => void; onData: () => void; onComplete: () => void; onError: () => void }) => {
    unsubscribe(): void;
  },
): Watched {
  const w: Watched = { started: false, ended: null, events: 0, stop: () => undefined };
  const sub = subscribe({
    onStarted: () => void (w.started = true),
    onData: () => void w.events++,
    onComplete: () => (w.ended ??= Date.now()),
    onError: () => (w.ended ??= Date.now()),
  });
  w.stop = () => sub.unsubscribe();
  return w;
}

const key = async (role: 'agent' | 'viewer') => {
  const created = await adminClient(server).keys.create({ name: `stream ${role}`, role });
  return { id: created.key.id, client: createClient({ url: server.url, token: created.token }), token: created.token };
};

describe('live streams end when their key is revoked', () => {
  it("a viewer's, a session's (through its opening key) and a ticket-opened stream end within 1 s; others go on", async () => {
    const writerKey = await key('agent');
    const writer = await openSessionClient(writerKey.client, { title: 'written' });
    const { startAttemptId } = await writer.client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
    const run = await writer.client.runs.execute({ startAttemptId });
    await writer.client.tasks.create({ listName: 'watched', subject: 'There first' });
    const viewer = await key('viewer');
    const agent = await key('agent');
    const watcherSession = await openSessionClient(agent.client, { title: 'watching' });
    const ticketViewer = createClient({ url: server.url, token: viewer.token, streams: 'ticket' });
    const bystander = (await key('viewer')).client;

    const streams = (c: AgentTasksClient) => [
      follow((h) => c.trpc.todos.watch.subscribe({ sessionId: writer.session.id }, h)),
      follow((h) => c.trpc.tasks.watch.subscribe({ listName: 'watched' }, h)),
      follow((h) => c.trpc.runs.watch.subscribe({ runId: run.id }, h)),
      follow((h) => c.trpc.dashboard.watchSessions.subscribe({}, h)),
    ];
    // The watcher session may not read the writer's list (another chat): it watches the task list, the run and the signal.
    const viewerStreams = streams(viewer.client);
    const ticketStreams = streams(ticketViewer);
    const sessionStreams = streams(watcherSession.client).slice(1);
    const bystanderStreams = streams(bystander);
    // Every stream is open (its server side subscribed) before the writes it must see.
    await waitFor('every stream open', () =>
      [...viewerStreams, ...ticketStreams, ...sessionStreams, ...bystanderStreams].every((w) => w.started),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    await writer.client.todos.write({ todos: [{ content: 'Seen live', status: 'pending' }] });
    await writer.client.tasks.create({ listName: 'watched', subject: 'Seen live' });
    // Every stream but the run's (the run did not change) has had an event.
    const changed = (list: Watched[]) => list.filter((_, i) => i !== 2);
    await waitFor('events on every stream', () =>
      [...changed(viewerStreams), ...changed(ticketStreams), ...changed(bystanderStreams)].every((w) => w.events > 0),
    );
    expect([...viewerStreams, ...ticketStreams, ...sessionStreams, ...bystanderStreams].every((w) => w.ended === null)).toBe(true);

    const revokedAt = Date.now();
    await adminClient(server).keys.revoke({ id: viewer.id });
    await adminClient(server).keys.revoke({ id: agent.id });
    await waitFor(
      "the revoked callers' streams ended",
      () => [...viewerStreams, ...ticketStreams, ...sessionStreams].every((w) => w.ended !== null),
      guardMs(1_000),
    );
    // Target 1 s (the revocation poll runs every 100 ms); the bound is its failure guard on a busy machine.
    for (const w of [...viewerStreams, ...ticketStreams, ...sessionStreams]) expect(w.ended! - revokedAt).toBeLessThan(guardMs(1_000));

    // The bystander's streams are untouched and still live.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bystanderStreams.every((w) => w.ended === null)).toBe(true);
    const before = bystanderStreams[0]!.events;
    await writer.client.todos.write({ todos: [{ content: 'Still seen', status: 'pending' }] });
    await waitFor('the bystander still follows', () => bystanderStreams[0]!.events > before);
    for (const w of [...viewerStreams, ...ticketStreams, ...sessionStreams, ...bystanderStreams]) w.stop();
  });
});

describe('live streams end when their session token is dropped', () => {
  it('after 20 newer opens by external id, the dropped token is refused and its streams (header or ticket) end within 1 s', async () => {
    const agent = await key('agent');
    // The first open's token is the session's own (always kept); the second open's is the one the later opens drop.
    const first = await agent.client.sessions.open({ externalId: 'dropped-token' });
    const second = await agent.client.sessions.open({ externalId: 'dropped-token' });
    const dropped = createClient({ url: server.url, token: second.token });
    const droppedTicket = createClient({ url: server.url, token: second.token, streams: 'ticket' });
    const kept = createClient({ url: server.url, token: first.token });
    const watch = (c: AgentTasksClient) => [
      follow((h) => c.trpc.tasks.watch.subscribe({ listName: 'dropped' }, h)),
      follow((h) => c.trpc.todos.watch.subscribe({}, h)),
    ];
    const droppedStreams = [...watch(dropped), ...watch(droppedTicket)];
    const keptStreams = watch(kept);
    await waitFor('every stream open', () => [...droppedStreams, ...keptStreams].every((w) => w.started));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await kept.tasks.create({ listName: 'dropped', subject: 'Before' });
    await waitFor('the task seen on every task stream', () =>
      [...droppedStreams, ...keptStreams].filter((_, i) => i % 2 === 0).every((w) => w.events > 0),
    );

    expect([...droppedStreams, ...keptStreams].every((w) => w.ended === null)).toBe(true);
    let newest = second;
    for (let i = 0; i < 20; i++) newest = await agent.client.sessions.open({ externalId: 'dropped-token' });
    const droppedAt = Date.now();
    expect((await refused(dropped.workspaces.whoami())).message).toBe('Error: unauthorized: unknown API key or session token.');
    await waitFor("the dropped token's streams ended", () => droppedStreams.every((w) => w.ended !== null), guardMs(1_000));
    for (const w of droppedStreams) expect(w.ended! - droppedAt).toBeLessThan(guardMs(1_000));

    // New tasks and todo updates reach the kept token's streams, and a stream of the newest token; not the dropped ones.
    const seen = droppedStreams.map((w) => w.events);
    const newestStreams = watch(createClient({ url: server.url, token: newest.token }));
    await waitFor('the newest token streams', () => newestStreams.every((w) => w.started));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const keptBefore = keptStreams.map((w) => w.events);
    await kept.tasks.create({ listName: 'dropped', subject: 'After' });
    await kept.todos.write({ todos: [{ content: 'After', status: 'pending' }] });
    await waitFor(
      'the kept and newest streams follow',
      () => keptStreams.every((w, i) => w.events > keptBefore[i]!) && newestStreams.every((w) => w.events > 0),
    );
    expect(droppedStreams.map((w) => w.events)).toEqual(seen);
    expect([...keptStreams, ...newestStreams].every((w) => w.ended === null)).toBe(true);
    for (const w of [...droppedStreams, ...keptStreams, ...newestStreams]) w.stop();
  });
});
