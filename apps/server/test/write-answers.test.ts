// The writer's answers as lines (cluster/messages.ts): a result's data last, its text as the writer made it (known texts
// spliced in), found again in the line by the worker, which sends that text on instead of serialising the data again.
import { describe, expect, it } from 'vitest';
import { type WriteAnswer, answerDataText, answerLine } from '../src/cluster/messages.ts';
import { jsonWithKnown, knowJson, knowParsedJson } from '../src/known-json.ts';

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
      if (answer.ok && answer.data !== undefined) expect(text).toBe(JSON.stringify(answer.data));
      else expect(text).toBeUndefined();
    }
  });

  it('are sent on by the worker as they came: a parsed answer noted with its text answers that text', () => {
    const line = answerLine({ call: 7, ok: true, data: { id: 'run_1', tasks: checklist } });
    const parsed = (JSON.parse(line) as { data: object }).data;
    const text = answerDataText(line) ?? '';
    knowParsedJson(parsed, text);
    expect(jsonWithKnown(parsed)).toBe(text);
    // The text noted is what goes out, not a new serialisation (here, one made to differ).
    const other = { id: 'run_2' };
    knowParsedJson(other, '{"id":"run_2" }');
    expect(jsonWithKnown(other)).toBe('{"id":"run_2" }');
    expect(jsonWithKnown({ id: 'run_2' })).toBe('{"id":"run_2"}');
  });
});
