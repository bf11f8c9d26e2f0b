// The run's card as an image (seed 002 "Execution progress"): one self-contained SVG drawn from core's card model,
// with the three blocks Checklist → Prepare → Work. No external fonts, images or links.
import { type CardTone, type RunCardModel, displayText, runCardModel } from '@agent-tasks/core';
import type { RunView } from '@agent-tasks/schema';
import { textWidth, wrapText } from './text-measure.ts';

const WIDTH = 720;
const PAD = 24;
const BLOCK_PAD = 16;
const BLOCK_GAP = 28;
const LEFT = PAD + BLOCK_PAD;
const RIGHT = WIDTH - PAD - BLOCK_PAD;
const INNER = RIGHT - LEFT;

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
} as const satisfies Record<CardTone | 'text' | 'muted' | 'line' | 'block' | 'current', string>;

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

/** Escapes text for XML character data and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

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

function heading(canvas: Canvas, card: RunCardModel) {
  const pillWidth = Math.ceil(widthIn(card.status.word, 'pill') + 20);
  canvas.push(
    text(PAD, canvas.y + 14, card.flow, { class: 'flow' }),
    `<rect${attrs({ x: WIDTH - PAD - pillWidth, y: canvas.y, width: pillWidth, height: 20, rx: 10, fill: COLORS[card.status.tone] })}/>`,
    text(WIDTH - PAD - pillWidth / 2, canvas.y + 14, card.status.word, { class: 'pill', 'text-anchor': 'middle' }),
  );
  canvas.y += 26;
  canvas.lines(PAD, card.name, { max: WIDTH - 2 * PAD, maxLines: 2, lineHeight: 28, cls: 'name' });
  canvas.y += 6;
}

function checklistBlock(c: Canvas, { checklist }: RunCardModel) {
  c.lines(LEFT, checklist.synopsis, { max: INNER, maxLines: 3, cls: 'body' });
  c.lines(LEFT, checklist.facts, { max: INNER, maxLines: 1, cls: 'muted' });
  if (checklist.moves.length > 0) {
    c.y += 2;
    c.lines(LEFT, 'Reordered from the written list:', { max: INNER, maxLines: 1, cls: 'label' });
    for (const move of checklist.moves) c.lines(LEFT + 8, move, { max: INNER - 8, maxLines: 1, cls: 'muted' });
  }
}

function prepareBlock(c: Canvas, { prepare }: RunCardModel) {
  let x = LEFT;
  for (const [label, value] of prepare.facts) {
    c.push(text(x, c.y + 14, label, { class: 'label' }), text(x + widthIn(label, 'label') + 6, c.y + 14, value, { class: 'value' }));
    x += widthIn(label, 'label') + 6 + widthIn(value, 'value') + 24;
  }
  c.y += 22;
  c.lines(LEFT, 'Current action', { max: INNER, maxLines: 1, cls: 'label' });
  // The complete current action: it wraps and the card grows; it is never cut.
  c.lines(LEFT, prepare.action, { max: INNER, maxLines: Number.POSITIVE_INFINITY, cls: prepare.hasAction ? 'body' : 'muted' });
}

function workBlock(c: Canvas, { work }: RunCardModel) {
  c.push(
    text(LEFT, c.y + 17, work.label, { class: 'label-big' }),
    text(RIGHT, c.y + 17, work.doneText, { class: 'muted', 'text-anchor': 'end' }),
  );
  c.y += 26;
  c.push(
    `<rect${attrs({ x: LEFT, y: c.y, width: INNER, height: 6, rx: 3, fill: COLORS.line })}/>`,
    work.fraction > 0 ? `<rect${attrs({ x: LEFT, y: c.y, width: INNER * work.fraction, height: 6, rx: 3, fill: COLORS.done })}/>` : '',
  );
  c.y += 14;
  c.lines(LEFT, work.synopsis, { max: INNER, maxLines: 2, cls: 'body' });
  if (work.blocker) c.lines(LEFT, work.blocker, { max: INNER, maxLines: 3, cls: 'blocker' });
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
    row.lines(titleX, task.title, {
      max: titleMax,
      maxLines: task.wholeTitle ? Number.POSITIVE_INFINITY : 2,
      lineHeight: 19,
      cls: 'title',
    });
    row.lines(titleX, task.outcome, { max: RIGHT - titleX, maxLines: 1, cls: 'muted' });
    for (const remark of task.remarks) row.lines(titleX, remark, { max: RIGHT - titleX, maxLines: 1, cls: 'remark' });
    const height = row.y - top + 4;
    c.push(
      `<g class="task" data-task="${task.number}" data-state="${task.state}">`,
      task.state === 'in_progress'
        ? `<rect${attrs({ x: LEFT - 8, y: top, width: INNER + 16, height, rx: 6, fill: COLORS.current })}/>`
        : '',
      i > 0 && task.state !== 'in_progress' && work.tasks[i - 1]?.state !== 'in_progress'
        ? `<line${attrs({ x1: LEFT, y1: top, x2: RIGHT, y2: top, stroke: COLORS.line })}/>`
        : '',
      text(LEFT + 8, top + 8 + 15, task.mark, { class: `mark ${task.state}`, 'text-anchor': 'middle' }),
      text(titleX - 8, top + 8 + 14, `${task.number}.`, { class: 'muted-num', 'text-anchor': 'end' }),
      ...row.parts,
      text(RIGHT, top + 8 + 14, task.time, { class: 'time', 'text-anchor': 'end' }),
      '</g>',
    );
    c.y = top + height;
  });
}

/** The run's card: heading (flow and run name), then Checklist → Prepare → Work, as one self-contained SVG document. */
export function renderRunCard(view: RunView): string {
  const card = runCardModel(view);
  const canvas = new Canvas(PAD);
  heading(canvas, card);
  block(canvas, 1, 'checklist', 'Checklist', (c) => checklistBlock(c, card));
  connector(canvas);
  block(canvas, 2, 'prepare', 'Prepare', (c) => prepareBlock(c, card));
  connector(canvas);
  block(canvas, 3, 'work', 'Work', (c) => workBlock(c, card));
  canvas.y += 8;
  canvas.lines(PAD, card.footer, { max: WIDTH - 2 * PAD, maxLines: 1, cls: 'footer' });
  const height = Math.ceil(canvas.y + PAD - 8);
  const font = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', 'DejaVu Sans', sans-serif";
  const style = [
    `text{font-family:${font};fill:${COLORS.text}}`,
    ...Object.entries(CARD_FONTS).map(([cls, f]) => `.${cls}{font-size:${f.size}px;${f.bold ? 'font-weight:700;' : ''}${f.css}}`),
    `.mark.done{fill:${COLORS.done}}.mark.in_progress{fill:${COLORS.in_progress}}.mark.pending{fill:${COLORS.pending}}`,
  ].join('');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg"${attrs({ width: WIDTH, height, viewBox: `0 0 ${WIDTH} ${height}`, role: 'img', 'aria-labelledby': 'card-title card-desc' })}>`,
    `<title id="card-title">${escapeXml(card.title)}</title>`,
    `<desc id="card-desc">${escapeXml(card.desc)}</desc>`,
    `<style>${style}</style>`,
    `<rect${attrs({ width: WIDTH, height, rx: 12, fill: '#ffffff' })}/>`,
    ...canvas.parts.filter(Boolean),
    '</svg>',
    '',
  ].join('\n');
}
