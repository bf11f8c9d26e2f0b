// Black-box tests of MCP session limits (defect 1): under a 160 MB heap, 5,000 MCP sessions opened and dropped by one
// viewer key are capped (20 per key, 60 in all; 429 with Retry-After past either) and the server stays up; idle (5 s)
// sessions close; an API key's MCP session opens its agent session only when a tool needs it, and a closed MCP session
// leaves no session row behind unless it recorded something.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    process: true,
    env: {
      NODE_OPTIONS: '--max-old-space-size=160',
      AGENT_TASKS_MCP_SESSIONS_PER_KEY: '20',
      AGENT_TASKS_MCP_SESSIONS_MAX: '60',
      AGENT_TASKS_MCP_IDLE_MS: '5000',
    },
  });
});
afterAll(() => server.stop());

const key = async (role: 'agent' | 'viewer') => (await adminClient(server).keys.create({ name: `mcp ${role}`, role })).token;

/** One initialize request, never followed by anything (the session is dropped, not ended). */
async function initialize(token: string) {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
    }),
  });
  const text = await res.text();
  return { status: res.status, session: res.headers.get('mcp-session-id'), retryAfter: res.headers.get('retry-after'), text };
}

describe('MCP sessions are capped and closed when idle', () => {
  it('5,000 opened and dropped by one viewer key under a 160 MB heap: 20 open, the rest 429; the server stays up', async () => {
    const viewer = await key('viewer');
    const statuses = new Map<number, number>();
    let refusal: Awaited<ReturnType<typeof initialize>> | undefined;
    const queue = Array.from({ length: 5_000 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 25 }, async () => {
        while (queue.shift() !== undefined) {
          const answer = await initialize(viewer);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status === 429) refusal ??= answer;
        }
      }),
    );
    // Idle ones close after 5 s, so a few more than 20 may open over the run; never more than 20 at once.
    expect(statuses.get(200)).toBeGreaterThanOrEqual(20);
    expect(statuses.get(429)).toBeGreaterThan(4_500);
    expect([...statuses.keys()].sort()).toEqual([200, 429]);
    expect(JSON.parse(refusal!.text).error.message).toMatch(
      /^Error: too many open MCP sessions for this key \(20, at most 20\); end one with DELETE \/mcp, or wait: idle ones close after 5 s\.$/,
    );
    expect(Number(refusal!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.output()).not.toMatch(/heap out of memory/i);
  }, 120_000);

  it('60 in all: a fourth key is refused while three hold 20 each; idle sessions close and free the places', async () => {
    await new Promise((resolve) => setTimeout(resolve, 5_500)); // the previous test's sessions close
    const keys = await Promise.all([key('viewer'), key('viewer'), key('viewer'), key('viewer')]);
    const held: string[] = [];
    for (const k of keys.slice(0, 3)) {
      for (let i = 0; i < 20; i++) {
        const answer = await initialize(k);
        expect(answer.status).toBe(200);
        held.push(answer.session!);
      }
    }
    const full = await initialize(keys[3]);
    expect(full.status).toBe(429);
    expect(JSON.parse(full.text).error.message).toBe('Error: the server has too many open MCP sessions (60); try again shortly.');
    // Idle past 5 s: closed, their ids unknown, and a new session opens.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const gone = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${keys[0]}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': held[0]!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(gone.status).toBe(404);
    expect((await initialize(keys[3])).status).toBe(200);
  });

  it("an API key's MCP session opens its agent session on the first tool call; closed, it leaves no row unless it recorded something", async () => {
    const agent = await key('agent');
    const rows = () => countRows(server, 'Session', "title = 'MCP session'");
    const before = await rows();
    const connect = async () => {
      const client = new Client({ name: 'limits', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }),
      );
      return client;
    };
    const idle = await connect();
    await idle.listTools();
    expect(await rows()).toBe(before); // opened, listed, no session row
    const reader = await connect();
    await reader.callTool({ name: 'TaskList', arguments: {} });
    const writer = await connect();
    await writer.callTool({ name: 'todo_write', arguments: { todos: [{ content: 'Kept', status: 'pending' }] } });
    expect(await rows()).toBe(before + 2);
    // All three go idle and close: the reader's empty session row is removed, the writer's (it holds a list) stays.
    await waitFor('the idle sessions closed and the empty row removed', async () => (await rows()) === before + 1, 15_000);
    expect(
      await countRows(server, 'TodoUpdate', `"sessionId" IN (SELECT id FROM "Session" WHERE title = 'MCP session')`),
    ).toBeGreaterThanOrEqual(1);
    for (const c of [idle, reader, writer]) await c.close().catch(() => undefined);
  });
});
