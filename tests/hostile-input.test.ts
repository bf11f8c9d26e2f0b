// Black-box tests of bad input that must be refused cleanly (defect 14): lastEventId that is no event id, JSON nested
// thousands of levels deep, a 15 MB value (never echoed whole), unpaired surrogates, NUL characters and prototype keys —
// each a 400 with an `Error:` text naming the place, no stack, nothing recorded, the server still up; and numbers past
// PostgreSQL's integer answered as on SQLite, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
let token: string;
let sessionId: string;
beforeAll(async () => {
  server = await startServer();
  const s = await sessionClient(server, 'hostile');
  token = s.token;
  sessionId = s.session.id;
});
afterAll(() => server.stop());

/** Sends raw JSON text (not re-encoded) to a procedure, as a session. */
async function post(procedure: string, json: string) {
  const res = await fetch(`${server.url}/trpc/${procedure}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: json,
  });
  const text = await res.text();
  return { status: res.status, text, message: (JSON.parse(text) as { error?: { message: string } }).error?.message ?? null };
}

/** Opens a subscription over raw SSE and returns the first error it sends. */
async function streamError(procedure: string, input: unknown) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 5_000);
  try {
    const res = await fetch(`${server.url}/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const match = /event: serialized-error\ndata: (.*)\n/.exec(text);
      if (match) return JSON.parse(match[1]!) as { message: string; data: { httpStatus: number } };
    }
    return null;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

/** What a live feed sends in its first `ms` milliseconds (its status and raw text). */
async function streamHead(procedure: string, input: unknown, ms = 500) {
  const ac = new AbortController();
  const res = await fetch(`${server.url}/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
    signal: ac.signal,
  });
  const reader = res.body!.getReader();
  let text = '';
  const timer = setTimeout(() => ac.abort(), ms);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } catch {
    // Aborted after `ms`: what came so far is the answer.
  } finally {
    clearTimeout(timer);
  }
  return { status: res.status, text };
}

function expectClean(answer: { status: number; text: string; message: string | null }) {
  expect(answer.status).toBe(400);
  expect(answer.message).toMatch(/^Error: /);
  expect(answer.text).not.toMatch(/stack|\.ts\b|node_modules|Maximum call stack|\bat \w+ \(/);
}

const rows = async () => ({
  todos: await countRows(server, 'TodoUpdate'),
  tasks: await countRows(server, 'Task'),
  changes: await countRows(server, 'TaskChange'),
});

describe('lastEventId', () => {
  it('"1e309", "Infinity", 20 digits and others are refused with the contract text, on every feed', async () => {
    for (const bad of ['1e309', 'Infinity', '12345678901234567890', '-1', '1.5', '', ' 7', '0x10']) {
      for (const [procedure, input] of [
        ['todos.watch', { sessionId, lastEventId: bad }],
        ['tasks.watch', { lastEventId: bad }],
        ['dashboard.watchSessions', { lastEventId: bad }],
        ['runs.watch', { runId: 'run_unknown', lastEventId: bad }],
        ['dashboard.watchRunLink', { runId: 'run_unknown', lastEventId: bad }],
      ] as const) {
        const error = await streamError(procedure, input);
        expect(error, `${procedure} ${bad}`).toMatchObject({
          message: `Error: invalid input: \`lastEventId\` must be the id of an event this feed sent: a whole number of at most 15 digits (got ${JSON.stringify(bad)}).`,
          data: { httpStatus: 400 },
        });
      }
    }
  });
});

describe('nesting, size, text and keys', () => {
  it('JSON nested 10,000 levels deep is refused at the 33rd level, naming where', async () => {
    const before = await rows();
    const deep = `{"subject":"Deep","metadata":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    const answer = await post('tasks.create', deep);
    expectClean(answer);
    expect(answer.message).toBe(`Error: invalid input: \`metadata.a${'[0]'.repeat(30)}\` nests deeper than 32 levels; flatten it.`);
    const topLevel = await post('todos.write', `{"todos":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    expectClean(topLevel);
    expect(topLevel.message).toMatch(/^Error: invalid input: `todos(\[0\]){31}` nests deeper than 32 levels; flatten it\.$/);
    expect(await rows()).toEqual(before);
  });

  it('a 15 MB value and a 1 MB field name are quoted by a short prefix only', async () => {
    const before = await rows();
    const huge = 'A'.repeat(15 * 1024 * 1024);
    const status = await post('todos.write', JSON.stringify({ todos: [{ content: 'x', status: huge }] }));
    expectClean(status);
    expect(status.text.length).toBeLessThan(1_000);
    expect(status.message).toBe(
      `Error: invalid todo: \`todos[0].status\` must be one of pending, in_progress, completed (got "${'A'.repeat(40)}"…).`,
    );
    const key = await post('todos.write', JSON.stringify({ todos: [], [`k${'y'.repeat(1024 * 1024)}`]: 1 }));
    expectClean(key);
    expect(key.text.length).toBeLessThan(1_000);
    expect(key.message).toBe(`Error: invalid input: unknown field \`k${'y'.repeat(39)}…\`.`);
    expect(await rows()).toEqual(before);
  });

  it('an unknown procedure path of 12 KB is quoted by a short prefix, in the text and in the answer data, also in a batch', async () => {
    const long = `todos.${'x'.repeat(12_000)}`;
    const single = await post(long, '{}');
    expect(single.status).toBe(404);
    expect(single.text.length).toBeLessThan(1_000);
    expect(JSON.parse(single.text)).toMatchObject({
      error: { message: `Error: no procedure found on path "${long.slice(0, 40)}"….`, data: { path: `${long.slice(0, 100)}…` } },
    });
    const half = long.slice(0, 6_000); // two of them fit in the request line
    const batch = await post(`${half},${half}?batch=1`, '{"0":{},"1":{}}');
    expect(batch.status).toBe(404);
    expect(batch.text.length).toBeLessThan(2_000);
    expect(batch.text).not.toContain('x'.repeat(101));
  });

  it('text with an unpaired surrogate is refused, naming the field, instead of being stored as U+FFFD', async () => {
    const before = await rows();
    for (const [text, code] of [
      ['\\ud800abc', 'D800'],
      ['abc\\udfff', 'DFFF'],
      ['\\udc00\\ud800', 'DC00'],
    ] as const) {
      const answer = await post('todos.write', `{"todos":[{"content":"ok","status":"pending"},{"content":"${text}","status":"pending"}]}`);
      expectClean(answer);
      expect(answer.message).toBe(
        `Error: invalid input: \`todos[1].content\` contains an unpaired surrogate (U+${code}); send valid Unicode text.`,
      );
    }
    // A paired surrogate (an emoji) is text like any other.
    expect((await post('todos.write', '{"todos":[{"content":"Ship \\ud83d\\ude80","status":"pending"}]}')).status).toBe(200);
    expect(await countRows(server, 'TodoUpdate')).toBe(before.todos + 1);
  });

  it('__proto__, constructor and prototype keys are refused, not silently dropped', async () => {
    const before = await rows();
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const answer = await post('tasks.create', `{"subject":"Polluted","metadata":{"ok":1,"${key}":{"admin":true}}}`);
      expectClean(answer);
      expect(answer.message).toBe(`Error: invalid input: \`metadata.${key}\`: \`${key}\` is a reserved name and cannot be a key.`);
    }
    expect(await rows()).toEqual(before);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('text or a key with a NUL character is refused, naming where, on every database alike', async () => {
    const before = { ...(await rows()), sessions: await countRows(server, 'Session') };
    const cases = [
      ['todos.write', '{"todos":[{"content":"ok","status":"pending"},{"content":"a\\u0000b","status":"pending"}]}', '`todos[1].content`'],
      ['tasks.create', '{"subject":"Nul\\u0000"}', '`subject`'],
      ['tasks.create', '{"subject":"Nul","metadata":{"note":"x\\u0000"}}', '`metadata.note`'],
      ['sessions.open', '{"title":"\\u0000"}', '`title`'],
    ] as const;
    for (const [procedure, json, where] of cases) {
      const answer = await post(procedure, json);
      expectClean(answer);
      expect(answer.message).toBe(`Error: invalid input: ${where} contains a NUL character (U+0000); send text without it.`);
    }
    const key = await post('tasks.create', '{"subject":"Nul","metadata":{"k\\u0000":1}}');
    expectClean(key);
    expect(key.message).toBe('Error: invalid input: a key in `metadata` contains a NUL character (U+0000); send text without it.');
    expect({ ...(await rows()), sessions: await countRows(server, 'Session') }).toEqual(before);
  });
});

describe('numbers past what a PostgreSQL integer holds', () => {
  it('a base revision, a history page and a feed position past 2^31 are answered as any other, not with a 500', async () => {
    const write = await post('todos.write', '{"todos":[{"content":"Base","status":"pending"}]}');
    expect(write.status).toBe(200);
    const before = await rows();
    const stale = await post('todos.write', '{"baseRevision":3000000000,"todos":[{"content":"Late","status":"pending"}]}');
    expect(stale.status).toBe(409);
    expect(stale.message).toMatch(
      /^Error: stale revision: this update was based on revision 3000000000, but the list is at revision \d+; read the list again and send the whole list\.$/,
    );
    expect(await rows()).toEqual(before);
    // The last revision the column holds: the list it would move to is past it.
    const last = await post('todos.write', '{"baseRevision":2147483647,"todos":[{"content":"Late","status":"pending"}]}');
    expect([last.status, last.message]).toEqual([
      409,
      expect.stringMatching(/^Error: stale revision: this update was based on revision 2147483647, but the list is at revision \d+;/),
    ]);
    expect(await rows()).toEqual(before);

    const history = await fetch(
      `${server.url}/trpc/todos.history?input=${encodeURIComponent(JSON.stringify({ sessionId, before: 3_000_000_000 }))}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(history.status).toBe(200);
    const cards = ((await history.json()) as { result: { data: { cards: { items: { content: string }[] }[] } } }).result.data.cards;
    expect(cards[0]?.items).toEqual([{ content: 'Base', status: 'pending' }]);

    // The largest position the contract allows: the feeds open and wait for what comes after it, no error event.
    for (const [procedure, input] of [
      ['todos.watch', { sessionId, lastEventId: '999999999999999' }],
      ['tasks.watch', { lastEventId: '999999999999999' }],
    ] as const) {
      const head = await streamHead(procedure, input);
      expect(head.status, procedure).toBe(200);
      expect(head.text, procedure).toMatch(/^event: connected\n/);
      expect(head.text, procedure).not.toMatch(/serialized-error|internal server error/);
    }
  });
});
