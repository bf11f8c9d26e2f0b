// How a refusal shows a bad value: a short prefix, never the whole value (a 15 MB input must not come back as a 30 MB error).
export const SHOWN_MAX = 40;

/** `value` as a refusal quotes it: a string as JSON cut to SHOWN_MAX characters ("…" marks the cut), other values briefly. */
export function shown(value: unknown, max = SHOWN_MAX): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') {
    const chars = [...value.slice(0, max * 2)];
    return chars.length > max || value.length > max * 2 ? `${JSON.stringify(chars.slice(0, max).join(''))}…` : JSON.stringify(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === null) return String(value);
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  return `a ${typeof value === 'object' ? 'JSON object' : typeof value}`;
}

/** `text` cut to `max` characters, unquoted ("…" marks the cut), never splitting a character: a name or path a refusal echoes. */
export function shownName(text: string, max = SHOWN_MAX): string {
  const chars = [...text.slice(0, max * 2)];
  return chars.length > max || text.length > max * 2 ? `${chars.slice(0, max).join('')}…` : text;
}

/** Field names as a refusal lists them: each cut like a value, at most five, then how many more. */
export function shownKeys(keys: readonly string[]): string {
  const listed = keys.slice(0, 5).map((k) => `\`${shownName(k)}\``);
  return keys.length > 5 ? `${listed.join(', ')} and ${keys.length - 5} more` : listed.join(', ');
}
