// Black-box tests of a database held by someone else (defect 6): a writer outside the server holding SQLite's lock (or
// PostgreSQL's table locks) makes writes wait up to the busy timeout, then answer 503 with Retry-After (logged, nothing
// recorded), never 500;
// a lock released in time is waited for; a second server process on the same database starts and both serve writes.
import { createClient } from '@agent-tasks/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, sessionClient } from './support/fixtures.ts';
import { holdWriteLock } from './support/database.ts';
import { type RunningServer, type StartOptions, startServer } from './support/server.ts';

const servers: RunningServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.stop())));

async function server(env: Record<string, string>, options: StartOptions = {}) {
  const s = await startServer({ env: { LOG_FORMAT: 'json', ...env }, ...options });
  servers.push(s);
  return s;
}

const write = (s: RunningServer, token: string, content: string) =>
  fetch(`${s.url}/trpc/todos.write`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ todos: [{ content, status: 'pending' }] }),
  }).then(async (res) => ({
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as { error?: { message: string; data: { appCode: string } } },
    at: Date.now(),
  }));

describe('a database held by another writer', () => {
  it('past the busy timeout: 503 with Retry-After and the UNAVAILABLE code, after the wait, logged; nothing recorded', async () => {
    const s = await server({ AGENT_TASKS_BUSY_TIMEOUT_MS: '1000' });
    const { session, token } = await sessionClient(s, 'busy');
    const release = await holdWriteLock(s);
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => write(s, token, `Write ${i}`)));
    await release();
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(a.retryAfter).toBe('1');
      expect(a.body.error).toMatchObject({
        message: 'Error: the database is busy (another process held its write lock too long); retry shortly.',
        data: { appCode: 'UNAVAILABLE' },
      });
      expect(a.at - started).toBeGreaterThanOrEqual(900); // waited for the lock, not refused at once
    }
    expect(await countRows(s, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(0);
    const logged = s
      .output()
      .split('\n')
      .filter((l) => l.includes('database busy: answered 503'));
    expect(logged.length).toBeGreaterThanOrEqual(10);
    expect(s.output()).not.toContain('"level":50');
    // Released: the same write goes through.
    expect((await write(s, token, 'After')).status).toBe(200);
  });

  it('a lock released within the busy timeout is waited for: every write succeeds', async () => {
    const s = await server({ AGENT_TASKS_BUSY_TIMEOUT_MS: '5000' });
    const { session, token } = await sessionClient(s, 'waits');
    const release = await holdWriteLock(s);
    setTimeout(() => void release(), 400);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => write(s, token, `Write ${i}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(await countRows(s, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(10);
  });

  it('a second server process on the same database starts, and both serve concurrent writes', async () => {
    const first = await server({});
    const second = await server({}, { database: first, process: true });
    const agent = (await adminClient(first).keys.create({ name: 'two processes', role: 'agent' })).token;
    const sessions = await Promise.all(
      [first, second].map(async (s) => {
        const opened = await createClient({ url: s.url, token: agent }).sessions.open({ title: `on ${s.url}` });
        return { s, token: opened.token, id: opened.session.id };
      }),
    );
    const answers = await Promise.all(
      sessions.flatMap(({ s, token }) => Array.from({ length: 25 }, (_, i) => write(s, token, `Write ${i}`))),
    );
    expect(answers.filter((a) => a.status !== 200).map((a) => a.status)).toEqual([]);
    for (const { id } of sessions) expect(await countRows(first, 'TodoUpdate', '"sessionId" = ?', id)).toBe(25);
  });
});
