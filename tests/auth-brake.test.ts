// Black-box tests of credentials: failed authentications braked per address and token prefix (429 + Retry-After, on
// /trpc and /mcp), clients already working not locked out; no token accepted in a URL; live streams opened with
// single-use, short-lived stream tickets; weak admin keys refused at start and at use.
import { createHash } from 'node:crypto';
import { createClient } from '@agent-tasks/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, refused, sessionClient } from './support/fixtures.ts';
import { execute, queryRows } from './support/database.ts';
import { type RunningServer, type StartOptions, startServer } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';

const servers: RunningServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.stop())));

async function server(env: Record<string, string> = {}, options: StartOptions = {}) {
  const s = await startServer({ env, ...options });
  servers.push(s);
  return s;
}

/** A tRPC query over raw HTTP with a bearer token: the status, the Retry-After header and the refusal text. */
async function whoami(s: RunningServer, token: string) {
  const res = await fetch(`${s.url}/trpc/workspaces.whoami`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { error?: { message: string; data: { appCode: string } } };
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    message: body.error?.message ?? null,
    appCode: body.error?.data.appCode ?? null,
  };
}

/** Opens a raw SSE subscription and returns the first event it gets (a data event or a serialized error). */
async function firstEvent(s: RunningServer, path: string, headers: Record<string, string> = {}) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 5_000);
  try {
    const res = await fetch(`${s.url}${path}`, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
    const reader = res.body!.getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { event: 'end', data: text };
      text += new TextDecoder().decode(value);
      const match = /event: (serialized-error)\ndata: (.*)\n|(?:^|\n)(?:id: .*\n)?data: (.*)\n/.exec(
        text.replace(/event: connected\ndata: .*\n\n/, ''),
      );
      if (match)
        return match[1]
          ? { event: 'error', data: JSON.parse(match[2]!) as { message: string } }
          : { event: 'data', data: JSON.parse(match[3]!) as unknown };
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

const watchPath = (procedure: string, input: unknown, params?: Record<string, string>) =>
  `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}${params ? `&connectionParams=${encodeURIComponent(JSON.stringify(params))}` : ''}`;

describe('a brake on bad credentials', () => {
  it('past 20 failed authentications from one address: 429 with Retry-After, on /trpc and /mcp; working keys go on', async () => {
    const s = await server({ AGENT_TASKS_AUTH_FAILURES_PER_ADDRESS: '20', AGENT_TASKS_AUTH_FAILURES_PER_KEY_PREFIX: '1000' });
    const admin = adminClient(s);
    const unused = (await admin.keys.create({ name: 'not used yet', role: 'viewer' })).token;
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await whoami(s, `atk_guess_${i}_${'x'.repeat(8)}`)).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(180).fill(429));

    const limited = await whoami(s, 'atk_another_guess_1234');
    expect(limited).toMatchObject({ status: 429, appCode: 'RATE_LIMITED' });
    expect(limited.message).toMatch(/^Error: too many failed authentications from this address; try again in \d+ s\.$/);
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(limited.retryAfter)).toBeLessThanOrEqual(60);
    const mcp = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer atk_mcp_guess_123456789',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(mcp.status).toBe(429);
    expect(Number(mcp.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // The admin key that worked before goes on working; a valid key first seen now waits like the guesses.
    expect(await admin.workspaces.whoami()).toMatchObject({ role: 'admin' });
    expect((await whoami(s, unused)).status).toBe(429);
  });

  it('past 5 failures with tokens sharing their first 16 characters: 429 for that prefix only', async () => {
    const s = await server({ AGENT_TASKS_AUTH_FAILURES_PER_ADDRESS: '1000', AGENT_TASKS_AUTH_FAILURES_PER_KEY_PREFIX: '5' });
    for (let i = 0; i < 5; i++) expect((await whoami(s, `atk_leaked_abcde${i}_suffix`)).status).toBe(401);
    const limited = await whoami(s, 'atk_leaked_abcdeZ_other');
    expect(limited).toMatchObject({ status: 429, appCode: 'RATE_LIMITED' });
    expect(limited.message).toMatch(/^Error: too many failed authentications with tokens starting like this one; try again in \d+ s\.$/);
    expect(await whoami(s, 'atk_unrelated_token_1')).toMatchObject({
      status: 401,
      message: 'Error: unauthorized: unknown API key or session token.',
    });
  });
});

describe('no token in a URL: live streams open with single-use stream tickets', () => {
  it('a token in connection params is refused, for a stream and for a call, whatever the token', async () => {
    const s = await server();
    const { session, token } = await sessionClient(s, 'url token');
    const stream = await firstEvent(s, watchPath('todos.watch', { sessionId: session.id }, { token }));
    expect(stream).toMatchObject({ event: 'error' });
    expect((stream.data as { message: string }).message).toBe(
      'Error: unauthorized: a token in the URL is not accepted (URLs end up in logs); send it as `Authorization: Bearer <token>`, or open a live stream with a ticket from auth.streamTicket as connectionParams.ticket.',
    );
    const call = await fetch(`${s.url}/trpc/workspaces.whoami?connectionParams=${encodeURIComponent(JSON.stringify({ token }))}`);
    expect(call.status).toBe(401);
  });

  it('a ticket (got with the bearer header) opens one stream: once, within its lifetime, for a stream only', async () => {
    const s = await server({ AGENT_TASKS_STREAM_TICKET_TTL_MS: '1500' }, { manualTime: true });
    const { session, token, client } = await sessionClient(s, 'ticket holder');
    await client.todos.write({ todos: [{ content: 'Seen through a ticket', status: 'pending' }] });
    const issue = async () => {
      const res = await fetch(`${s.url}/trpc/auth.streamTicket`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      return ((await res.json()) as { result: { data: { ticket: string; expiresAt: string } } }).result.data;
    };
    const { ticket, expiresAt } = await issue();
    expect(ticket).toMatch(/^stk_[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(1_500);
    expect(await countRows(s, 'StreamTicket' as never, 'id = ?', ticket)).toBe(0); // kept only as a hash

    const first = await firstEvent(s, watchPath('todos.watch', { sessionId: session.id, from: 'start' }, { ticket }));
    expect(first.event).toBe('data');
    const used = 'Error: unauthorized: this stream ticket is unknown, used or expired; get a new one from auth.streamTicket.';
    const again = await firstEvent(s, watchPath('todos.watch', { sessionId: session.id, from: 'start' }, { ticket }));
    expect(again).toMatchObject({ event: 'error', data: { message: used } });

    const late = await issue();
    s.clock!.advance(1_501); // past the ticket's lifetime, on the app's clock
    expect(await firstEvent(s, watchPath('todos.watch', { sessionId: session.id, from: 'start' }, { ticket: late.ticket }))).toMatchObject({
      event: 'error',
      data: { message: used },
    });

    const forCall = await issue();
    const call = await fetch(
      `${s.url}/trpc/workspaces.whoami?connectionParams=${encodeURIComponent(JSON.stringify({ ticket: forCall.ticket }))}`,
    );
    expect(((await call.json()) as { error: { message: string } }).error.message).toBe(
      'Error: unauthorized: a stream ticket opens a live stream only; send other calls with `Authorization: Bearer <token>`.',
    );
    // A ticket cannot be had without a token, nor with a ticket.
    const json = { 'content-type': 'application/json' };
    expect((await fetch(`${s.url}/trpc/auth.streamTicket`, { method: 'POST', headers: json })).status).toBe(401);
    const byTicket = await fetch(
      `${s.url}/trpc/auth.streamTicket?connectionParams=${encodeURIComponent(JSON.stringify({ ticket: (await issue()).ticket }))}`,
      {
        method: 'POST',
        headers: json,
      },
    );
    expect(byTicket.status).toBe(401);
  });

  it("a ticket is its token's: it acts as that caller and stops working once the token's key is revoked", async () => {
    const s = await server();
    const admin = adminClient(s);
    const viewer = await admin.keys.create({ name: 'viewer', role: 'viewer' });
    const { session, client } = await sessionClient(s, 'watched');
    const watcher = createClient({ url: s.url, token: viewer.token, streams: 'ticket' });
    const seen: number[] = [];
    const feed = watcher.todos.watch({ sessionId: session.id, from: 'start' }, { onData: ({ data }) => seen.push(data.revision) });
    try {
      await client.todos.write({ todos: [{ content: 'One', status: 'pending' }] });
      await waitFor('the update through a ticket-opened stream', () => seen.includes(1));
    } finally {
      feed.unsubscribe();
    }
    const viewerHeaders = { authorization: `Bearer ${viewer.token}`, 'content-type': 'application/json' };
    const res = await fetch(`${s.url}/trpc/auth.streamTicket`, { method: 'POST', headers: viewerHeaders });
    const { ticket } = ((await res.json()) as { result: { data: { ticket: string } } }).result.data;
    await admin.keys.revoke({ id: viewer.key.id });
    expect(await firstEvent(s, watchPath('todos.watch', { sessionId: session.id, from: 'start' }, { ticket }))).toMatchObject({
      event: 'error',
      data: { message: 'Error: unauthorized: this API key has been revoked.' },
    });
  });
});

describe('weak admin keys', () => {
  it('a weak AGENT_TASKS_ADMIN_KEY stops the start and creates nothing', async () => {
    await expect(startServer({ adminKey: 'a'.repeat(24) })).rejects.toThrow(
      'Error: AGENT_TASKS_ADMIN_KEY is too weak: it uses only 1 distinct character; use at least 24 random characters (for example `openssl rand -hex 24`).',
    );
    await expect(startServer({ adminKey: 'abcdefghijklmnopqrstuvwxyz' })).rejects.toThrow('it contains a run of 26 consecutive characters');
  });

  it('a weak key stored before weak keys were refused is refused when used', async () => {
    const s = await server();
    await s.stop();
    const weak = 'a'.repeat(24);
    const [workspace] = await queryRows<{ id: string }>(s, 'SELECT "id" FROM "Workspace" LIMIT 1');
    await execute(s, [
      'INSERT INTO "ApiKey" ("id", "workspaceId", "role", "name", "tokenHash", "createdAt") VALUES (?, ?, ?, ?, ?, ?)',
      'key_weak',
      workspace?.id,
      'admin',
      'old weak key',
      createHash('sha256').update(weak).digest('hex'),
      new Date(),
    ]);
    const again = await server({}, { database: s });
    expect(await refused(createClient({ url: again.url, token: weak }).workspaces.whoami())).toMatchObject({
      code: 'UNAUTHENTICATED',
      message:
        'Error: unauthorized: this API key is too weak to be accepted: it uses only 1 distinct character; use at least 24 random characters (for example `openssl rand -hex 24`); ask an admin for a new key.',
    });
    expect(await createClient({ url: again.url, token: s.adminKey }).workspaces.whoami()).toMatchObject({ role: 'admin' });
  });
});
