// The writer's answers as lines (cluster/messages.ts): a result's data last, its text as the writer made it (known texts
// spliced in), found again in the line by the worker, which sends that text on instead of serialising the data again.
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type WriteAnswer, answerLine, isWriteAnswer, parseAnswerLine } from '../src/cluster/messages.ts';
import { jsonWithKnown, knowJson, knownJson, lazyJson } from '../src/known-json.ts';

/** The text of a result's data in a line made by `answerLine` (after its head), or undefined (a failure, no data). */
function answerDataText(line: string): string | undefined {
  const at = line.indexOf(',"ok":true,"data":');
  return at === -1 ? undefined : line.slice(at + ',"ok":true,"data":'.length, -1);
}

const checklist = Object.freeze([Object.freeze({ action: 'Check "it"', expected_result: 'It holds é' })]);
knowJson(checklist, JSON.stringify(checklist));

describe("the writer's answer lines", () => {
  it('read back as the answer, with the text of its data found in the line', () => {
    const answers: WriteAnswer[] = [
      { call: 1, ok: true, data: { id: 'run_1', tasks: checklist, note: ',"ok":true,"data":' } },
      { call: 2, revoked: [['ab12'], null], ok: true, data: [1, 'two', { three: 3 }] },
      { call: 3, ok: true, data: 'a string' },
      { call: 4, ok: true, data: undefined },
      { call: 5, ok: false, failure: { kind: 'domain', code: 'CONFLICT', message: 'Error: no.', details: { ok: true, data: 1 } } },
    ];
    for (const answer of answers) {
      const line = answerLine(answer);
      expect(line).not.toContain('\n');
      expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(answer)));
      const text = answerDataText(line);
      if (answer.ok && 'data' in answer && answer.data !== undefined) expect(text).toBe(JSON.stringify(answer.data));
      else expect(text).toBeUndefined();
    }
  });

  it('are sent on by the worker as they came: a lazy answer answers the text it stands for', () => {
    const line = answerLine({ call: 7, ok: true, data: { id: 'run_1', tasks: checklist } });
    const text = answerDataText(line) ?? '';
    expect(jsonWithKnown(lazyJson(text, false))).toBe(text);
    // The text given is what goes out, not a new serialisation (here, one made to differ).
    expect(jsonWithKnown(lazyJson('{"id":"run_2" }', false))).toBe('{"id":"run_2" }');
    expect(jsonWithKnown({ id: 'run_2' })).toBe('{"id":"run_2"}');
  });
});

describe("the writer's answer lines read by a worker", () => {
  const answers: WriteAnswer[] = [
    { call: 1, ok: true, data: { id: 'run_1', tasks: checklist, note: ',"ok":true,"data":' } },
    { call: 2, revoked: [['ab12'], null], ok: true, data: [1, 'two', { three: 3 }] },
    { call: 3, ok: true, data: 'a string' },
    { call: 4, ok: true, data: 42 },
    { call: 5, ok: true, data: undefined },
    { call: 6, ok: false, failure: { kind: 'domain', code: 'CONFLICT', message: 'Error: no.', details: { ok: true, data: 1 } } },
    // A failure whose details hold what a result's head ends with: still read as the failure it is.
    {
      call: 7,
      ok: false,
      failure: { kind: 'domain', code: 'CONFLICT', message: 'Error: no.', details: { x: 1, ok: true, data: { id: 1 } } },
    },
    { call: 8, revoked: [null], ok: false, failure: { kind: 'trpc', code: 'CONFLICT', message: ',"ok":true,"data":{}' } },
  ];

  it('read back as the answer, equal to JSON.parse of the line whatever reads them', () => {
    for (const answer of answers) {
      const line = answerLine(answer);
      const read = parseAnswerLine(line) as Record<string, unknown>;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(isWriteAnswer(read)).toBe(true);
      expect(read).toEqual(parsed);
      expect(JSON.stringify(read)).toBe(JSON.stringify(parsed));
      expect(Array.isArray(read.data)).toBe(Array.isArray(parsed.data));
    }
    // A contract parses a lazy answer as it parses the answer itself.
    const contract = z.object({ id: z.string(), tasks: z.array(z.object({ action: z.string(), expected_result: z.string() })) });
    const read = parseAnswerLine(answerLine(answers[0]!)) as { data: unknown };
    expect(contract.parse(read.data)).toEqual(contract.parse(JSON.parse(JSON.stringify((answers[0] as { data: unknown }).data))));
  });

  it('hold an object or array parsed only when read: sent on as its text, never parsed', () => {
    const line = answerLine({ call: 7, ok: true, data: { id: 'run_1', tasks: checklist } });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const read = parseAnswerLine(line) as { call: number; data: object };
      expect(read.call).toBe(7);
      expect(jsonWithKnown(read.data)).toBe(answerDataText(line));
      // Whether it is a stream (tRPC's question of every answer) needs no parse either.
      expect(Symbol.asyncIterator in read.data).toBe(false);
      expect(Object.prototype.toString.call(read.data)).toBe('[object Object]');
      // Only the line's head was parsed; the 28 KB of a run's view would not be.
      expect(parse.mock.calls.map(([text]) => String(text))).toEqual(['{"call":7,"ok":true}']);
      expect((read.data as { id: string }).id).toBe('run_1');
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
  });

  it('an array stands for an array without a parse: iterable, not a stream', () => {
    const read = parseAnswerLine(answerLine({ call: 9, ok: true, data: [{ id: 1 }, { id: 2 }] })) as { data: unknown[] };
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(Symbol.iterator in read.data).toBe(true);
      expect(Symbol.asyncIterator in read.data).toBe(false);
      expect(parse).not.toHaveBeenCalled();
      expect([...read.data]).toEqual([{ id: 1 }, { id: 2 }]);
    } finally {
      parse.mockRestore();
    }
  });

  it('answer `then` unparsed only while unchanged: one set afterwards is read back', () => {
    const read = parseAnswerLine(answerLine({ call: 10, ok: true, data: { id: 'run_1' } })) as { data: Record<string, unknown> };
    expect(read.data.then).toBeUndefined();
    read.data.then = 'set';
    expect(read.data.then).toBe('set');
    expect('then' in read.data).toBe(true);
  });

  it('a data with a `then` of its own says so in the head: awaited, it answers that `then` (without, nothing is parsed)', async () => {
    const line = answerLine({ call: 11, ok: true, data: { then: 'next', id: 'run_1' } });
    expect(line.startsWith('{"call":11,"then":true,"ok":true,"data":')).toBe(true);
    const read = parseAnswerLine(line) as { call: number; data: Record<string, unknown> };
    expect(read).toEqual({ call: 11, ok: true, data: { then: 'next', id: 'run_1' } });
    expect(read.data.then).toBe('next');
    // A text that holds "then" elsewhere (a value, a nested key) is no answer's `then`.
    const plain = answerLine({ call: 12, ok: true, data: { id: 'run_1', text: '"then"', nested: { then: 1 } } });
    expect(plain.startsWith('{"call":12,"ok":true,"data":')).toBe(true);
    const lazy = (parseAnswerLine(plain) as { data: object }).data;
    const parse = vi.spyOn(JSON, 'parse');
    const search = vi.spyOn(String.prototype, 'includes');
    try {
      // `await` asks the stand-in for its `then`: answered without parsing or searching the text.
      expect(await Promise.resolve(lazy)).toBe(lazy);
      expect(parse).not.toHaveBeenCalled();
      expect(search).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
      search.mockRestore();
    }
    expect(lazy).toEqual({ id: 'run_1', text: '"then"', nested: { then: 1 } });
    // Whatever a `toJSON` makes may hold one: said so, and answered.
    const made = answerLine({ call: 13, ok: true, data: { toJSON: () => ({ then: 'made', id: 'run_1' }) } });
    expect(made.startsWith('{"call":13,"then":true,"ok":true,"data":')).toBe(true);
    expect((parseAnswerLine(made) as { data: { then: unknown } }).data.then).toBe('made');
  });

  it('forget their text once changed, so what is sent is the value as it is', () => {
    const read = parseAnswerLine(answerLine({ call: 8, ok: true, data: { id: 'run_1', count: 1 } })) as { data: Record<string, unknown> };
    read.data.count = 2;
    delete read.data.id;
    expect(knownJson(read.data)).toBeUndefined();
    expect(jsonWithKnown(read.data)).toBe('{"count":2}');
  });
});
