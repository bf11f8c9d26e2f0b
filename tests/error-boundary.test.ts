// One error boundary: each cause a request can fail with is answered with the same status, text and code (`appCode`)
// over tRPC, plain HTTP and MCP (JSON-RPC errors outside a session carry `data.appCode`; a tool's refusal is its text),
// with Retry-After wherever it says to try again; each provoked for real against the running server.
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { execute, holdWriteLock, testDatabase } from './support/database.ts';
import { adminClient, countRows, sessionClient } from './support/fixtures.ts';
import { createTestDatabase } from './support/postgres.ts';
import { type RunningServer, startServer } from './support/server.ts';

const servers: RunningServer[] = [];
const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all(servers.map((s) => s.stop()));
});

async function server(env: Record<string, string> = {}, options: Parameters<typeof startServer>[0] = {}) {
  const s = await startServer({ env: { LOG_FORMAT: 'json', ...env }, ...options });
  servers.push(s);
  return s;
}

/** What a client reads of a refusal: status, Retry-After, the text and the stable code where the shape carries one. */
interface Seen {
  status: number;
  retryAfter: string | null;
  text: string | undefined;
  appCode?: string | null | undefined;
}

const BUSY = 'Error: the database is busy (another process held its write lock too long); retry shortly.';
const UNREACHABLE = 'Error: the database does not answer; retry shortly.';

/** A new key's token. */
const keyToken = async (s: RunningServer, role: 'agent' | 'viewer') =>
  (await adminClient(s).keys.create({ name: `${role} key`, role })).token;

/** A tRPC call as a client sends it: the answer's `error.message` and `error.data.appCode`. */
async function overTrpc(s: RunningServer, procedure: string, token: string, body?: unknown, init: RequestInit = {}): Promise<Seen> {
  const res = await fetch(`${s.url}/trpc/${procedure}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const json = (await res.json()) as { error?: { message?: string; data?: { appCode?: string | null } } };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text: json.error?.message, appCode: json.error?.data?.appCode };
}

/** A plain HTTP request (outside tRPC and MCP): the answer's `{ error }`. */
async function overPlain(s: RunningServer, path: string, token?: string): Promise<Seen> {
  const res = await fetch(`${s.url}${path}`, {
    headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  const json = (await res.json()) as { error?: string };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text: json.error };
}

/** The answer to a body past /trpc's limit. */
const TOO_LARGE = { status: 413, retryAfter: null, text: 'Error: the request body is larger than 16 MiB.', appCode: 'INVALID_INPUT' };

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'error-boundary', version: '1' } },
};

/** An MCP request outside any session (initialize): the JSON-RPC error's `message` and `data.appCode`. */
async function overMcp(s: RunningServer, token: string, body: unknown = initialize, headers: Record<string, string> = {}): Promise<Seen> {
  const res = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const json = (await res.json()) as { error?: { message?: string; data?: { appCode?: string | null } } };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text: json.error?.message, appCode: json.error?.data?.appCode };
}

/** An MCP session's tool call: the tool's text (a refusal is the boundary's text, `isError`). */
async function mcpClient(s: RunningServer, token: string, requestId?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(requestId ? { 'x-request-id': requestId } : {}) };
  const client = new Client({ name: 'error-boundary', version: '1.0.0' });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers } }));
  return async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    return { text: (result.content as { text: string }[])[0]?.text, isError: result.isError === true };
  };
}

describe('one answer per cause, whichever way the request came', () => {
  it('a domain refusal (unauthenticated): 401, its text and UNAUTHENTICATED over tRPC and MCP', async () => {
    const s = await server();
    const expected = {
      status: 401,
      retryAfter: null,
      text: 'Error: unauthorized: unknown API key or session token.',
      appCode: 'UNAUTHENTICATED',
    };
    expect(await overTrpc(s, 'keys.list', 'atk_not_a_key')).toEqual(expected);
    expect(await overMcp(s, 'atk_not_a_key')).toEqual(expected);
  });

  it("a domain refusal inside a call (a viewer's write): the same text over tRPC and as the MCP tool's refusal", async () => {
    const s = await server();
    const viewer = await keyToken(s, 'viewer');
    const overTrpcCall = await overTrpc(s, 'tasks.create', viewer, { subject: 'Not mine to add' });
    expect(overTrpcCall).toMatchObject({ status: 403, appCode: 'FORBIDDEN' });
    expect(overTrpcCall.text).toMatch(/^Error: forbidden: /);
    const tool = await mcpClient(s, viewer);
    expect(await tool('TaskCreate', { subject: 'Not mine to add', description: 'x' })).toEqual({ text: overTrpcCall.text, isError: true });
    expect(await countRows(s, 'Task')).toBe(0);
  });

  it('an unknown procedure or route: 404 and NOT_FOUND over tRPC; the plain answer names the route', async () => {
    const s = await server();
    expect(await overTrpc(s, 'nope.nothing', s.adminKey)).toEqual({
      status: 404,
      retryAfter: null,
      text: 'Error: no procedure found on path "nope.nothing".',
      appCode: 'NOT_FOUND',
    });
    expect(await overPlain(s, '/nowhere')).toEqual({ status: 404, retryAfter: null, text: 'Error: not found: GET /nowhere.' });
  });

  it("a body past the limit: 413 and INVALID_INPUT over tRPC whether its length is declared (the app's limit) or not (the front door's)", async () => {
    const s = await server();
    const { token } = await sessionClient(s, 'large bodies');
    const body = JSON.stringify({ todos: [{ content: 'x'.repeat(17 * 1024 * 1024), status: 'pending' }] });
    expect(await overTrpc(s, 'todos.write', token, body)).toEqual(TOO_LARGE);
    // Sent in chunks, its length unknown until it has arrived.
    const chunked = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 17; i++) controller.enqueue(new TextEncoder().encode(body.slice(i * 1024 * 1024, (i + 1) * 1024 * 1024)));
        controller.enqueue(new TextEncoder().encode(body.slice(17 * 1024 * 1024)));
        controller.close();
      },
    });
    expect(await overTrpc(s, 'todos.write', token, undefined, { method: 'POST', body: chunked, duplex: 'half' })).toEqual(TOO_LARGE);
    // MCP's own limit is smaller; the answer has the same code.
    expect(await overMcp(s, token, JSON.stringify({ ...initialize, padding: 'x'.repeat(5 * 1024 * 1024) }))).toEqual({
      status: 413,
      retryAfter: null,
      text: 'Error: the request body is larger than 4 MB.',
      appCode: 'INVALID_INPUT',
    });
    expect(await countRows(s, 'TodoUpdate')).toBe(0);
  });

  it('a body past the limit sent slowly, as a busy client sends it: the client reads its 413, not a reset connection', async () => {
    // The answer comes while the last megabytes are still on their way; the server reads them away rather than closing
    // the connection under them (a write then fails with EPIPE and the client never sees the answer). Its own process.
    const s = await server({}, { process: true });
    const { token } = await sessionClient(s, 'slow large bodies');
    const body = JSON.stringify({ todos: [{ content: 'x'.repeat(20 * 1024 * 1024), status: 'pending' }] });
    const slowly = () => {
      let sent = 0;
      return new ReadableStream({
        async pull(controller) {
          if (sent * 1024 * 1024 >= body.length) return controller.close();
          await new Promise((resolve) => setTimeout(resolve, 100));
          controller.enqueue(new TextEncoder().encode(body.slice(sent * 1024 * 1024, ++sent * 1024 * 1024)));
        },
      });
    };
    for (let i = 0; i < 5; i++)
      expect(await overTrpc(s, 'todos.write', token, undefined, { method: 'POST', body: slowly(), duplex: 'half' })).toEqual(TOO_LARGE);
    expect(await countRows(s, 'TodoUpdate')).toBe(0);
  });

  it("Node's HTTP parser: headers past 16 KiB are answered 431 with the one text on /trpc, /mcp and elsewhere", async () => {
    const s = await server();
    const long = 'x'.repeat(20_000);
    for (const path of [`/trpc/tasks.list?input=${long}`, `/mcp?${long}`, `/runs/${long}`]) {
      const res = await fetch(`${s.url}${path}`);
      expect(res.status, path.slice(0, 6)).toBe(431);
      expect(await res.json()).toEqual({
        error: 'Error: the request line and headers are larger than 16 KiB; send a shorter URL (a large input goes in a POST body).',
      });
    }
  });

  it('a fault: 500 naming the request id over tRPC and in the MCP tool, each logged with its stack under that id', async () => {
    const s = await server();
    const session = await sessionClient(s, 'fault');
    const agent = await keyToken(s, 'agent');
    const tool = await mcpClient(s, agent, 'mcp-fault-1');
    // A real fault: the table behind todos.write disappears underneath the server.
    await execute(s, ['ALTER TABLE "TodoUpdate" RENAME TO "TodoUpdate_moved"']);
    try {
      const viaTrpc = await overTrpc(
        s,
        'todos.write',
        session.token,
        { todos: [{ content: 'A', status: 'pending' }] },
        {
          headers: { 'x-request-id': 'trpc-fault-1' },
        },
      );
      expect(viaTrpc).toEqual({
        status: 500,
        retryAfter: null,
        text: 'Error: internal server error (request trpc-fault-1).',
        appCode: null,
      });
      expect(await tool('todo_write', { todos: [{ content: 'A', status: 'pending' }] })).toEqual({
        text: 'Error: internal server error (request mcp-fault-1).',
        isError: true,
      });
      const logged = s
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"unexpected error"'))
        .map((line) => JSON.parse(line) as { req?: string; err?: { stack?: string } });
      for (const id of ['trpc-fault-1', 'mcp-fault-1']) expect(logged.find((l) => l.req === id)?.err?.stack, id).toBeTruthy();
    } finally {
      await execute(s, ['ALTER TABLE "TodoUpdate_moved" RENAME TO "TodoUpdate"']);
    }
  });

  it('a database held by another writer: 503, Retry-After and UNAVAILABLE over tRPC and MCP; the busy text in the tool', async () => {
    const s = await server({ AGENT_TASKS_BUSY_TIMEOUT_MS: '500' });
    const { session, token } = await sessionClient(s, 'busy');
    const agent = await keyToken(s, 'agent');
    const tool = await mcpClient(s, agent);
    expect((await tool('todo_write', { todos: [{ content: 'Before', status: 'pending' }] })).isError).toBe(false);
    const release = await holdWriteLock(s);
    try {
      const expected = { status: 503, retryAfter: '1', text: BUSY, appCode: 'UNAVAILABLE' };
      expect(await overTrpc(s, 'todos.write', token, { todos: [{ content: 'Held', status: 'pending' }] })).toEqual(expected);
      // Opening an MCP session writes it down: held, it is answered as the tRPC call is (before: no Retry-After, no code).
      expect(await overMcp(s, agent)).toEqual(expected);
      // Logged as the HTTP layer logs it: a warning naming the cause, never an unexpected error.
      const busyLines = s
        .output()
        .split('\n')
        .filter((line) => line.includes('database busy: answered 503'));
      expect(busyLines.some((line) => line.includes('"route":"/mcp"'))).toBe(true);
      expect(s.output()).not.toContain('"level":50');
      expect(await tool('todo_write', { todos: [{ content: 'Held', status: 'pending' }] })).toEqual({ text: BUSY, isError: true });
    } finally {
      await release();
    }
    expect(await countRows(s, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(0);
  });
});

/** A TCP relay in front of PostgreSQL: `cut()` closes it and every connection through it (the database is gone);
 * `drop()` closes every connection and then each new one as soon as it is made (a proxy whose database went away). */
function relayTo(target: URL) {
  const sockets = new Set<Socket>();
  let relay: Server | undefined;
  let dropping = false;
  const open = () =>
    new Promise<number>((resolve) => {
      relay = createServer((client) => {
        if (dropping) return void client.destroy();
        const upstream = connect(Number(target.port), target.hostname);
        const end = () => [client, upstream].forEach((s) => (s.destroy(), sockets.delete(s)));
        for (const s of [client, upstream]) sockets.add(s.on('error', end).on('close', end));
        client.pipe(upstream).pipe(client);
      });
      relay.listen(0, '127.0.0.1', () => resolve((relay?.address() as AddressInfo).port));
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (relay?.listening) relay.close(() => resolve());
      else resolve();
    });
  const drop = () => {
    dropping = true;
    for (const s of sockets) s.destroy();
  };
  return { open, cut, drop };
}

describe.skipIf(testDatabase() !== 'postgres')('a database that does not answer (PostgreSQL)', () => {
  it.each([
    ['refuses connections', 'cut'],
    ['drops each connection as it is made', 'drop'],
  ] as const)('503, Retry-After and the one text over tRPC, plain HTTP and MCP when it %s', async (_, outage) => {
    const database = await createTestDatabase();
    const relay = relayTo(new URL(database.url));
    const relayed = new URL(database.url);
    relayed.host = `127.0.0.1:${await relay.open()}`;
    const s = await startServer({ databaseUrl: relayed.toString(), env: { LOG_FORMAT: 'json' } });
    try {
      const { token } = await sessionClient(s, 'before the outage');
      const agent = await keyToken(s, 'agent');
      // A connection the pool opens then ends before it is ready ("Connection terminated unexpectedly"): answered 500
      // before, as a fault.
      if (outage === 'cut') await relay.cut();
      else relay.drop();
      const expected = { status: 503, retryAfter: '1', text: UNREACHABLE, appCode: 'UNAVAILABLE' };
      expect(await overTrpc(s, 'todos.write', token, { todos: [{ content: 'Gone', status: 'pending' }] })).toEqual(expected);
      expect(await overMcp(s, agent)).toEqual(expected);
      expect(await overPlain(s, '/runs/run_gone', s.adminKey)).toEqual({ status: 503, retryAfter: '1', text: UNREACHABLE });
    } finally {
      await s.stop();
      await relay.cut();
      await database.drop();
    }
  });
});
