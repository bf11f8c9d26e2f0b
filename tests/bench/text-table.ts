// Renders rows as an aligned plain-text table: first column left-aligned, the others right-aligned.
export function textTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, col) => Math.max(...all.map((row) => (row[col] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, col) => (col === 0 ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export const fixed = (value: number | null | undefined, digits = 2) =>
  value === null || value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits);

export const ratio = (ours: number, base: number) => (base > 0 ? `${(ours / base).toFixed(ours / base < 10 ? 2 : 1)}x` : '-');
