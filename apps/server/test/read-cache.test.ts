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
});
