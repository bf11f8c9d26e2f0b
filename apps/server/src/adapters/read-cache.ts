// The read cache of core's ReadCache port: answers by key, each kept with the stamp it was read at, least recently used
// dropped first once their weights pass a total. Each process keeps its own; a stamp read from the database makes it right
// across processes and replicas.
import type { ReadCache } from '@agent-tasks/core';

export interface ReadCacheStats {
  hits: number;
  misses: number;
  entries: number;
  weight: number;
}

/** A number no answer holds by chance: the place of the one number a copy changes, in its kept answer's text. */
const MARKER = -9.876543210123457e-300;
const MARKER_TEXT = JSON.stringify(MARKER);

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** `value` with the number at `path` set to `n`: copied along the path, `value` itself unchanged. */
function setAt(value: unknown, path: readonly (string | number)[], n: number): unknown {
  if (path.length === 0) return n;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(value)) {
    const copy = value.slice();
    copy[head as number] = setAt(value[head as number], rest, n);
    return copy;
  }
  if (typeof value === 'object' && value !== null) {
    return { ...value, [head]: setAt((value as Record<string | number, unknown>)[head], rest, n) };
  }
  throw new Error(`the answer has no ${String(head)} to set`);
}

export interface KeptAnswers extends ReadCache {
  /** A kept answer's JSON text, made once (kept answers are frozen); undefined for any other value. */
  answerText: (value: unknown) => string | undefined;
  stats(): ReadCacheStats;
}

/** `capacity`: the most weight (tasks, say) kept at once; an answer heavier than a tenth of it is not kept. */
export function readCache(capacity = 20_000): KeptAnswers {
  const entries = new Map<string, { stamp: number; answer: unknown; weight: number }>();
  // Every answer kept, with its JSON text once asked for; gone with the answer.
  const texts = new WeakMap<object, string | null>();
  // Copies with one number set (withNumber): their kept answer, the number's place and value.
  const variants = new WeakMap<object, { answer: object; path: readonly (string | number)[]; slot: string; value: number }>();
  // Per kept answer and place: its text cut around that number (made once), or null when it cannot be cut.
  const cuts = new WeakMap<object, Map<string, [before: string, after: string] | null>>();
  const textOf = (answer: object) => {
    let text = texts.get(answer);
    if (text === null || text === undefined) {
      text = JSON.stringify(answer);
      texts.set(answer, text);
    }
    return text;
  };
  /** The kept answer's text cut around the number at `path`: made with a marker there, split at it. */
  const cutAround = (answer: object, slot: string, path: readonly (string | number)[]) => {
    let byPlace = cuts.get(answer);
    if (!byPlace) cuts.set(answer, (byPlace = new Map<string, [string, string] | null>()));
    if (!byPlace.has(slot)) {
      const marked = JSON.stringify(setAt(answer, path, MARKER));
      const parts = marked.split(MARKER_TEXT);
      byPlace.set(slot, parts.length === 2 ? [parts[0] as string, parts[1] as string] : null);
    }
    return byPlace.get(slot) ?? null;
  };
  let weight = 0;
  let hits = 0;
  let misses = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    weight -= entry.weight;
  };
  return {
    get(key, stamp) {
      const entry = entries.get(key);
      if (entry?.stamp !== stamp) {
        misses += 1;
        return undefined;
      }
      hits += 1;
      // Map keeps insertion order: set again, it is the most recently used.
      entries.delete(key);
      entries.set(key, entry);
      return entry.answer;
    },
    put(key, stamp, answer, answerWeight) {
      // A slower reader that read an older stamp does not replace a newer answer.
      if ((entries.get(key)?.stamp ?? -1) > stamp) return;
      drop(key);
      if (answerWeight > capacity / 10) return;
      entries.set(key, { stamp, answer, weight: answerWeight });
      // The answer, and the answers an entry holds (a run's view beside where its clock shows): frozen, so sent as made.
      const held: unknown[] = isObject(answer) ? Object.values(answer) : [];
      for (const kept of [answer, ...held]) {
        if (isObject(kept) && !texts.has(kept)) texts.set(kept, null);
      }
      weight += answerWeight;
      for (const oldest of entries.keys()) {
        if (weight <= capacity) break;
        drop(oldest);
      }
    },
    withNumber(answer, path, value) {
      const copy = setAt(answer, path, value);
      if (isObject(answer) && texts.has(answer) && isObject(copy)) {
        variants.set(copy, { answer, path, slot: path.join('\n'), value });
      }
      return copy;
    },
    answerText(value) {
      if (!isObject(value)) return undefined;
      if (texts.has(value)) return textOf(value);
      const variant = variants.get(value);
      if (!variant) return undefined;
      const cut = cutAround(variant.answer, variant.slot, variant.path);
      return cut ? `${cut[0]}${JSON.stringify(variant.value)}${cut[1]}` : undefined;
    },
    stats: () => ({ hits, misses, entries: entries.size, weight }),
  };
}
