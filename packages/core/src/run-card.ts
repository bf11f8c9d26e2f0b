// The run's card as an image (seed 002 "Execution progress"): one self-contained SVG with the three blocks
// Checklist → Prepare → Work, drawn from the run view alone. Pure: no I/O, no external fonts or images.
import type { RunView } from '@agent-tasks/schema';
import type { Actor } from './actor.ts';
import type { Deps } from './ports.ts';
import { getRun, getRunByLink } from './run-service.ts';

type WorkState = RunView['blocks']['work']['tasks'][number]['state'];

const WIDTH = 720;
const PAD = 24;
const BLOCK_PAD = 16;
const BLOCK_GAP = 28;
const LEFT = PAD + BLOCK_PAD;
const RIGHT = WIDTH - PAD - BLOCK_PAD;
const INNER = RIGHT - LEFT;
const MOVES_SHOWN = 5;

const COLORS = {
  text: '#1f2328',
  muted: '#59636e',
  line: '#d1d9e0',
  block: '#f6f8fa',
  done: '#1a7f37',
  in_progress: '#0969da',
  pending: '#6e7781',
  current: '#ddf4ff',
  blocker: '#cf222e',
} as const;

export const STATE_MARKS: Record<WorkState, string> = { done: '✓', in_progress: '▶', pending: '○' };
const STATE_WORDS: Record<WorkState, string> = { done: 'Done', in_progress: 'In progress', pending: 'Pending' };

/** Every text style of the card (size in px, weight, the rest of its CSS): text is measured and drawn from the same entry. */
export const CARD_FONTS = {
  flow: { size: 13, bold: true, css: `fill:${COLORS.muted};letter-spacing:.04em` },
  pill: { size: 12, bold: true, css: 'fill:#fff' },
  name: { size: 22, bold: true, css: '' },
  num: { size: 11, bold: true, css: 'fill:#fff' },
  'block-title': { size: 12, bold: true, css: 'letter-spacing:.08em' },
  body: { size: 14, bold: false, css: '' },
  title: { size: 14, bold: false, css: '' },
  muted: { size: 12, bold: false, css: `fill:${COLORS.muted}` },
  'muted-num': { size: 13, bold: false, css: `fill:${COLORS.muted}` },
  remark: { size: 12, bold: false, css: `font-style:italic;fill:${COLORS.muted}` },
  label: { size: 12, bold: true, css: `fill:${COLORS.muted}` },
  value: { size: 14, bold: true, css: '' },
  'label-big': { size: 16, bold: true, css: '' },
  mark: { size: 15, bold: true, css: '' },
  blocker: { size: 13, bold: false, css: `fill:${COLORS.blocker}` },
  time: { size: 12, bold: false, css: `fill:${COLORS.muted};font-variant-numeric:tabular-nums` },
  footer: { size: 11, bold: false, css: `fill:${COLORS.muted}` },
} as const satisfies Record<string, { size: number; bold: boolean; css: string }>;
type FontClass = keyof typeof CARD_FONTS;

/** Estimated width in pixels of `text` drawn in the card style `cls`. */
const widthIn = (text: string, cls: FontClass) => textWidth(text, CARD_FONTS[cls].size, CARD_FONTS[cls].bold);

// ---- text -----------------------------------------------------------------------------------------------------

/**
 * Text as one displayable line: characters XML 1.0 cannot carry even escaped (C0 controls but tab/newline, lone
 * surrogates, U+FFFE/U+FFFF) and C1 controls removed or replaced, runs of whitespace collapsed to one space.
 */
export function displayText(text: string): string {
  return text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Escapes text for XML character data and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const ELLIPSIS = '…';
const WIDE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]|\p{Extended_Pictographic}/u;
const ZERO = /\p{M}|[\u200B-\u200F\uFE00-\uFE0F]/u;

// Advances of printable ASCII (space to tilde) in em, close to DejaVu Sans: one of the widest common default faces,
// so text measured with them stays inside its box in narrower faces too.
const ASCII_EM = [
  0.32, 0.4, 0.46, 0.84, 0.64, 0.95, 0.78, 0.28, 0.39, 0.39, 0.5, 0.84, 0.32, 0.36, 0.32, 0.34, // space ! " # $ % & ' ( ) * + , - . /
  0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.34, 0.34, 0.84, 0.84, 0.84, 0.53, // 0-9 : ; < = > ?
  1.0, 0.68, 0.69, 0.7, 0.77, 0.63, 0.58, 0.78, 0.75, 0.3, 0.3, 0.66, 0.56, 0.86, 0.75, 0.79, // @ A-O
  0.6, 0.79, 0.69, 0.64, 0.61, 0.73, 0.68, 0.99, 0.69, 0.61, 0.69, 0.39, 0.34, 0.39, 0.84, 0.5, // P-Z [ \ ] ^ _
  0.5, 0.61, 0.64, 0.55, 0.64, 0.62, 0.35, 0.64, 0.63, 0.28, 0.28, 0.58, 0.28, 0.97, 0.63, 0.61, // ` a-o
  0.64, 0.64, 0.41, 0.52, 0.39, 0.63, 0.59, 0.82, 0.59, 0.59, 0.53, 0.64, 0.34, 0.64, 0.84, // p-z { | } ~
];
const BOLD = 1.12;

/** Estimated advance of one character in em. */
function charEm(c: string, bold = false): number {
  const code = c.codePointAt(0) ?? 0;
  let em: number;
  if (code >= 0x20 && code <= 0x7e) em = ASCII_EM[code - 0x20] ?? 0.64;
  else if (ZERO.test(c)) em = 0;
  else if (WIDE.test(c)) em = 1.05;
  else if (c === ELLIPSIS || c === '—' || c === '→') em = 1.0;
  else em = 0.68;
  return bold ? em * BOLD : em;
}

/** Estimated width in pixels of `text` at font size `size`. */
export function textWidth(text: string, size: number, bold = false): number {
  let em = 0;
  for (const c of text) em += charEm(c, bold);
  return em * size;
}

/** The longest prefix of `text` (whole code points) that fits `max` pixels with an ellipsis after it. */
function cut(text: string, max: number, size: number, bold: boolean): string {
  const chars = Array.from(text);
  let width = textWidth(ELLIPSIS, size, bold);
  let n = 0;
  while (n < chars.length && width + charEm(chars[n] ?? '', bold) * size <= max) {
    width += charEm(chars[n] ?? '', bold) * size;
    n++;
  }
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
    line = '';
    // A word wider than the line is broken by characters.
    let rest = word;
    while (!fits(rest)) {
      const chars = Array.from(rest);
      let n = 0;
      let width = 0;
      while (n < chars.length && width + charEm(chars[n] ?? '', bold) * size <= max) {
        width += charEm(chars[n] ?? '', bold) * size;
        n++;
      }
      n = Math.max(1, n);
      lines.push(chars.slice(0, n).join(''));
      rest = chars.slice(n).join('');
    }
    line = rest;
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return { lines, truncated: false };
  const kept = lines.slice(0, maxLines);
  const last = `${kept[maxLines - 1] ?? ''} ${lines.slice(maxLines).join(' ')}`;
  kept[maxLines - 1] = cut(last, max, size, bold);
  return { lines: kept, truncated: true };
}

/** Milliseconds as a short duration: 45s, 3m 05s, 1h 02m, 2d 03h. */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms < 1000) return '<1s';
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${String(h % 24).padStart(2, '0')}h`;
}

// ---- drawing --------------------------------------------------------------------------------------------------

const attrs = (a: Record<string, string | number>) =>
  Object.entries(a)
    .map(([k, v]) => ` ${k}="${escapeXml(typeof v === 'number' ? String(Math.round(v * 100) / 100) : v)}"`)
    .join('');

const text = (x: number, y: number, content: string, a: Record<string, string | number> = {}) =>
  `<text${attrs({ x, y, ...a })}>${escapeXml(content)}</text>`;

/** A drawing cursor: the parts drawn so far and the top of the free space. */
class Canvas {
  parts: string[] = [];
  y: number;
  constructor(y: number) {
    this.y = y;
  }
  push(...parts: string[]) {
    this.parts.push(...parts);
  }
  /** Draws wrapped text whose first baseline sits `size` below the current top; moves the top below it. */
  lines(x: number, content: string, o: { max: number; maxLines: number; lineHeight?: number; cls: FontClass }) {
    const { size, bold } = CARD_FONTS[o.cls];
    const lineHeight = o.lineHeight ?? Math.round(size * 1.4);
    const { lines, truncated } = wrapText(content, o.max, size, o.maxLines, bold);
    const drawn = lines.length > 0 ? lines : [''];
    const group = drawn.map((line, i) => text(x, this.y + size + i * lineHeight, line, { class: o.cls }));
    // A truncated text keeps its whole wording as a tooltip.
    this.push(truncated ? `<g><title>${escapeXml(displayText(content))}</title>${group.join('')}</g>` : group.join(''));
    this.y += size + (drawn.length - 1) * lineHeight + Math.round(size * 0.4);
    return drawn.length;
  }
}

/** One of the three blocks: a numbered heading and its content on a tinted panel. */
function block(canvas: Canvas, n: number, key: 'checklist' | 'prepare' | 'work', title: string, draw: (c: Canvas) => void) {
  const top = canvas.y;
  const inner = new Canvas(top + BLOCK_PAD);
  inner.push(
    `<circle${attrs({ cx: LEFT + 9, cy: inner.y + 9, r: 9, fill: COLORS.text })}/>`,
    text(LEFT + 9, inner.y + 13, String(n), { class: 'num', 'text-anchor': 'middle' }),
    text(LEFT + 26, inner.y + 14, title.toUpperCase(), { class: 'block-title' }),
  );
  inner.y += 28;
  draw(inner);
  const height = inner.y - top + BLOCK_PAD - 4;
  canvas.push(
    `<g class="block" data-block="${key}">`,
    `<rect${attrs({ x: PAD, y: top, width: WIDTH - 2 * PAD, height, rx: 10, fill: COLORS.block, stroke: COLORS.line })}/>`,
    ...inner.parts,
    '</g>',
  );
  canvas.y = top + height;
}

/** The arrow between two blocks: Checklist → Prepare → Work reads top to bottom. */
function connector(canvas: Canvas) {
  const x = WIDTH / 2;
  const top = canvas.y + 4;
  const bottom = canvas.y + BLOCK_GAP - 4;
  canvas.push(
    `<path${attrs({ d: `M${x} ${top} V${bottom - 2} M${x - 6} ${bottom - 8} L${x} ${bottom - 2} L${x + 6} ${bottom - 8}`, stroke: COLORS.muted, 'stroke-width': 2, fill: 'none', 'stroke-linecap': 'round', 'stroke-linejoin': 'round' })}/>`,
  );
  canvas.y += BLOCK_GAP;
}

const statusWord = (view: RunView) =>
  view.status === 'completed' ? 'Completed' : view.status === 'intake' ? 'Checklist intake' : view.revising ? 'Revising' : view.blocker ? 'Blocked' : 'Running';
const statusColor = (view: RunView) =>
  view.status === 'completed' ? COLORS.done : view.status === 'intake' ? COLORS.pending : view.blocker ? COLORS.blocker : COLORS.in_progress;

function heading(canvas: Canvas, view: RunView) {
  const status = statusWord(view);
  const pillWidth = Math.ceil(widthIn(status, 'pill') + 20);
  canvas.push(
    text(PAD, canvas.y + 14, view.flow, { class: 'flow' }),
    `<rect${attrs({ x: WIDTH - PAD - pillWidth, y: canvas.y, width: pillWidth, height: 20, rx: 10, fill: statusColor(view) })}/>`,
    text(WIDTH - PAD - pillWidth / 2, canvas.y + 14, status, { class: 'pill', 'text-anchor': 'middle' }),
  );
  canvas.y += 26;
  canvas.lines(PAD, view.name ?? view.id, { max: WIDTH - 2 * PAD, maxLines: 2, lineHeight: 28, cls: 'name' });
  canvas.y += 6;
}

function checklistBlock(c: Canvas, view: RunView) {
  c.lines(LEFT, view.blocks.checklist.synopsis, { max: INNER, maxLines: 3, cls: 'body' });
  const facts = [`${view.total} task${view.total === 1 ? '' : 's'}`];
  if (view.revision > 0) facts.push(`revised ${view.revision}×`);
  if (view.remarks.length > 0) facts.push(`${view.remarks.length} remark${view.remarks.length === 1 ? '' : 's'}`);
  c.lines(LEFT, facts.join(' · '), { max: INNER, maxLines: 1, cls: 'muted' });
  if (view.moves.length > 0) {
    c.y += 2;
    c.lines(LEFT, 'Reordered from the written list:', { max: INNER, maxLines: 1, cls: 'label' });
    for (const move of view.moves.slice(0, MOVES_SHOWN)) {
      c.lines(LEFT + 8, `Written task ${move.task} → position ${move.to}: ${move.because}`, { max: INNER - 8, maxLines: 1, cls: 'muted' });
    }
    const more = view.moves.length - MOVES_SHOWN;
    if (more > 0) c.lines(LEFT + 8, `+${more} more`, { max: INNER - 8, maxLines: 1, cls: 'muted' });
  }
}

function prepareBlock(c: Canvas, view: RunView) {
  const { length, cursor, action } = view.blocks.prepare;
  const facts: [string, string][] = [
    ['Length', String(length)],
    ['Cursor', view.status === 'intake' ? '—' : String(cursor)],
  ];
  let x = LEFT;
  for (const [label, value] of facts) {
    c.push(text(x, c.y + 14, label, { class: 'label' }), text(x + widthIn(label, 'label') + 6, c.y + 14, value, { class: 'value' }));
    x += widthIn(label, 'label') + 6 + widthIn(value, 'value') + 24;
  }
  c.y += 22;
  c.lines(LEFT, 'Current action', { max: INNER, maxLines: 1, cls: 'label' });
  const none =
    view.status === 'intake' ? 'Waiting for the checklist' : view.revising ? 'None: the checklist is being revised' : 'None: the checklist is exhausted';
  // The complete current action: it wraps and the card grows; it is never cut.
  c.lines(LEFT, action ?? none, { max: INNER, maxLines: Number.POSITIVE_INFINITY, cls: action ? 'body' : 'muted' });
}

function workBlock(c: Canvas, view: RunView) {
  const work = view.blocks.work;
  const doneText = `${work.done} of ${work.total_tasks} done`;
  c.push(text(LEFT, c.y + 17, work.label, { class: 'label-big' }), text(RIGHT, c.y + 17, doneText, { class: 'muted', 'text-anchor': 'end' }));
  c.y += 26;
  const fraction = work.total_tasks > 0 ? work.done / work.total_tasks : 0;
  c.push(
    `<rect${attrs({ x: LEFT, y: c.y, width: INNER, height: 6, rx: 3, fill: COLORS.line })}/>`,
    fraction > 0 ? `<rect${attrs({ x: LEFT, y: c.y, width: INNER * fraction, height: 6, rx: 3, fill: COLORS.done })}/>` : '',
  );
  c.y += 14;
  c.lines(LEFT, work.synopsis, { max: INNER, maxLines: 2, cls: 'body' });
  if (view.blocker) {
    c.lines(LEFT, `Blocked: ${view.blocker}`, { max: INNER, maxLines: 3, cls: 'blocker' });
  }
  if (work.tasks.length === 0) {
    c.lines(LEFT, 'No checklist yet.', { max: INNER, maxLines: 1, cls: 'muted' });
    return;
  }
  c.y += 4;
  const titleX = LEFT + 62;
  const timeWidth = 72;
  const titleMax = RIGHT - timeWidth - titleX;
  work.tasks.forEach((task, i) => {
    const top = c.y;
    const row = new Canvas(top + 8);
    const number = i + 1;
    // The task in progress shows its whole action; the others keep to two lines.
    const titleLines = task.state === 'in_progress' ? Number.POSITIVE_INFINITY : 2;
    row.lines(titleX, task.title, { max: titleMax, maxLines: titleLines, lineHeight: 19, cls: 'title' });
    const outcome =
      task.state !== 'done' && task.outcome === 'Pending' ? STATE_WORDS[task.state] : `${STATE_WORDS[task.state]} · ${task.outcome}`;
    row.lines(titleX, outcome, { max: RIGHT - titleX, maxLines: 1, cls: 'muted' });
    for (const remark of task.remarks) row.lines(titleX, `Remark: ${remark}`, { max: RIGHT - titleX, maxLines: 1, cls: 'remark' });
    const height = row.y - top + 4;
    const time = task.state === 'pending' && task.timeMs === 0 ? '—' : formatDuration(task.timeMs);
    c.push(
      `<g class="task" data-task="${number}" data-state="${task.state}">`,
      task.state === 'in_progress' ? `<rect${attrs({ x: LEFT - 8, y: top, width: INNER + 16, height, rx: 6, fill: COLORS.current })}/>` : '',
      i > 0 && task.state !== 'in_progress' && work.tasks[i - 1]?.state !== 'in_progress'
        ? `<line${attrs({ x1: LEFT, y1: top, x2: RIGHT, y2: top, stroke: COLORS.line })}/>`
        : '',
      text(LEFT + 8, top + 8 + 15, STATE_MARKS[task.state], { class: `mark ${task.state}`, 'text-anchor': 'middle' }),
      text(titleX - 8, top + 8 + 14, `${number}.`, { class: 'muted-num', 'text-anchor': 'end' }),
      ...row.parts,
      text(RIGHT, top + 8 + 14, time, { class: 'time', 'text-anchor': 'end' }),
      '</g>',
    );
    c.y = top + height;
  });
}

/** The run's card: heading (flow and run name), then Checklist → Prepare → Work, as one self-contained SVG document. */
export function renderRunCard(view: RunView): string {
  const canvas = new Canvas(PAD);
  heading(canvas, view);
  block(canvas, 1, 'checklist', 'Checklist', (c) => checklistBlock(c, view));
  connector(canvas);
  block(canvas, 2, 'prepare', 'Prepare', (c) => prepareBlock(c, view));
  connector(canvas);
  block(canvas, 3, 'work', 'Work', (c) => workBlock(c, view));
  canvas.y += 8;
  canvas.lines(PAD, `Run ${view.id} · revision ${view.revision} · updated ${view.updatedAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}`, {
    max: WIDTH - 2 * PAD,
    maxLines: 1,
    cls: 'footer',
  });
  const height = Math.ceil(canvas.y + PAD - 8);
  const title = `${view.flow} — ${displayText(view.name ?? view.id)}`;
  const desc = `${view.blocks.work.label} · ${view.blocks.work.done} of ${view.blocks.work.total_tasks} tasks done`;
  const font = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', 'DejaVu Sans', sans-serif";
  const style = [
    `text{font-family:${font};fill:${COLORS.text}}`,
    ...Object.entries(CARD_FONTS).map(([cls, f]) => `.${cls}{font-size:${f.size}px;${f.bold ? 'font-weight:700;' : ''}${f.css}}`),
    `.mark.done{fill:${COLORS.done}}.mark.in_progress{fill:${COLORS.in_progress}}.mark.pending{fill:${COLORS.pending}}`,
  ].join('');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg"${attrs({ width: WIDTH, height, viewBox: `0 0 ${WIDTH} ${height}`, role: 'img', 'aria-labelledby': 'card-title card-desc' })}>`,
    `<title id="card-title">${escapeXml(title)}</title>`,
    `<desc id="card-desc">${escapeXml(desc)}</desc>`,
    `<style>${style}</style>`,
    `<rect${attrs({ width: WIDTH, height, rx: 12, fill: '#ffffff' })}/>`,
    ...canvas.parts.filter(Boolean),
    '</svg>',
    '',
  ].join('\n');
}

/** The card of a run of the caller's workspace. */
export async function runCard(deps: Deps, actor: Actor, input: { runId: string }): Promise<{ svg: string }> {
  return { svg: renderRunCard(await getRun(deps, actor, input)) };
}

/** The card by a run page link, which carries no key: the unguessable run id is the capability (null: no such run). */
export async function runCardByLink(deps: Deps, runId: string): Promise<string | null> {
  const view = await getRunByLink(deps, runId);
  return view ? renderRunCard(view) : null;
}
