// A text kept as its difference from another: a step's prior fields, a few characters where the column is a whole array.

/**
 * `[p, s, middle]`: the text was the first p characters of the other text, then `middle`, then the other's last s. A
 * step changes one task's outcome or time in an array of every task's: its difference is a few dozen characters.
 */
export type TextSplice = [prefix: number, suffix: number, middle: string];

/** Characters a splice's own JSON adds at most (its brackets, quotes and two numbers): kept whole when not shorter. */
const SPLICE_COST = 24;

/** `before` as its difference from `after`, or null when that would not be shorter than `before` itself. */
export function spliceOf(before: string, after: string): TextSplice | null {
  const most = Math.min(before.length, after.length);
  let p = 0;
  while (p < most && before.charCodeAt(p) === after.charCodeAt(p)) p++;
  // The common end, not reaching into the common start of either text.
  let s = 0;
  while (s < most - p && before.charCodeAt(before.length - 1 - s) === after.charCodeAt(after.length - 1 - s)) s++;
  const middle = before.slice(p, before.length - s);
  return middle.length + SPLICE_COST < before.length ? [p, s, middle] : null;
}

/** The text a splice was made from, given the text it was made against. */
export const unsplice = (after: string, [p, s, middle]: TextSplice) => after.slice(0, p) + middle + after.slice(after.length - s);
