// Black-box tests of where the live feeds start (todos.watch, tasks.watch, runs.watch): without lastEventId they stream
// from now by default, `from: "start"` replays what was recorded first, and lastEventId always resumes after that event.
import type { Subscription } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyClient, nameAndIntake, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

/** Subscribes with `subscribe`, waits until the stream is open, and collects event ids. */
async function collect(subscribe: (handlers: { onData(e: { id: string }): void; onStarted(): void }) => Subscription) {
  const ids: string[] = [];
  let sub: Subscription | undefined;
  await new Promise<void>((resolve) => {
    sub = subscribe({ onData: (e) => ids.push(e.id), onStarted: resolve });
  });
  await new Promise((r) => setTimeout(r, 300)); // let a replay, if any, arrive
  const until = async (n: number) => {
    for (let i = 0; i < 500 && ids.length < n; i++) await new Promise((r) => setTimeout(r, 20));
    return ids;
  };
  return { ids, until, stop: () => sub?.unsubscribe() };
}

describe('from: "now" (the default) | "start"', () => {
  it('todos.watch', async () => {
    const s = await sessionClient(server);
    const viewer = await keyClient(server, 'viewer');
    await s.client.todos.write({ todos: [{ content: 'A', status: 'pending' }] });
    await s.client.todos.write({ todos: [{ content: 'A', status: 'in_progress' }] });
    const now = await collect((h) => viewer.todos.watch({ sessionId: s.session.id }, h));
    const start = await collect((h) => viewer.todos.watch({ sessionId: s.session.id, from: 'start' }, h));
    const resumed = await collect((h) => viewer.todos.watch({ sessionId: s.session.id, from: 'now', lastEventId: '1' }, h));
    expect(now.ids).toEqual([]);
    expect(start.ids).toEqual(['1', '2']);
    expect(resumed.ids).toEqual(['2']);
    await s.client.todos.write({ todos: [{ content: 'A', status: 'completed' }] });
    expect(await now.until(1)).toEqual(['3']);
    expect(await start.until(3)).toEqual(['1', '2', '3']);
    for (const feed of [now, start, resumed]) feed.stop();
  });

  it('tasks.watch', async () => {
    const s = await sessionClient(server);
    const viewer = await keyClient(server, 'viewer');
    const listName = 'watched-from';
    await s.client.tasks.create({ listName, subject: 'A' });
    const now = await collect((h) => viewer.tasks.watch({ listName }, h));
    const start = await collect((h) => viewer.tasks.watch({ listName, from: 'start' }, h));
    expect(now.ids).toEqual([]);
    expect(start.ids).toEqual(['1']);
    await s.client.tasks.create({ listName, subject: 'B' });
    expect(await now.until(1)).toEqual(['2']);
    expect(await start.until(2)).toEqual(['1', '2']);
    now.stop();
    start.stop();
  });

  it('runs.watch', async () => {
    const s = await sessionClient(server);
    const viewer = await keyClient(server, 'viewer');
    const { startAttemptId } = await s.client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
    const run = await nameAndIntake(s.client, {
      runId: (await s.client.runs.execute({ startAttemptId })).id,
      name: 'Watched',
      tasks: [
        { action: 'A', expected_result: 'a' },
        { action: 'B', expected_result: 'b' },
      ],
      progress_checklist_outcome: 'Two',
    });
    const now = await collect((h) => viewer.runs.watch({ runId: run.id }, h));
    const start = await collect((h) => viewer.runs.watch({ runId: run.id, from: 'start' }, h));
    expect(now.ids).toEqual([]);
    expect(start.ids).toEqual([String(run.version)]);
    await s.client.runs.step({ runId: run.id, attemptId: run.attemptId ?? '', evidence: 'e', progress_execution_outcome: 'o' });
    expect(await now.until(1)).toEqual([String(run.version + 1)]);
    now.stop();
    start.stop();
  });

  it('refuses any other value with the field named', async () => {
    const viewer = await keyClient(server, 'viewer');
    const bad = await refused(
      new Promise((resolve, reject) => {
        const sub = viewer.tasks.watch(
          { listName: 'x', from: 'beginning' as never },
          { onData: resolve, onError: (e) => (sub.unsubscribe(), reject(e)) },
        );
      }),
    );
    expect(bad.message).toBe('Error: invalid input: `from` must be "now" or "start".');
  });
});
