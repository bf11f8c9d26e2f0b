// Black-box tests of the HTTP layer: answers carry no stack or internals, the access log, CORS, health and readiness.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, queryRows } from './support/database.ts';
import { adminClient, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  // NODE_ENV=development: no answer may carry a stack whatever NODE_ENV says.
  server = await startServer({
    env: { NODE_ENV: 'development', LOG_FORMAT: 'json', LOG_LEVEL: 'info', AGENT_TASKS_CORS_ORIGINS: 'https://dash.example.com' },
  });
});
afterAll(() => server.stop());

interface Answer {
  status: number;
  text: string;
  requestId: string | null;
}

async function call(path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, init);
  return { status: res.status, text: await res.text(), requestId: res.headers.get('x-request-id') };
}

const post = (procedure: string, body: unknown, token?: string) =>
  call(`/trpc/${procedure}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

/** Nothing internal: no stack, no source file, no module path, no SQL, no library wording. */
function expectNoInternals(answer: Answer) {
  expect(answer.text).not.toMatch(/stack|\.ts\b|\.js:\d|node_modules|\/(work|home|root|tmp)\/|\bat \w+ \(|SELECT|INSERT|prisma|sqlite/i);
}

const messageOf = (answer: Answer) => (JSON.parse(answer.text) as { error: { message: string } }).error.message;

/** The JSON log lines the server printed so far. */
const logLines = () =>
  server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('no stack or internals in any answer', () => {
  it('400, 401, 403, 404, 409 and unknown routes', async () => {
    const s = await sessionClient(server);
    const { token: viewerToken } = await adminClient(server).keys.create({ name: 'plain viewer', role: 'viewer' });

    const bad = await post('todos.write', { todos: [{ content: '', status: 'done' }] }, s.token);
    expect(bad.status).toBe(400);
    const unauthenticated = await post('todos.write', { todos: [] });
    expect(unauthenticated.status).toBe(401);
    const forbidden = await post('todos.write', { todos: [] }, viewerToken);
    expect(forbidden.status).toBe(403);
    const noProcedure = await post('todo.nothing', {}, s.token);
    expect(noProcedure.status).toBe(404);
    expect(messageOf(noProcedure)).toMatch(/^Error: /);
    await s.client.todos.write({ todos: [] });
    const stale = await post('todos.write', { todos: [], baseRevision: 0 }, s.token);
    expect(stale.status).toBe(409);
    const noRoute = await call('/nowhere', { headers: { accept: 'application/json' } });
    expect(noRoute.status).toBe(404);
    expect(JSON.parse(noRoute.text)).toEqual({ error: 'Error: not found: GET /nowhere.' });
    const notJson = await call('/trpc/todos.write', {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: '{"todos":',
    });
    expect(notJson.status).toBe(400);
    const huge = await call('/trpc/todos.write', {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ todos: [{ content: 'x'.repeat(17 * 1024 * 1024), status: 'pending' }] }),
    });
    expect(huge.status).toBe(413);
    expect(messageOf(huge)).toBe('Error: the request body is larger than 16 MiB.');
    for (const answer of [bad, unauthenticated, forbidden, noProcedure, stale, noRoute, notJson, huge]) {
      expectNoInternals(answer);
      expect(answer.requestId).toMatch(/^[\w-]+$/);
    }
    expect(messageOf(unauthenticated)).toBe('Error: unauthorized: send an API key or session token as `Authorization: Bearer <token>`.');
  });

  it('500: the answer names only the request id; the log has the stack under the same id', async () => {
    const s = await sessionClient(server);
    // A real fault: the table behind todos.write disappears underneath the server.
    await execute(server, ['ALTER TABLE "TodoUpdate" RENAME TO "TodoUpdate_moved"']);
    try {
      const failed = await post('todos.write', { todos: [{ content: 'A', status: 'pending' }] }, s.token);
      expect(failed.status).toBe(500);
      expectNoInternals(failed);
      const id = failed.requestId ?? '';
      expect(messageOf(failed)).toBe(`Error: internal server error (request ${id}).`);
      const logged = logLines().find((line) => line.msg === 'unexpected error' && line.req === id) as
        { err?: { stack?: string } } | undefined;
      expect(logged?.err?.stack).toMatch(/TodoUpdate/);
    } finally {
      await execute(server, ['ALTER TABLE "TodoUpdate_moved" RENAME TO "TodoUpdate"']);
    }
  });
});

describe('access log', () => {
  it('one line per request with id, procedure, actor, status and duration; never a token', async () => {
    const s = await sessionClient(server);
    const res = await fetch(`${server.url}/trpc/todos.write`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}`, 'x-request-id': 'trace-abc-123' },
      body: JSON.stringify({ todos: [{ content: 'Logged', status: 'pending' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('trace-abc-123');
    const line = logLines().find((l) => l.req === 'trace-abc-123');
    expect(line).toMatchObject({ msg: 'request', method: 'POST', route: 'todos.write', actor: s.session.id, status: 200 });
    expect(typeof line?.ms).toBe('number');
    expect(server.output()).not.toContain(s.token);
    expect(server.output()).not.toContain(server.adminKey);
  });
});

describe('CORS', () => {
  it('answers the preflight of an allowed origin, without credentials', async () => {
    const res = await fetch(`${server.url}/trpc/todos.write`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://dash.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://dash.example.com');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const actual = await fetch(`${server.url}/healthz`, { headers: { origin: 'https://dash.example.com' } });
    expect(actual.headers.get('access-control-allow-origin')).toBe('https://dash.example.com');
  });

  it('gives an origin outside the allow-list no CORS grant', async () => {
    const res = await fetch(`${server.url}/trpc/todos.write`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const get = await fetch(`${server.url}/healthz`, { headers: { origin: 'https://evil.example.com' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('grants nothing cross-origin when no origin is configured', async () => {
    const plain = await startServer();
    try {
      const res = await fetch(`${plain.url}/trpc/todos.write`, {
        method: 'OPTIONS',
        headers: { origin: 'https://dash.example.com', 'access-control-request-method': 'POST' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await plain.stop();
    }
  });
});

describe('health', () => {
  it('/healthz answers alive; /readyz answers ready, and not ready when a migration is missing', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true });

    const [row = {}] = await queryRows(server, 'SELECT * FROM _prisma_migrations ORDER BY migration_name LIMIT 1');
    await execute(server, ['DELETE FROM _prisma_migrations WHERE id = ?', row.id]);
    try {
      const notReady = await fetch(`${server.url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ ready: false, reason: `migrations not applied: ${String(row.migration_name)}` });
    } finally {
      const columns = Object.keys(row);
      await execute(server, [
        `INSERT INTO _prisma_migrations (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        ...Object.values(row),
      ]);
    }
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
