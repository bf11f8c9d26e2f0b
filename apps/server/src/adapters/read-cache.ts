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
      if (typeof answer === 'object' && answer !== null) texts.set(answer, null);
      weight += answerWeight;
      for (const oldest of entries.keys()) {
        if (weight <= capacity) break;
        drop(oldest);
      }
    },
    answerText(value) {
      if (typeof value !== 'object' || value === null) return undefined;
      const text = texts.get(value);
      if (text !== null) return text;
      const made = JSON.stringify(value);
      texts.set(value, made);
      return made;
    },
    stats: () => ({ hits, misses, entries: entries.size, weight }),
  };
}
