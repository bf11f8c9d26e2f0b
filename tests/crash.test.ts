// Crash test: `serve --workers 2` killed with SIGKILL (primary and workers at once) in the middle of a burst of
// writes through both workers; after a restart every acknowledged write is there, with what it wrote.
import { createClient } from '@agent-tasks/sdk';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { sqliteOnly } from './support/database.ts';
import { adminClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';

let server: RunningServer | undefined;
afterAll(() => server?.stop());

const WRITERS = 16;

// The --workers cluster is SQLite's (a PostgreSQL DATABASE_URL refuses --workers above 1).
sqliteOnly('kill -9 under load, --workers 2', () => {
  it('every acknowledged write is present after a restart, and the file is intact', async () => {
    server = await startServer({ process: true, env: { AGENT_TASKS_WORKERS: '2' } });
    const running = server;
    const agent = createClient({
      url: running.url,
      token: (await adminClient(running).keys.create({ name: 'crash', role: 'agent' })).token,
    });
    const sessions = await Promise.all(Array.from({ length: WRITERS }, (_, i) => agent.sessions.open({ title: `writer ${i}` })));
    /** Per session: the revisions the server acknowledged, with the list each recorded. */
    const acknowledged = sessions.map(() => new Map<number, string>());
    let stop = false;
    const writers = sessions.map(async ({ token }, i) => {
      const client = createClient({ url: running.url, token });
      for (let n = 0; !stop; n++) {
        const content = `writer ${i} step ${n}`;
        try {
          const { revision } = await client.todos.write({ todos: [{ content, status: 'in_progress' }] });
          acknowledged[i]?.set(revision, content);
        } catch {
          return; // the server is gone: this write was not acknowledged
        }
      }
    });

    // Until both workers have taken writes and there is a fair number of them.
    await waitFor(
      'writes through both workers',
      () => {
        const pids = new Set(
          running
            .output()
            .split('\n')
            .filter((line) => line.includes('"route":"todos.write"') && line.includes('"status":200'))
            .map((line) => line.match(/"pid":(\d+)/)?.[1]),
        );
        return pids.size >= 2 && acknowledged.reduce((sum, m) => sum + m.size, 0) >= 200;
      },
      30_000,
    );

    // Every process of the server, killed at once: the primary and its workers (all log with their pid).
    const pids = new Set([...running.output().matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1])));
    pids.add(running.process().pid ?? 0);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    stop = true;
    await Promise.all(writers);
    const total = acknowledged.reduce((sum, m) => sum + m.size, 0);
    expect(total).toBeGreaterThanOrEqual(200);

    await running.restart();
    const db = new Database(running.databaseFile, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const row = db.prepare('SELECT "items" FROM "TodoUpdate" WHERE "sessionId" = ? AND "revision" = ?');
      sessions.forEach(({ session }, i) => {
        for (const [revision, content] of acknowledged[i] ?? []) {
          const found = row.get(session.id, revision) as { items: string } | undefined;
          expect(found, `${session.id} revision ${revision}`).toBeDefined();
          expect(JSON.parse(found?.items ?? '[]')).toEqual([{ content, status: 'in_progress' }]);
        }
      });
    } finally {
      db.close();
    }
    // And the restarted server serves them.
    const last = sessions[0];
    const latest = Math.max(...(acknowledged[0]?.keys() ?? [0]));
    expect((await createClient({ url: running.url, token: last?.token ?? '' }).todos.get()).revision).toBeGreaterThanOrEqual(latest);
  });
});
