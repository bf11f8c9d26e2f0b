// A single query or mutation answered by plain-call.ts: the same status, headers and body as tRPC's fetch handler gives
// for the same request on the same server (answers, refusals of every layer, Retry-After), and everything unusual left to
// that handler.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, startApp } from '../src/app.ts';
import { initTRPC } from '@trpc/server';
import { readCache } from '../src/adapters/read-cache.ts';
import { type InnerContext, contextFor } from '../src/context.ts';
import { type AppEnv, createHttpApp } from '../src/http/http-app.ts';
import { inFlightRequests } from '../src/http/in-flight.ts';
import { plainCalls } from '../src/http/plain-call.ts';
import { appRouter } from '../src/routers/root.ts';

const adminKey = `atk_plain_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-plain-call-'));
let app: App;
let plainApp: ReturnType<typeof createHttpApp>;
let trpcApp: ReturnType<typeof createHttpApp>;
/** Answers what plain-call.ts answers; 599 for a request it leaves to tRPC's handler. */
let harness: Hono<AppEnv>;
let token: string;

beforeAll(async () => {
  // Two failed authentications per token prefix, then 429 with Retry-After.
  app = await startApp({ databaseFile: path.join(dir, 'plain.db'), port: 0, adminKey, authFailures: { perKeyPrefix: 2 } });
  const admin = createClient({ url: app.url, token: adminKey });
  const agent = createClient({ url: app.url, token: (await admin.keys.create({ name: 'plain', role: 'agent' })).token });
  const session = await openSessionClient(agent, { title: 'plain calls' });
  token = session.token;
  await session.client.todos.write({ todos: [{ content: 'Read the spec', status: 'in_progress' }] });
  await session.client.tasks.create({ listName: 'a-list', subject: 'First' });
  // A page longer than the answers sent as text (plain-call.ts sends a long one as its bytes), outside ASCII too.
  for (let i = 0; i < 40; i++) {
    await session.client.tasks.create({ listName: 'long-list', subject: `Étape ${i} ✓ 😀 ${'Überprüfen — '.repeat(8)}` });
  }
  const options = {
    services: app.services,
    corsOrigins: [],
    inFlight: inFlightRequests(),
    mcp: { handle: async () => new Response(null, { status: 404 }) },
    moira: { handle: async () => new Response(null, { status: 404 }) },
    ready: async () => ({ ready: true as const }),
    webRoot: dir,
  };
  plainApp = createHttpApp(options);
  trpcApp = createHttpApp({ ...options, plainCalls: false });
  const plain = plainCalls({
    router: appRouter,
    createContext: (c, authorization) => contextFor(app.services, authorization, c.get('info')),
    onError: () => undefined,
    responseMeta: () => ({}),
  });
  harness = new Hono<AppEnv>().all('/trpc/*', async (c) => {
    c.set('info', { id: 'harness' });
    const answered = await plain(c);
    return answered instanceof Response ? answered : new Response('left to tRPC', { status: 599 });
  });
});

afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Call {
  method?: string;
  /** Path and query, after the origin. */
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** No Authorization header (else the session's token). */
  anonymous?: boolean;
}

const request = (call: Call) =>
  new Request(`http://localhost${call.url}`, {
    method: call.method ?? (call.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(call.anonymous ? {} : { authorization: `Bearer ${token}` }),
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...call.headers,
    },
    ...(call.body === undefined ? {} : { body: call.body }),
  });

/** Status, headers (but the request id, new each time) and body. */
async function seen(res: Response) {
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'x-request-id'));
  return { status: res.status, headers, body: await res.text() };
}

const input = (value: unknown) => `?input=${encodeURIComponent(JSON.stringify(value))}`;
const todoWrite = (todos: unknown, extra: object = {}) => JSON.stringify({ todos, ...extra });

describe('a single query or mutation', () => {
  it.each<[string, Call]>([
    ['a query without input', { url: '/trpc/todos.get' }],
    ['a query with input', { url: `/trpc/tasks.list${input({ listName: 'a-list' })}` }],
    // URLSearchParams' reading, as tRPC's: `+` is a space.
    [
      'a query whose input has `+` for a space',
      { url: `/trpc/tasks.list?input=${encodeURIComponent('{"listName":"a list"}').replace('%20', '+')}` },
    ],
    ['a query with an empty input', { url: '/trpc/todos.get?input=' }],
    ['a query with a JSON content type', { url: '/trpc/todos.get', headers: { 'content-type': 'Application/JSON; charset=utf-8' } }],
    ['a domain refusal (not found)', { url: `/trpc/tasks.get${input({ listName: 'a-list', id: 'T-missing' })}` }],
    ['a refusal of the input contract', { url: '/trpc/todos.write', body: todoWrite('nope') }],
    [
      'a refusal of the input guard (a NUL character)',
      { url: '/trpc/todos.write', body: todoWrite([{ content: 'a\u0000b', status: 'pending' }]) },
    ],
    ['a stale write (nothing recorded)', { url: '/trpc/todos.write', body: todoWrite([], { baseRevision: 0 }) }],
    ['a mutation with an empty body', { url: '/trpc/todos.write', body: '' }],
    ['a call without a token', { url: '/trpc/todos.get', anonymous: true }],
    ['a long answer, outside ASCII too', { url: `/trpc/tasks.list${input({ listName: 'long-list' })}` }],
  ])('%s: answered here, exactly as tRPC answers it', async (_, call) => {
    const viaTrpc = await seen(await trpcApp.fetch(request(call)));
    const plain = await seen(await plainApp.fetch(request(call)));
    expect(plain).toEqual(viaTrpc);
    // plain-call.ts answered it (its harness answers 599 for a request it leaves to tRPC's handler), the same.
    expect(await seen(await harness.fetch(request(call)))).toEqual(viaTrpc);
  });

  it("an answer the read cache kept is sent as the text made for it once, in tRPC's envelope, as tRPC would send it", async () => {
    const t = initTRPC.context<InnerContext>().create();
    let serialised = 0;
    const page = Object.freeze({
      toJSON() {
        serialised += 1;
        return { listName: 'kept', tasks: [{ id: 'T-1' }] };
      },
    });
    const cache = readCache();
    cache.put('kept page', 1, page, 2);
    const router = t.router({ kept: t.procedure.query(() => page), fresh: t.procedure.query(() => ({ fresh: true })) });
    const kept = plainCalls({
      router,
      createContext: (c, authorization) => contextFor(app.services, authorization, c.get('info')),
      onError: () => undefined,
      responseMeta: () => ({}),
      answerText: cache.answerText,
    });
    const keptApp = new Hono<AppEnv>().all('/trpc/*', async (c) => {
      c.set('info', { id: 'kept' });
      const answered = await kept(c);
      return answered instanceof Response ? answered : new Response('left to tRPC', { status: 599 });
    });
    for (let i = 0; i < 3; i++) {
      const res = await keptApp.fetch(request({ url: '/trpc/kept' }));
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(JSON.stringify({ result: { data: { listName: 'kept', tasks: [{ id: 'T-1' }] } } }));
    }
    expect(serialised).toBe(1);
    expect(await (await keptApp.fetch(request({ url: '/trpc/fresh' }))).text()).toBe('{"result":{"data":{"fresh":true}}}');
  });

  it('a long answer goes over HTTP whole, its Content-Length counted in bytes, as tRPC sends it', async () => {
    const url = `${app.url}/trpc/tasks.list${input({ listName: 'long-list' })}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    expect(text.length).toBeGreaterThan(4_096);
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.length).toBeGreaterThan(text.length);
    expect(text).toBe(await (await trpcApp.fetch(request({ url: `/trpc/tasks.list${input({ listName: 'long-list' })}` }))).text());
    expect(res.headers.get('content-type')).toBe('application/json');
  });

  it("a successful call is answered by tRPC's shape: `result.data`, 200, JSON, Vary", async () => {
    const plain = await seen(await plainApp.fetch(request({ url: '/trpc/todos.get' })));
    expect(plain.status).toBe(200);
    expect(plain.headers).toMatchObject({ 'content-type': 'application/json', vary: 'trpc-accept, accept' });
    expect(JSON.parse(plain.body)).toMatchObject({
      result: { data: { revision: 1, items: [{ content: 'Read the spec', status: 'in_progress' }] } },
    });
  });

  it('a refusal that passes with time (the brake on bad tokens) carries the same Retry-After', async () => {
    const bad = { url: '/trpc/todos.get', headers: { authorization: 'Bearer atk_nobody_0000000000000000' } };
    const answers = [];
    // The brake is shared: two failures, then 429 on both paths.
    for (const fetchOn of [plainApp, trpcApp, plainApp, trpcApp]) answers.push(await seen(await fetchOn.fetch(request(bad))));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 429, 429]);
    const [, , plain, viaTrpc] = answers;
    expect(Number(plain?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Math.abs(Number(plain?.headers['retry-after']) - Number(viaTrpc?.headers['retry-after']))).toBeLessThanOrEqual(1);
    expect({ ...plain, headers: { ...plain?.headers, 'retry-after': '' } }).toEqual({
      ...viaTrpc,
      headers: { ...viaTrpc?.headers, 'retry-after': '' },
    });
    expect((await harness.fetch(request(bad))).status).toBe(429);
  });

  it.each<[string, Call]>([
    ['a batch', { url: `/trpc/todos.get?batch=1&input=${encodeURIComponent('{}')}` }],
    ['another query parameter', { url: `/trpc/todos.get${input({})}&connectionParams=${encodeURIComponent('{}')}` }],
    ['input that is not JSON', { url: '/trpc/todos.write', body: '{"todos": [' }],
    ['a query input that is not JSON', { url: '/trpc/tasks.list?input=%7Bnope' }],
    ['a mutation asked with GET', { url: `/trpc/todos.write${input({ todos: [] })}` }],
    ['a query asked with POST', { url: '/trpc/todos.get', body: '{}' }],
    ['an unknown procedure', { url: '/trpc/todos.nothing' }],
    ['a path with an escape', { url: '/trpc/todos%2Eget' }],
    ['a trailing slash', { url: '/trpc/todos.get/' }],
    ['a POST of another content type', { url: '/trpc/todos.write', body: todoWrite([]), headers: { 'content-type': 'text/plain' } }],
    ['a GET of another content type', { url: '/trpc/todos.get', headers: { 'content-type': 'multipart/form-data; boundary=x' } }],
    ['a stream asked for (trpc-accept)', { url: '/trpc/todos.get', headers: { 'trpc-accept': 'application/jsonl' } }],
    ['a stream asked for (Accept)', { url: '/trpc/todos.get', headers: { accept: 'application/json, application/jsonl' } }],
    ['a HEAD request', { url: '/trpc/todos.get', method: 'HEAD' }],
  ])("%s: left to tRPC's handler, and answered as it answers", async (_, call) => {
    expect((await harness.fetch(request(call))).status).toBe(599);
    const viaTrpc = await seen(await trpcApp.fetch(request(call)));
    expect(await seen(await plainApp.fetch(request(call)))).toEqual(viaTrpc);
    expect(viaTrpc.status).not.toBe(599);
  });
});
