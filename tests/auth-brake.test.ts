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

/** A tRPC query over raw HTTP with a bearer token (from a client a trusted proxy names, when given): the status, the
 * Retry-After header and the refusal text. */
async function whoami(s: RunningServer, token: string, forwardedFor?: string) {
  const res = await fetch(`${s.url}/trpc/workspaces.whoami`, {
    headers: { authorization: `Bearer ${token}`, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
  });
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

    // The admin key that worked before goes on working, and so does a valid key first seen now: only failures are braked.
    expect(await admin.workspaces.whoami()).toMatchObject({ role: 'admin' });
    expect((await whoami(s, unused)).status).toBe(200);
  });

  it('30 bad keys from one address: its failures get 429, every valid credential from it still passes, after a restart too', async () => {
    const s = await server({ AGENT_TASKS_AUTH_FAILURES_PER_KEY_PREFIX: '1000' });
    const admin = adminClient(s);
    const fresh = (await admin.keys.create({ name: 'first used after the brake', role: 'viewer' })).token;
    const agent = (await admin.keys.create({ name: 'worked before the brake', role: 'agent' })).token;
    expect((await whoami(s, agent)).status).toBe(200);
    const guesses = async (n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) statuses.push((await whoami(s, `atk_nat_guess_${i}_${'y'.repeat(12)}`)).status);
      return statuses;
    };
    expect(await guesses(31)).toEqual([...Array(30).fill(401), 429]);

    const passes = async () => {
      // A fresh valid key, the admin key, a new session token, and a key that had worked: all from the braked address.
      expect(await whoami(s, fresh)).toMatchObject({ status: 200, message: null });
      expect(await whoami(s, s.adminKey)).toMatchObject({ status: 200, message: null });
      const opened = await fetch(`${s.url}/trpc/sessions.open`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'opened while braked' }),
      });
      expect(opened.status).toBe(200);
      const { token } = ((await opened.json()) as { result: { data: { token: string } } }).result.data;
      expect(await whoami(s, token)).toMatchObject({ status: 200, message: null });
      expect(await whoami(s, agent)).toMatchObject({ status: 200, message: null });
      // The address's failures stay braked.
      const failure = await whoami(s, 'atk_nat_guess_again_zzzzzzzzzz');
      expect(failure).toMatchObject({ status: 429, appCode: 'RATE_LIMITED' });
      expect(failure.message).toMatch(/^Error: too many failed authentications from this address; try again in \d+ s\.$/);
    };
    await passes();
    // After a restart the memory of working keys is gone; the guesser goes on, and so do the valid keys.
    await s.restart();
    expect(await guesses(31)).toEqual([...Array(30).fill(401), 429]);
    await passes();
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

describe('client addresses: trusted proxies, IPv6 networks, a ceiling in all', () => {
  it('behind a trusted proxy each client is counted by X-Forwarded-For, IPv6 by its /64 (configurable); from anyone else it is ignored', async () => {
    const brake = { AGENT_TASKS_AUTH_FAILURES_PER_ADDRESS: '5', AGENT_TASKS_AUTH_FAILURES_PER_KEY_PREFIX: '1000' };
    const s = await server({ ...brake, AGENT_TASKS_TRUSTED_PROXIES: '127.0.0.1' });
    const guess = (i: number | string, from: string) => whoami(s, `atk_v6_guess_${i}_${'w'.repeat(12)}`, from);
    // Five addresses of one /64: one network, one count.
    for (let i = 1; i <= 5; i++) expect((await guess(i, `2001:db8:1:2::${i}`)).status).toBe(401);
    const braked = await guess(6, '2001:db8:1:2:ffff:ffff:ffff:ffff');
    expect(braked).toMatchObject({ status: 429, appCode: 'RATE_LIMITED' });
    expect(braked.message).toMatch(/^Error: too many failed authentications from this address; try again in \d+ s\.$/);
    // Another /64, an IPv4 client, and the client named before the proxy's own hops: counted apart.
    expect((await guess(7, '2001:db8:1:3::1')).status).toBe(401);
    expect((await guess(8, '203.0.113.7')).status).toBe(401);
    expect((await guess(9, '198.51.100.9, 127.0.0.1')).status).toBe(401);
    // A spoofed entry left of the real client changes nothing: the proxy appended the client (rightmost).
    expect((await guess(10, '203.0.113.99, 2001:db8:1:2::77')).status).toBe(429);

    const exact = await server({ ...brake, AGENT_TASKS_TRUSTED_PROXIES: '127.0.0.0/8', AGENT_TASKS_AUTH_IPV6_PREFIX: '128' });
    for (let i = 1; i <= 5; i++)
      expect((await whoami(exact, `atk_v6_exact_${i}_${'v'.repeat(12)}`, `2001:db8:1:2::${i}`)).status).toBe(401);
    expect((await whoami(exact, `atk_v6_exact_6_${'v'.repeat(12)}`, '2001:db8:1:2::6')).status).toBe(401);

    // Without a trusted proxy the header is anyone's to send: every guess counts against the socket's own address.
    const direct = await server(brake);
    for (let i = 1; i <= 5; i++) expect((await whoami(direct, `atk_spoof_${i}_${'u'.repeat(12)}`, `203.0.113.${i}`)).status).toBe(401);
    expect((await whoami(direct, `atk_spoof_6_${'u'.repeat(12)}`, '198.51.100.1')).status).toBe(429);
  });

  it('100 addresses making 500 failed authentications meet the ceiling per second in all; a key that works goes on', async () => {
    const s = await server({
      AGENT_TASKS_TRUSTED_PROXIES: '127.0.0.1',
      AGENT_TASKS_AUTH_FAILURES_PER_SECOND: '20',
      AGENT_TASKS_AUTH_FAILURES_PER_KEY_PREFIX: '100000',
    });
    const admin = adminClient(s);
    expect(await admin.workspaces.whoami()).toMatchObject({ role: 'admin' });
    const statuses = new Map<number, number>();
    const messages = new Set<string>();
    const started = performance.now();
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, a) => whoami(s, `atk_spread_${round}_${a}_${'t'.repeat(8)}`, `198.18.${a}.${round + 1}`)),
      );
      for (const answer of answers) {
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 429 && answer.message) messages.add(answer.message);
      }
      expect(await admin.workspaces.whoami()).toMatchObject({ role: 'admin' });
    }
    const seconds = (performance.now() - started) / 1000;
    expect([...statuses.keys()].sort()).toEqual([401, 429]);
    // At most 20 failures a second get as far as a lookup (plus those already in flight when the count filled).
    expect(statuses.get(401)).toBeLessThanOrEqual((Math.ceil(seconds) + 1) * 120);
    expect([...messages]).toEqual(['Error: too many failed authentications on this server right now; try again in 1 s.']);
    const limited = await whoami(s, `atk_spread_last_${'t'.repeat(12)}`, '198.18.200.1');
    if (limited.status === 429) expect(Number(limited.retryAfter)).toBe(1);
    // Once the second is over, a valid key never used before passes.
    const fresh = (await admin.keys.create({ name: 'after the storm', role: 'viewer' })).token;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await whoami(s, fresh, '198.18.201.1')).status).toBe(200);
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
