// Standing property test: fast-check sends generated hostile requests to every procedure of the router over HTTP, as
// an admin key and as a session — inputs no contract accepts (wrong shapes, unknown fields, deep nesting, huge or
// broken text, prototype keys, bad event ids). Each must be answered 4xx with an `Error:` text and no stack or
// internals; nothing may be recorded; the server stays up.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procedureKinds } from '../apps/server/src/routers/procedure-kinds.ts';
import { adminClient, sessionClient } from './support/fixtures.ts';
import { rowCounts } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
const tokens: { who: string; token: string }[] = [];

beforeAll(async () => {
  // The brake on failed authentications is not under test here.
  server = await startServer({
    env: { AGENT_TASKS_AUTH_FAILURES_PER_ADDRESS: '100000', AGENT_TASKS_AUTH_FAILURES_PER_KEY_PREFIX: '100000' },
  });
  const s = await sessionClient(server, 'property');
  await s.client.todos.write({ todos: [{ content: 'Existing', status: 'pending' }] });
  await s.client.tasks.create({ subject: 'Existing task' });
  tokens.push({ who: 'admin', token: server.adminKey }, { who: 'session', token: s.token });
  await adminClient(server).workspaces.whoami();
});
afterAll(() => server.stop());

const procedures = Object.entries(procedureKinds()).map(([path, type]) => ({ path, type }));

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** JSON texts no contract accepts: each carries at least one thing every input contract refuses. */
const hostileJson: fc.Arbitrary<string> = fc.oneof(
  // Not an object at all (every input is an object, or nothing).
  fc
    .oneof(
      fc.string({ maxLength: 50 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
    )
    .map((v) => JSON.stringify(v)),
  // An object with a field no contract has, beside plausible ones.
  fc
    .record({
      extra: fc.string({ minLength: 1, maxLength: 30 }).map((k) => `zz_${k}`),
      value: fc.jsonValue({ maxDepth: 3 }),
      todos: fc.constant([{ content: 'x', status: 'pending' }]),
      sessionId: fc.string({ maxLength: 20 }),
    })
    .map(({ extra, value, ...rest }) => JSON.stringify({ ...rest, [extra]: value })),
  // Nesting far past the limit, inside a plausible field or at the top.
  fc.integer({ min: 40, max: 5_000 }).map((n) => `{"metadata":{"a":${deep(n)}},"subject":"x","todos":${deep(n)}}`),
  // Unpaired surrogates in every text field a contract has.
  fc
    .constantFrom('\\ud800', '\\udfff', 'a\\udbff', '\\udc00b')
    .map(
      (t) =>
        `{"todos":[{"content":"${t}","status":"pending"}],"subject":"${t}","name":"${t}","title":"${t}","sessionId":"${t}","runId":"${t}","id":"${t}","listName":"${t}","zz":"${t}"}`,
    ),
  // Prototype keys.
  fc
    .constantFrom('__proto__', 'constructor', 'prototype')
    .map((k) => `{"subject":"x","metadata":{"${k}":{"admin":true}},"${k}":{"polluted":true}}`),
  // A huge value in every field.
  fc.integer({ min: 20_000, max: 200_000 }).map((n) => {
    const big = JSON.stringify('A'.repeat(n));
    return `{"todos":[{"content":${big},"status":${big}}],"subject":${big},"name":${big},"url":${big},"role":${big},"sessionId":${big},"runId":${big},"id":${big},"zz_big":${big}}`;
  }),
  // Live-feed positions that are no event id.
  fc.constantFrom('1e309', 'Infinity', '-1', '12345678901234567890', 'NaN', '0x1f').map((v) => `{"lastEventId":"${v}","zz":1}`),
);

interface Answer {
  status: number;
  message: string | null;
  text: string;
}

/** Sends one request — a mutation as POST, a query or subscription from the URL (POSTed when too long) — and reads
 * the answer: JSON, or for a live stream its first error event. */
async function send(path: string, type: string, json: string, token: string): Promise<Answer> {
  const url = `${server.url}/trpc/${path}?input=${encodeURIComponent(json)}`;
  // Past what a URL may carry, the input goes in a POST body (a query or stream refuses POST: 405, still a 4xx).
  const post = type === 'mutation' || url.length > 8_000;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 5_000);
  try {
    const res = await fetch(post ? `${server.url}/trpc/${path}` : url, {
      method: post ? 'POST' : 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        accept: type === 'subscription' ? 'text/event-stream' : 'application/json',
        'content-type': 'application/json',
      },
      ...(post ? { body: json } : {}),
      signal: ac.signal,
    });
    if (!res.headers.get('content-type')?.includes('text/event-stream')) {
      const text = await res.text();
      return { status: res.status, text, message: messageOf(text) };
    }
    const reader = res.body!.getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { status: 200, text, message: null };
      text += new TextDecoder().decode(value);
      const match = /event: serialized-error\ndata: (.*)\n/.exec(text);
      if (match) {
        const error = JSON.parse(match[1]!) as { message: string; data: { httpStatus: number } };
        return { status: error.data.httpStatus, text, message: error.message };
      }
      if (/(^|\n)data: (?!\{"reconnectAfterInactivityMs)/.test(text)) return { status: 200, text, message: null };
    }
  } catch (error) {
    return { status: 0, text: '', message: `no answer: ${String((error as { cause?: unknown }).cause ?? error)}` };
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

function messageOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } } | { error?: { message?: string } }[];
    const first = Array.isArray(body) ? body[0] : body;
    return first?.error?.message ?? null;
  } catch {
    return null;
  }
}

describe('generated hostile requests to every procedure', () => {
  it(`covers all ${procedures.length} procedures, each answered 4xx with an Error: text, nothing recorded, the server up`, async () => {
    expect(procedures.length).toBeGreaterThan(40);
    const before = await rowCounts(server);
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...procedures), fc.constantFrom(...tokens), hostileJson, async (procedure, caller, json) => {
        seen.add(procedure.path);
        let answer = await send(procedure.path, procedure.type, json, caller.token);
        // A reused keep-alive connection the server had closed (after refusing a large body unread) is no answer: ask again.
        for (let retry = 0; retry < 2 && answer.status === 0 && /other side closed|EPIPE|ECONNRESET/.test(answer.message ?? ''); retry++) {
          answer = await send(procedure.path, procedure.type, json, caller.token);
        }
        const where = `${caller.who} → ${procedure.path} with ${json.slice(0, 120)}`;
        expect(answer.status, `${where}: ${answer.message}`).toBeGreaterThanOrEqual(400);
        expect(answer.status, where).toBeLessThan(500);
        expect(answer.message, where).toMatch(/^Error: /);
        expect(answer.message!.length, where).toBeLessThanOrEqual(2_001);
        expect(answer.text, where).not.toMatch(
          /stack|\.ts\b|\.js:\d|node_modules|\bat \w+ \(|Maximum call stack|prisma|sqlite|SELECT|INSERT/i,
        );
      }),
      {
        numRuns: 1_200,
        seed: 20261130,
        endOnFailure: true,
        // The failing request is named in the assertion's message (cut short); the whole counterexample can be megabytes.
        reporter: (run) => {
          if (run.failed)
            throw new Error(
              `property failed after ${run.numRuns} requests: ${String((run.errorInstance as Error | undefined)?.message).slice(0, 2_000)}`,
            );
        },
      },
    );
    expect([...seen].sort()).toEqual(procedures.map((p) => p.path).sort());
    expect(await rowCounts(server)).toEqual(before);
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true });
  }, 300_000);
});
