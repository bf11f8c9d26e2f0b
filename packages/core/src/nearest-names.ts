// The names closest to a mistyped one (edit distance), for refusals that point to what the caller probably meant.

/** Levenshtein distance between two strings (by code unit; names here are ASCII). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Up to `n` of `names`, nearest to `name` first (ties by name). */
export function nearestNames(name: string, names: readonly string[], n = 3): string[] {
  return [...names]
    .map((candidate) => ({ candidate, d: editDistance(name.toLowerCase(), candidate.toLowerCase()) }))
    .sort((x, y) => x.d - y.d || x.candidate.localeCompare(y.candidate))
    .slice(0, n)
    .map((x) => x.candidate);
}
