// Black-box test of graceful shutdown: SIGTERM during a burst of writes loses no acknowledged write, leaves no recorded
// write unanswered, and exits 0.
import { createClient } from '@agent-tasks/sdk';
import { describe, expect, it } from 'vitest';
import { countRows, sessionClient } from './support/fixtures.ts';
import { exitOf, startServer } from './support/server.ts';

describe('graceful shutdown', () => {
  it('SIGTERM under concurrent writers and an open live stream: exit 0, every acknowledged write present after restart, every recorded one answered', async () => {
    // A long deadline: the process must end well before it, because live streams are ended, not waited for.
    const server = await startServer({ process: true, env: { AGENT_TASKS_SHUTDOWN_TIMEOUT_MS: '30000' } });
    const writers = await Promise.all(Array.from({ length: 8 }, (_, i) => sessionClient(server, `writer ${i}`)));
    const acknowledged = new Map<string, number[]>();
    let stopping = false;

    const watched: number[] = [];
    const first = writers[0];
    if (!first) throw new Error('no writer');
    const subscription = first.client.todos.watch({}, { onData: (event) => void watched.push(Number(event.id)) });

    const loops = writers.map(async (writer) => {
      const acks: number[] = [];
      acknowledged.set(writer.session.id, acks);
      for (let n = 1; ; n += 1) {
        try {
          const answer = await writer.client.todos.write({ todos: [{ content: `step ${n}`, status: 'in_progress' }] });
          acks.push(answer.revision);
        } catch {
          if (stopping) return; // refused or connection closed after SIGTERM: not acknowledged, so not counted
        }
      }
    });

    // Signal once the burst is under way: writes acknowledged and the live stream delivering.
    const acked = () => [...acknowledged.values()].reduce((sum, acks) => sum + acks.length, 0);
    for (let waited = 0; (acked() < 16 || watched.length === 0) && waited < 20_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const signalled = Date.now();
    stopping = true;
    server.process().kill('SIGTERM');
    expect(await exitOf(server.process())).toBe(0);
    const tookMs = Date.now() - signalled;
    await Promise.all(loops);
    subscription.unsubscribe();
    expect(tookMs).toBeLessThan(20_000);
    expect(server.output()).toContain('"msg":"stopped"');

    const total = [...acknowledged.values()].reduce((sum, acks) => sum + acks.length, 0);
    expect(total).toBeGreaterThan(8);
    expect(watched.length).toBeGreaterThan(0);

    await server.restart();
    try {
      for (const writer of writers) {
        const acks = acknowledged.get(writer.session.id) ?? [];
        const again = createClient({ url: server.url, token: writer.token });
        const view = await again.sessions.get();
        // Every write the server recorded was answered: its answer left before the connections were closed.
        expect(view.todo.revision).toBe(Math.max(0, ...acks));
        for (const revision of acks) {
          expect(await countRows(server, 'TodoUpdate', '"sessionId" = ? AND revision = ?', writer.session.id, revision)).toBe(1);
        }
      }
    } finally {
      await server.stop();
    }
  });
});

describe('live streams at a shutdown', () => {
  it("a stream ended by the shutdown closes without tRPC's `return`, so its client reconnects; one whose key was revoked ends with it", async () => {
    const server = await startServer({ process: true });
    const admin = createClient({ url: server.url, token: server.adminKey });
    const kept = await admin.keys.create({ name: 'kept', role: 'viewer' });
    const revoked = await admin.keys.create({ name: 'revoked', role: 'viewer' });
    const { session } = await sessionClient(server, 'watched');
    /** Everything the stream sent, until it ended. */
    const open = async (token: string) => {
      const input = encodeURIComponent(JSON.stringify({ sessionId: session.id }));
      const res = await fetch(`${server.url}/trpc/todos.watch?input=${input}`, { headers: { authorization: `Bearer ${token}` } });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      let connected: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (connected = resolve));
      const ended = (async () => {
        for (;;) {
          const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
          if (done) return (connected(), text);
          text += decoder.decode(value, { stream: true });
          if (text.includes('event: connected')) connected();
        }
      })();
      await started;
      return { ended };
    };
    try {
      const revokedStream = await open(revoked.token);
      const keptStream = await open(kept.token);
      await admin.keys.revoke({ id: revoked.key.id });
      expect(await revokedStream.ended).toMatch(/event: return\n/);
      expect(await server.stop()).toBe(0);
      const text = await keptStream.ended;
      expect(text).toMatch(/^event: connected\n/);
      expect(text).not.toMatch(/event: return/);
    } finally {
      await server.stop();
    }
  });
});
