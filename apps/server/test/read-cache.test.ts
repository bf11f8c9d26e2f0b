// The read cache behind core's ReadCache port: answers by key and stamp, least recently used out past its weight, an
// older stamp never replacing a newer answer, and a kept answer's JSON text made once.
import { describe, expect, it } from 'vitest';
import { readCache } from '../src/adapters/read-cache.ts';

describe('read cache', () => {
  it('answers only at the stamp the answer was kept at', () => {
    const cache = readCache(100);
    const page = { tasks: ['a'] };
    cache.put('list', 7, page, 2);
    expect(cache.get('list', 7)).toBe(page);
    expect(cache.get('list', 8)).toBeUndefined();
    expect(cache.get('other', 7)).toBeUndefined();
    expect(cache.stats()).toEqual({ hits: 1, misses: 2, entries: 1, weight: 2 });
  });

  it('a newer stamp replaces the answer; an older one (a slower reader) does not', () => {
    const cache = readCache(100);
    cache.put('list', 7, 'at 7', 1);
    cache.put('list', 9, 'at 9', 1);
    cache.put('list', 8, 'at 8', 1);
    expect(cache.get('list', 9)).toBe('at 9');
    expect(cache.get('list', 8)).toBeUndefined();
    expect(cache.stats()).toMatchObject({ entries: 1, weight: 1 });
  });

  it('keeps at most its capacity of weight, the least recently used out first; an answer over a tenth of it is not kept', () => {
    const cache = readCache(100);
    for (const key of ['a', 'b', 'c', 'd', 'e']) cache.put(key, 1, key, 10);
    cache.get('a', 1); // a is now the most recently used
    for (const key of ['f', 'g', 'h', 'i', 'j', 'k']) cache.put(key, 1, key, 10);
    expect(cache.stats()).toMatchObject({ entries: 10, weight: 100 });
    expect(cache.get('a', 1)).toBe('a');
    expect(cache.get('b', 1)).toBeUndefined();
    cache.put('heavy', 1, 'heavy', 11);
    expect(cache.get('heavy', 1)).toBeUndefined();
    expect(cache.stats()).toMatchObject({ entries: 10, weight: 100 });
  });

  it("a kept answer's JSON text is made once; any other value has none", () => {
    const cache = readCache(100);
    let serialised = 0;
    const page = Object.freeze({
      toJSON() {
        serialised += 1;
        return { listName: 'kept', tasks: [] };
      },
    });
    cache.put('list', 1, page, 1);
    expect(cache.answerText(page)).toBe('{"listName":"kept","tasks":[]}');
    expect(cache.answerText(page)).toBe('{"listName":"kept","tasks":[]}');
    expect(serialised).toBe(1);
    expect(cache.answerText({ listName: 'kept', tasks: [] })).toBeUndefined();
    expect(cache.answerText('text')).toBeUndefined();
    expect(cache.answerText(null)).toBeUndefined();
  });

  it('a copy with one number set: the kept answer unchanged, the copy shares the rest, its text is the kept text with that number', () => {
    const cache = readCache(100);
    const view = Object.freeze({
      name: 'Run',
      blocks: Object.freeze({
        work: Object.freeze({ tasks: Object.freeze([Object.freeze({ timeMs: 5 }), Object.freeze({ timeMs: 0 })]) }),
      }),
      other: Object.freeze({ big: 'x'.repeat(100) }),
    });
    // As a run's view is kept: beside where its clock shows.
    cache.put('run', 3, Object.freeze({ view, live: Object.freeze({ index: 0 }) }), 3);
    const path = ['blocks', 'work', 'tasks', 0, 'timeMs'];
    const copy = cache.withNumber(view, path, 1234) as typeof view;
    expect(copy.blocks.work.tasks[0]?.timeMs).toBe(1234);
    expect(view.blocks.work.tasks[0]?.timeMs).toBe(5);
    expect(copy.other).toBe(view.other);
    expect(copy.blocks.work.tasks[1]).toBe(view.blocks.work.tasks[1]);
    expect(cache.answerText(copy)).toBe(JSON.stringify(copy));
    const later = cache.withNumber(view, path, 98_765);
    expect(cache.answerText(later)).toBe(JSON.stringify(later));
    expect(cache.answerText(view)).toBe(JSON.stringify(view));
  });

  it('a copy whose kept text cannot be cut at one place (the marker number already in it), or of an answer not kept, has no text', () => {
    const cache = readCache(100);
    const odd = Object.freeze({ a: Object.freeze({ n: 1 }), b: -9.876543210123457e-300 });
    cache.put('odd', 1, odd, 1);
    const copy = cache.withNumber(odd, ['a', 'n'], 2);
    expect(copy).toEqual({ a: { n: 2 }, b: -9.876543210123457e-300 });
    expect(cache.answerText(copy)).toBeUndefined();
    const loose = { a: { n: 1 } };
    expect(cache.answerText(cache.withNumber(loose, ['a', 'n'], 2))).toBeUndefined();
    expect(() => cache.withNumber(odd, ['c', 'n'], 2)).toThrow('the answer has no n to set');
  });
});
