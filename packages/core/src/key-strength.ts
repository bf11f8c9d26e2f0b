// Whether an operator-chosen key is strong enough to guard a workspace: long, varied, not a run of consecutive characters.
export const MIN_KEY_LENGTH = 24;
/** Bits of entropy a key's own character distribution must carry at least (Shannon entropy × length). */
export const MIN_KEY_BITS = 64;
/** The longest run of consecutive characters (abcdef…, 987654…) a key may contain. */
export const MAX_KEY_SEQUENCE = 7;

const advice = `use at least ${MIN_KEY_LENGTH} random characters (for example \`openssl rand -hex 24\`)`;

/** Shannon entropy of the key's characters, times its length: what a key that repeats a few characters lacks. */
export function keyBits(key: string): number {
  const chars = [...key];
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / chars.length) * Math.log2(n / chars.length);
  return perChar * chars.length;
}

function longestSequence(key: string): number {
  let longest = 1;
  for (const step of [1, -1]) {
    let run = 1;
    for (let i = 1; i < key.length; i++) {
      run = key.charCodeAt(i) - key.charCodeAt(i - 1) === step ? run + 1 : 1;
      longest = Math.max(longest, run);
    }
  }
  return longest;
}

/** Why `key` is too weak (a sentence fragment after "is too weak: "), or null when it is strong enough. */
export function keyWeakness(key: string): string | null {
  const length = [...key].length;
  if (length < MIN_KEY_LENGTH) return `it has ${length} characters; ${advice}`;
  const distinct = new Set(key).size;
  if (distinct < 8) return `it uses only ${distinct} distinct character${distinct === 1 ? '' : 's'}; ${advice}`;
  const run = longestSequence(key.toLowerCase());
  if (run > MAX_KEY_SEQUENCE) return `it contains a run of ${run} consecutive characters; ${advice}`;
  const bits = Math.floor(keyBits(key));
  if (bits < MIN_KEY_BITS) return `its characters repeat too much (about ${bits} bits of entropy, ${MIN_KEY_BITS} needed); ${advice}`;
  return null;
}
