// Checks every input before its contract does, walking it without recursion: refuses nesting deeper than
// INPUT_DEPTH_MAX, text with an unpaired UTF-16 surrogate (stored text would silently turn it into U+FFFD) or a NUL
// character (PostgreSQL's text cannot hold one), and keys that name an object's prototype (`__proto__` would be silently
// dropped), each naming where it is.
import { INPUT_DEPTH_MAX } from './limits.ts';
import { pathText } from './format-error.ts';

/** Keys refused anywhere in an input: they name an object's prototype machinery, not data. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** An unpaired surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** U+0000: refused on every database alike, since PostgreSQL cannot store it in text. */
const NUL = '\u0000';

interface Node {
  value: unknown;
  depth: number;
  key: PropertyKey | null;
  parent: Node | null;
}

const pathOf = (node: Node) => {
  const path: PropertyKey[] = [];
  for (let n: Node | null = node; n && n.key !== null; n = n.parent) path.unshift(n.key);
  return path;
};

const where = (node: Node) => (node.key === null ? 'the input' : `\`${pathText(pathOf(node)).slice(0, 120)}\``);

/** `String.prototype.isWellFormed` (ES2024, in every Node this runs on): no unpaired surrogate. */
const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * True when the input certainly passes, found without allocating (the walk below builds a node per value, to name the
 * place of a problem): the common case on every call. Its recursion is bounded by INPUT_DEPTH_MAX; any doubt (a problem,
 * or anything unusual) is left to the full walk, which decides.
 */
function plainlyFine(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return wellFormed(value) && !value.includes(NUL);
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= INPUT_DEPTH_MAX) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!plainlyFine(value[i], depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (RESERVED_KEYS.has(key) || !wellFormed(key) || key.includes(NUL)) return false;
    if (!plainlyFine((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** The refusal of an input that no contract should see (an `Error: …` text), or null when it is fine. */
export function inputProblem(input: unknown): string | null {
  if (plainlyFine(input, 0)) return null;
  const stack: Node[] = [{ value: input, depth: 0, key: null, parent: null }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const { value } = node;
    if (typeof value === 'string') {
      const lone = LONE_SURROGATE.exec(value);
      if (lone) {
        const code = (lone[0].codePointAt(0) ?? 0).toString(16).toUpperCase();
        return `Error: invalid input: ${where(node)} contains an unpaired surrogate (U+${code}); send valid Unicode text.`;
      }
      if (value.includes(NUL)) return `Error: invalid input: ${where(node)} contains a NUL character (U+0000); send text without it.`;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (node.depth >= INPUT_DEPTH_MAX) {
      return `Error: invalid input: ${where(node)} nests deeper than ${INPUT_DEPTH_MAX} levels; flatten it.`;
    }
    const entries: [PropertyKey, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, child] of entries) {
      const next: Node = { value: child, depth: node.depth + 1, key, parent: node };
      if (typeof key === 'string') {
        if (RESERVED_KEYS.has(key)) return `Error: invalid input: ${where(next)}: \`${key}\` is a reserved name and cannot be a key.`;
        if (LONE_SURROGATE.test(key))
          return `Error: invalid input: a key in ${where(node)} contains an unpaired surrogate; send valid Unicode text.`;
        if (key.includes(NUL))
          return `Error: invalid input: a key in ${where(node)} contains a NUL character (U+0000); send text without it.`;
      }
      stack.push(next);
    }
  }
  return null;
}
