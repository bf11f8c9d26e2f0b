// Text measuring and wrapping for the SVG cards: widths from string-width (Unicode columns: zero for marks and
// invisible characters, two for wide East Asian characters and emoji) turned into pixels at a font size.
import { displayText } from '@agent-tasks/core';
import stringWidth from 'string-width';

/**
 * One column's advance in em: the width of a digit in DejaVu Sans, one of the widest common default faces (it is at
 * least as wide as most lower-case letters), so measured text stays inside its box in narrower faces too.
 */
const COLUMN_EM = 0.64;
/** Bold text is this much wider. */
const BOLD = 1.12;
export const ELLIPSIS = '…';

const segments = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** The user-perceived characters of `text` (an emoji with its modifiers, a letter with its marks): never split. */
const graphemes = (text: string) => Array.from(segments.segment(text), (s) => s.segment);

/** Estimated width in pixels of `text` at font size `size`. */
export function textWidth(text: string, size: number, bold = false): number {
  return stringWidth(text) * COLUMN_EM * size * (bold ? BOLD : 1);
}

/** How many of `chars` fit in `max` pixels after `used` pixels. */
function fitting(chars: readonly string[], max: number, size: number, bold: boolean, used = 0): number {
  let width = used;
  let n = 0;
  while (n < chars.length) {
    const next = textWidth(chars[n] ?? '', size, bold);
    if (width + next > max) break;
    width += next;
    n++;
  }
  return n;
}

/** The longest prefix of `text` (whole characters) that fits `max` pixels with an ellipsis after it. */
function cutToWidth(text: string, max: number, size: number, bold: boolean): string {
  const chars = graphemes(text);
  const n = fitting(chars, max, size, bold, textWidth(ELLIPSIS, size, bold));
  return `${chars.slice(0, n).join('').trimEnd()}${ELLIPSIS}`;
}

/**
 * Wraps `text` into at most `maxLines` lines of at most `max` pixels, breaking between words (inside a word only
 * when the word alone is too long); a text that does not fit ends its last line with an ellipsis.
 */
export function wrapText(text: string, max: number, size: number, maxLines: number, bold = false): { lines: string[]; truncated: boolean } {
  const words = displayText(text).split(' ').filter(Boolean);
  const lines: string[] = [];
  let line = '';
  const fits = (s: string) => textWidth(s, size, bold) <= max;
  for (const word of words) {
    const candidate = line ? `${line} ${word}` : word;
    if (fits(candidate)) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    // A word wider than the line is broken between characters.
    let rest = word;
    while (!fits(rest)) {
      const chars = graphemes(rest);
      const n = Math.max(1, fitting(chars, max, size, bold));
      lines.push(chars.slice(0, n).join(''));
      rest = chars.slice(n).join('');
    }
    line = rest;
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return { lines, truncated: false };
  const kept = lines.slice(0, maxLines);
  const last = `${kept[maxLines - 1] ?? ''} ${lines.slice(maxLines).join(' ')}`;
  kept[maxLines - 1] = cutToWidth(last, max, size, bold);
  return { lines: kept, truncated: true };
}
