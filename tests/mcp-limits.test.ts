// Black-box tests of MCP session limits (defect 1): under a 160 MB heap, 5,000 MCP sessions opened and dropped by one
// viewer key are capped (20 per key, 60 in all; 429 with Retry-After past either) and the server stays up; idle (5 s)
// sessions close; an API key's MCP session opens its agent session only when a tool needs it, and a closed MCP session
// leaves no session row behind unless it recorded something. Each workspace has its own share: at most 40 per workspace,
// and when all 60 are taken a workspace below its share (60 / workspaces holding sessions) gets in by closing the least
// recently used session of the workspace furthest over its share.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@agent-tasks/sdk';
import { adminClient, countRows } from './support/fixtures.ts';
import { queryRows } from './support/database.ts';
import { type McpInitializeAnswer, initializeMcp } from './support/mcp-open.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';

const limits = { AGENT_TASKS_MCP_SESSIONS_PER_KEY: '20', AGENT_TASKS_MCP_SESSIONS_MAX: '60', AGENT_TASKS_MCP_IDLE_MS: '5000' };
/** A process of its own for the heap limit, its sessions idle for 10 min (the flood drops 5,000 of them: none may go
 * idle and free its place however long the flood takes on a busy machine); the idle tests on a manual clock, so time
 * passes without waiting for it;
 * the shares on a manual clock too (each open a millisecond after the last, so "least recently used" is one session). */
let server: RunningServer;
let idleServer: RunningServer;
let shareServer: RunningServer;
beforeAll(async () => {
  [server, idleServer, shareServer] = await Promise.all([
    startServer({ process: true, env: { NODE_OPTIONS: '--max-old-space-size=160', ...limits, AGENT_TASKS_MCP_IDLE_MS: '600000' } }),
    startServer({ manualTime: true, env: limits }),
    startServer({ manualTime: true, env: { ...limits, AGENT_TASKS_MCP_SESSIONS_PER_WORKSPACE: '40', AGENT_TASKS_MCP_IDLE_MS: '600000' } }),
  ]);
});
afterAll(() => Promise.all([server?.stop(), idleServer?.stop(), shareServer?.stop()]));

const key = async (role: 'agent' | 'viewer', on = server) => (await adminClient(on).keys.create({ name: `mcp ${role}`, role })).token;

/** The server's warnings and errors, the first few: why an answer was neither a session nor a refusal. */
const problems = (output: string) =>
  output
    .split('\n')
    .filter((line) => /"level":(40|50|60)/.test(line))
    .slice(0, 5)
    .map((line) => line.slice(0, 2_000));

describe('MCP sessions are capped and closed when idle', () => {
  it('5,000 opened and dropped by one viewer key under a 160 MB heap: 20 open, the rest 429; the server stays up', async () => {
    const viewer = await key('viewer');
    const statuses = new Map<number, number>();
    let refusal: McpInitializeAnswer | undefined;
    /** The first few answers that are neither, with the server's log, for the failure's message. */
    const others: string[] = [];
    const queue = Array.from({ length: 5_000 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 25 }, async () => {
        while (queue.shift() !== undefined) {
          const answer = await initializeMcp(server, viewer);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status === 429) refusal ??= answer;
          else if (answer.status !== 200 && others.length < 5) others.push(`${answer.status} ${answer.text}`);
        }
      }),
    );
    // None goes idle during the flood (10 min): 20 open, every other one refused.
    expect(statuses.get(200)).toBeGreaterThanOrEqual(20);
    expect(statuses.get(429)).toBeGreaterThan(4_500);
    expect([...statuses.keys()].sort(), [...others, ...problems(server.output())].join('\n')).toEqual([200, 429]);
    expect(JSON.parse(refusal!.text).error.message).toMatch(
      /^Error: too many open MCP sessions for this key \(20, at most 20\); end one with DELETE \/mcp, or wait: idle ones close after 600 s\.$/,
    );
    expect(Number(refusal!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.output()).not.toMatch(/heap out of memory/i);
    // 5,000 requests to a server with a capped heap: far longer than the config's 120 s guard once other files load
    // the machine (past 120 s beside stream-limits and crash at load 20).
  }, 300_000);

  it('60 in all: a fourth key is refused while three hold 20 each; idle sessions close and free the places', async () => {
    const on = idleServer;
    const keys = await Promise.all([key('viewer', on), key('viewer', on), key('viewer', on), key('viewer', on)]);
    const held: string[] = [];
    for (const k of keys.slice(0, 3)) {
      for (let i = 0; i < 20; i++) {
        const answer = await initializeMcp(on, k);
        expect(answer.status).toBe(200);
        held.push(answer.session!);
      }
    }
    const full = await initializeMcp(on, keys[3]);
    expect(full.status).toBe(429);
    expect(JSON.parse(full.text).error.message).toBe('Error: the server has too many open MCP sessions (60); try again shortly.');
    // Idle past 5 s (on the app's clock): closed, their ids unknown, and a new session opens.
    on.clock!.advance(5_001);
    const gone = await fetch(`${on.url}/mcp`, {
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
    expect((await initializeMcp(on, keys[3])).status).toBe(200);
  });

  it("an API key's MCP session opens its agent session on the first tool call; closed, it leaves no row unless it recorded something", async () => {
    const on = idleServer;
    const agent = await key('agent', on);
    const rows = () => countRows(on, 'Session', "title = 'MCP session'");
    const before = await rows();
    const connect = async () => {
      const client = new Client({ name: 'limits', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${on.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }),
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
    // All three go idle (on the app's clock) and close at the next sweep: the reader's empty session row is removed,
    // the writer's (it holds a list) stays.
    on.clock!.advance(5_001);
    await waitFor('the idle sessions closed and the empty row removed', async () => (await rows()) === before + 1, 5_000);
    expect(
      await countRows(on, 'TodoUpdate', `"sessionId" IN (SELECT id FROM "Session" WHERE title = 'MCP session')`),
    ).toBeGreaterThanOrEqual(1);
    for (const c of [idle, reader, writer]) await c.close().catch(() => undefined);
  });
});

describe('each workspace keeps its share of the MCP sessions', () => {
  it('40 per workspace; at 60 in all a workspace below its share gets in by closing the LRU session of one over it', async () => {
    const on = shareServer;
    const rows = (workspaceId: string) => countRows(on, 'McpSession', '"workspaceId" = ?', workspaceId);
    const workspace = async (name: string) => {
      const created = await adminClient(on).workspaces.create({ name });
      const admin = createClient({ url: on.url, token: created.adminKey });
      const viewer = async () => (await admin.keys.create({ name: `${name} viewer`, role: 'viewer' })).token;
      return { id: created.workspace.id, viewer };
    };
    const opened = async (token: string) => {
      on.clock!.advance(1);
      const answer = await initializeMcp(on, token);
      expect(answer.status).toBe(200);
      return answer.session!;
    };
    const a = await workspace('a');
    const b = await workspace('b');
    const c = await workspace('c');

    // Workspace a: two keys take 40, its cap; a third key's first is refused, and nothing is recorded.
    const aKeys = [await a.viewer(), await a.viewer(), await a.viewer()];
    const aSessions: string[] = [];
    for (const k of aKeys.slice(0, 2)) for (let i = 0; i < 20; i++) aSessions.push(await opened(k));
    const overWorkspace = await initializeMcp(on, aKeys[2]!);
    expect(overWorkspace.status).toBe(429);
    expect(Number(overWorkspace.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(overWorkspace.text).error.message).toBe(
      'Error: too many open MCP sessions for this workspace (40, at most 40); end one with DELETE /mcp, or wait: idle ones close after 600 s.',
    );
    expect(await rows(a.id)).toBe(40);

    // Workspace b takes 20: the server is full (60).
    const bKeys = [await b.viewer(), await b.viewer()];
    for (let i = 0; i < 20; i++) await opened(bKeys[0]!);
    // Workspace c holds none, below its share (60 / 3 = 20): it gets in, and a's least recently used session is closed.
    const cKey = await c.viewer();
    await opened(cKey);
    expect([await rows(a.id), await rows(b.id), await rows(c.id)]).toEqual([39, 20, 1]);
    const closed = await fetch(`${on.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${aKeys[0]}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': aSessions[0]!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(closed.status).toBe(404);

    // b is at its share: refused (the server is full), recording nothing. c goes on to its share, each time at a's expense.
    const full = await initializeMcp(on, bKeys[1]!);
    expect(full.status).toBe(429);
    expect(JSON.parse(full.text).error.message).toBe('Error: the server has too many open MCP sessions (60); try again shortly.');
    for (let i = 1; i < 20; i++) await opened(cKey);
    expect([await rows(a.id), await rows(b.id), await rows(c.id)]).toEqual([20, 20, 20]);
    const atShare = await initializeMcp(on, await c.viewer());
    expect(atShare.status).toBe(429);
    expect(JSON.parse(atShare.text).error.message).toBe('Error: the server has too many open MCP sessions (60); try again shortly.');
    expect([await rows(a.id), await rows(b.id), await rows(c.id)]).toEqual([20, 20, 20]);
    // The sessions a kept are its most recently used: the second key's 20.
    const kept = (await queryRows<{ id: string }>(on, 'SELECT "id" FROM "McpSession" WHERE "workspaceId" = ?', a.id)).map((r) => r.id);
    expect(kept.sort()).toEqual(aSessions.slice(20).sort());
  });
});
