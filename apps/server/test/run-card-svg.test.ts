// Unit tests of the run card's drawing (seed 002 "Execution progress"): a self-contained, well-formed SVG with the three
// blocks Checklist → Prepare → Work, every task as a row with its state mark, outcome and time; long and hostile text
// handled; text measured with string-width.
import { type RunRecord, applyStep, presentRun } from '@agent-tasks/core';
import type { RunView } from '@agent-tasks/schema';
import { describe, expect, it } from 'vitest';
import { escapeXml, renderRunCard } from '../src/cards/run-card-svg.ts';
import { textWidth, wrapText } from '../src/cards/text-measure.ts';
// The run records core's own tests draw from.
import { runTask, runTasks } from '../../../packages/core/test/fixtures.ts';
import { runRecord } from '../../../packages/core/test/record-builders.ts';

// ---- a small XML checker: well-formedness (tags, attributes, references, characters) and a tree to query -------

interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: (XmlNode | string)[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const BAD_CHAR =
  // eslint-disable-next-line no-control-regex -- XML 1.0 forbids these characters: the test looks for them on purpose
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/;

function decode(raw: string, where: string): string {
  if (raw.includes('<')) throw new Error(`raw < in ${where}: ${raw.slice(0, 80)}`);
  return raw.replace(/&([^;\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new Error(`unterminated reference in ${where}: ${whole}`);
    if (ref in ENTITIES) return ENTITIES[ref] ?? '';
    const code = ref.startsWith('#x') ? Number.parseInt(ref.slice(2), 16) : ref.startsWith('#') ? Number(ref.slice(1)) : Number.NaN;
    if (!Number.isInteger(code)) throw new Error(`unknown reference in ${where}: ${whole}`);
    return String.fromCodePoint(code);
  });
}

/** Parses `doc` as XML 1.0, throwing on the first well-formedness error; returns the root element. */
function parseXml(doc: string): XmlNode {
  if (BAD_CHAR.test(doc)) throw new Error('character not allowed in XML');
  let i = 0;
  const decl = doc.match(/^<\?xml version="1\.0" encoding="UTF-8"\?>/);
  if (decl) i = decl[0].length;
  const stack: XmlNode[] = [];
  let root: XmlNode | null = null;
  while (i < doc.length) {
    if (doc[i] !== '<') {
      const end = doc.indexOf('<', i);
      const raw = doc.slice(i, end === -1 ? doc.length : end);
      const top = stack.at(-1);
      if (!top) {
        if (raw.trim()) throw new Error(`text outside the root: ${raw.slice(0, 40)}`);
      } else top.children.push(decode(raw, `<${top.name}>`));
      i = end === -1 ? doc.length : end;
      continue;
    }
    if (doc.startsWith('<!--', i)) {
      const end = doc.indexOf('-->', i);
      if (end === -1) throw new Error('unterminated comment');
      i = end + 3;
      continue;
    }
    if (doc.startsWith('</', i)) {
      const name = doc.slice(i + 2).match(NAME)?.[0];
      const close = doc.indexOf('>', i);
      if (!name || close === -1 || doc.slice(i + 2 + name.length, close).trim()) throw new Error(`bad end tag at ${i}`);
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> closes <${open?.name ?? 'nothing'}>`);
      i = close + 1;
      continue;
    }
    const name = doc.slice(i + 1).match(NAME)?.[0];
    if (!name) throw new Error(`bad start tag at ${i}: ${doc.slice(i, i + 20)}`);
    if (root && stack.length === 0) throw new Error('a second root element');
    i += 1 + name.length;
    const node: XmlNode = { name, attrs: {}, children: [] };
    for (;;) {
      const ws = doc.slice(i).match(/^\s*/)?.[0] ?? '';
      i += ws.length;
      if (doc.startsWith('/>', i) || doc[i] === '>') break;
      if (!ws) throw new Error(`missing space before an attribute of <${name}>`);
      const attr = doc.slice(i).match(/^([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)')/);
      if (!attr?.[1]) throw new Error(`bad attribute in <${name}>: ${doc.slice(i, i + 30)}`);
      if (attr[1] in node.attrs) throw new Error(`repeated attribute ${attr[1]} in <${name}>`);
      node.attrs[attr[1]] = decode(attr[3] ?? attr[4] ?? '', `${name}@${attr[1]}`);
      i += attr[0].length;
    }
    const selfClosing = doc.startsWith('/>', i);
    i += selfClosing ? 2 : 1;
    stack.at(-1)?.children.push(node);
    if (!root) root = node;
    if (!selfClosing) stack.push(node);
  }
  if (stack.length) throw new Error(`unclosed <${stack.at(-1)?.name}>`);
  if (!root) throw new Error('no root element');
  return root;
}

const elements = (node: XmlNode): XmlNode[] => [node, ...node.children.flatMap((c) => (typeof c === 'string' ? [] : elements(c)))];
const textOf = (node: XmlNode): string => node.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
/** The drawn text lines (the <text> elements), in document order. */
const lines = (node: XmlNode) =>
  elements(node)
    .filter((e) => e.name === 'text')
    .map(textOf);
const byAttr = (node: XmlNode, attr: string) => elements(node).filter((e) => attr in e.attrs);

// ---- views to draw -------------------------------------------------------------------------------------------

const T0 = new Date('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function record(tasks = runTasks(3), patch: Partial<RunRecord> = {}): RunRecord {
  return runRecord(tasks, { id: 'run_abc', checklistOutcome: 'Three ordered tasks are ready', ...patch });
}

/** A run with `done` tasks acknowledged ("Outcome N", 65 s each), viewed `liveMs` into the current task. */
function viewOf(run: RunRecord, done = 0, liveMs = 0): RunView {
  for (let n = 1; n <= done; n++) applyStep(run, n, `Outcome ${n}`, at(n * 65_000));
  return presentRun(run, at(done * 65_000 + liveMs));
}

const draw = (view: RunView) => {
  const svg = renderRunCard(view);
  return { svg, root: parseXml(svg) };
};

describe('the card is one self-contained, well-formed SVG document', () => {
  it('parses as XML with an <svg> root in the SVG namespace, sized to its content', () => {
    const { svg, root } = draw(viewOf(record(), 1, 5_000));
    expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')).toBe(true);
    expect(root.name).toBe('svg');
    expect(root.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
    const { width, height, viewBox } = root.attrs;
    expect(viewBox).toBe(`0 0 ${width} ${height}`);
    expect(Number(height)).toBeGreaterThan(300);
    expect(elements(root).find((e) => e.name === 'title')?.children).toEqual(['Todo List — Ship the release']);
  });

  it('references nothing outside itself: no fonts, images, links or scripts', () => {
    const { svg, root } = draw(viewOf(record(), 1));
    for (const banned of ['href', 'url(', '@import', '@font-face', 'http://', 'https://']) {
      expect(svg.replace('xmlns="http://www.w3.org/2000/svg"', '')).not.toContain(banned);
    }
    expect(
      elements(root)
        .map((e) => e.name)
        .filter((n) => ['image', 'script', 'foreignObject', 'use', 'a'].includes(n)),
    ).toEqual([]);
  });

  it('is pure: the same view draws the same card', () => {
    const view = viewOf(record(), 2);
    expect(renderRunCard(view)).toBe(renderRunCard(JSON.parse(JSON.stringify(view)) as RunView));
  });

  it('escapes every text for XML: <, &, ", \' in the name, synopsis, actions, outcomes, remarks and blocker', () => {
    const hostile = `<script>alert("x")</script> & 'quoted' ]]> &amp;`;
    const run = record([runTask(`Act ${hostile}`), runTask('Plain')], {
      name: `Name ${hostile}`,
      checklistOutcome: `Checklist ${hostile}`,
      remarks: [{ text: `Remark ${hostile}`, tasks: [2] }],
      moves: [{ task: 1, from: 1, to: 2, because: `because ${hostile}` }],
    });
    const view = viewOf(run, 1);
    view.blocker = `Blocked ${hostile}`;
    view.blocks.work.tasks[0]!.outcome = `Outcome ${hostile}`;
    const { svg, root } = draw(view);
    expect(svg).not.toContain('<script');
    expect(svg).not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/);
    const drawn = lines(root).join(' ');
    for (const text of [
      `Name ${hostile}`,
      `Checklist ${hostile}`,
      `Act ${hostile}`,
      `Done · Outcome ${hostile}`,
      `Remark: Remark ${hostile}`,
      `Blocked: Blocked ${hostile}`,
    ]) {
      expect(drawn).toContain(text);
    }
    expect(escapeXml(`<&"'>`)).toBe('&lt;&amp;&quot;&#39;&gt;');
  });

  it('drops characters XML cannot carry and collapses line breaks, staying well-formed', () => {
    const view = viewOf(record([runTask('Bell\u0007 and\nnew\tline \uD800 lone'), runTask('Emoji 🚀 and 漢字')]), 0);
    const { root } = draw(view);
    const drawn = lines(root);
    expect(drawn).toContain('Bell and new line \uFFFD lone');
    expect(drawn).toContain('Emoji 🚀 and 漢字');
  });
});

describe('three blocks in order: Checklist → Prepare → Work', () => {
  it('draws the heading (flow and run name), then the three blocks in that order', () => {
    const { root } = draw(viewOf(record(), 1));
    expect(byAttr(root, 'data-block').map((e) => e.attrs['data-block'])).toEqual(['checklist', 'prepare', 'work']);
    const drawn = lines(root);
    expect(drawn.slice(0, 3)).toEqual(['Todo List', 'Running', 'Ship the release']);
    const order = ['CHECKLIST', 'PREPARE', 'WORK'].map((h) => drawn.indexOf(h));
    expect(order.every((p) => p > 2)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('Checklist shows the synopsis, the size, and the moves of a reordered list', () => {
    const run = record(runTasks(3), {
      moves: [{ task: 1, from: 1, to: 3, because: 'task 1 needs the result of task 3 (Task 3)' }],
      revision: 2,
    });
    const [checklist] = byAttr(draw(viewOf(run)).root, 'data-block');
    expect(lines(checklist!)).toEqual([
      '1',
      'CHECKLIST',
      'Three ordered tasks are ready',
      '3 tasks · revised 2×',
      'Reordered from the written list:',
      'Written task 1 → position 3: task 1 needs the result of task 3 (Task 3)',
    ]);
  });

  it('Prepare shows the length, the cursor and the complete current action', () => {
    const action = 'Repair the configuration the first task revealed as wrong, then restart the service and check its health endpoint';
    const run = record([runTask('One'), runTask(action), runTask('Three')]);
    const [, prepare] = byAttr(draw(viewOf(run, 1)).root, 'data-block');
    const drawn = lines(prepare!);
    expect(drawn.slice(0, 6)).toEqual(['2', 'PREPARE', 'Length', '3', 'Cursor', '2']);
    expect(drawn).toContain('Current action');
    expect(drawn.slice(drawn.indexOf('Current action') + 1).join(' ')).toBe(action);
  });

  it('Work shows the label Task N/M, the done count, the synopsis and one row per task titled by its action', () => {
    const run = record([runTask('Build the image'), runTask('Deploy the service'), runTask('Announce it')]);
    const { root } = draw(viewOf(run, 1, 30_000));
    const [, , work] = byAttr(root, 'data-block');
    const drawn = lines(work!);
    expect(drawn.slice(0, 5)).toEqual(['3', 'WORK', 'Task 2/3', '1 of 3 done', 'Outcome 1']);
    const rows = byAttr(work!, 'data-task').map((row) => ({
      n: row.attrs['data-task'],
      state: row.attrs['data-state'],
      lines: lines(row),
    }));
    expect(rows).toEqual([
      { n: '1', state: 'done', lines: ['✓', '1.', 'Build the image', 'Done · Outcome 1', '1m 05s'] },
      { n: '2', state: 'in_progress', lines: ['▶', '2.', 'Deploy the service', 'In progress', '30s'] },
      { n: '3', state: 'pending', lines: ['○', '3.', 'Announce it', 'Pending', '—'] },
    ]);
  });

  it('marks each state: ✓ done, ▶ in progress, ○ pending', () => {
    const { root } = draw(viewOf(record(runTasks(5)), 2));
    const marks = byAttr(root, 'data-state').map((row) => [row.attrs['data-state'], lines(row)[0]]);
    expect(marks).toEqual([
      ['done', '✓'],
      ['done', '✓'],
      ['in_progress', '▶'],
      ['pending', '○'],
      ['pending', '○'],
    ]);
  });

  it('a completed run: Done N/N, every task ✓, no current action', () => {
    const { root } = draw(viewOf(record(), 3));
    const drawn = lines(root);
    expect(drawn).toContain('Completed');
    expect(drawn).toContain('Done 3/3');
    expect(drawn).toContain('3 of 3 done');
    expect(drawn).toContain('None: the checklist is exhausted');
    expect(byAttr(root, 'data-state').map((r) => r.attrs['data-state'])).toEqual(['done', 'done', 'done']);
  });

  it('a run in intake: the run id stands for the missing name, and there is no checklist yet', () => {
    const { root } = draw(
      presentRun(record([], { status: 'intake', name: null, cursor: 0, currentSince: null, checklistOutcome: 'Pending' }), T0),
    );
    const drawn = lines(root);
    expect(drawn.slice(0, 3)).toEqual(['Todo List', 'Checklist intake', 'run_abc']);
    expect(drawn).toContain('Waiting for the checklist');
    expect(drawn).toContain('No checklist yet.');
    expect(byAttr(root, 'data-task')).toEqual([]);
  });

  it('shows a blocker and the remarks attached to a task', () => {
    const run = record(runTasks(2), { remarks: [{ text: 'Never touch production data', tasks: [2] }] });
    const view = viewOf(run, 1);
    view.blocker = 'The CI runner is down';
    const { root } = draw(view);
    const drawn = lines(root);
    expect(drawn[1]).toBe('Blocked');
    expect(drawn).toContain('Blocked: The CI runner is down');
    expect(lines(byAttr(root, 'data-task')[1]!)).toContain('Remark: Never touch production data');
  });
});

describe('long text and many tasks', () => {
  it('the height grows with the task count, 1 to 100, and every task has its row', () => {
    const heights = [1, 2, 10, 50, 100].map((n) => {
      const { root } = draw(viewOf(record(runTasks(n)), Math.floor(n / 2)));
      expect(byAttr(root, 'data-task')).toHaveLength(n);
      return Number(root.attrs.height);
    });
    expect([...heights].sort((a, b) => a - b)).toEqual(heights);
    expect(new Set(heights).size).toBe(heights.length);
    expect(heights[4]! - heights[3]!).toBeGreaterThan(50 * 40);
  });

  it('wraps a long action of a task not in progress to two lines ending in an ellipsis, keeping the whole text as a tooltip', () => {
    const long = `${'Refactor the parser so that it is reentrant and thread safe. '.repeat(16)}END`.trim();
    const { root } = draw(viewOf(record([runTask('Short'), runTask(long)])));
    const row = byAttr(root, 'data-task')[1]!;
    const title = elements(row).filter((e) => e.attrs.class === 'title');
    expect(title).toHaveLength(2);
    expect(textOf(title[1]!).endsWith('…')).toBe(true);
    expect(title.map(textOf).join(' ').replace('…', '')).toBe(long.slice(0, title.map(textOf).join(' ').length - 1).trimEnd());
    expect(elements(row).find((e) => e.name === 'title')?.children).toEqual([long]);
    for (const line of title) {
      const x = Number(line.attrs.x);
      expect(x + textWidth(textOf(line), 14)).toBeLessThanOrEqual(720 - 40 - 72);
    }
  });

  it('every drawn line of a card full of maximal text stays inside the card', () => {
    const long = (c: string) => `${c.repeat(7)} `.repeat(125).slice(0, 1000);
    const tasks = Array.from({ length: 100 }, (_, i) => runTask(long(String.fromCharCode(97 + (i % 26))), long('r')));
    const run = record(tasks, { name: long('W').slice(0, 200), checklistOutcome: long('m').slice(0, 500) });
    const view = viewOf(run, 40);
    view.blocks.work.synopsis = long('w').slice(0, 500);
    const { root } = draw(view);
    const width = Number(root.attrs.width);
    // Font size and weight of each text class (as the card's style sheet sets them).
    const font: Record<string, [number, boolean]> = {
      flow: [13, true],
      pill: [12, true],
      name: [22, true],
      num: [11, true],
      'block-title': [13, true],
      body: [14, false],
      title: [14, false],
      muted: [12, false],
      'muted-num': [13, false],
      remark: [12, false],
      label: [12, true],
      value: [14, true],
      'label-big': [16, true],
      mark: [15, true],
      time: [12, false],
      footer: [11, false],
      blocker: [13, false],
    };
    for (const line of elements(root).filter((e) => e.name === 'text')) {
      const x = Number(line.attrs.x);
      const [size, bold] = font[(line.attrs.class ?? '').split(' ')[0] ?? ''] ?? [16, true];
      const w = textWidth(textOf(line), size, bold);
      const anchor = line.attrs['text-anchor'] ?? 'start';
      const left = anchor === 'end' ? x - w : anchor === 'middle' ? x - w / 2 : x;
      expect(left).toBeGreaterThanOrEqual(0);
      expect(left + w, `${line.attrs.class}: ${textOf(line)}`).toBeLessThanOrEqual(width);
    }
  });

  it('wrapText breaks between words, splits a word longer than the line, and truncates with an ellipsis', () => {
    expect(wrapText('alpha beta gamma', 1000, 14, 3)).toEqual({ lines: ['alpha beta gamma'], truncated: false });
    const narrow = wrapText('alpha beta gamma', textWidth('alpha beta', 14), 14, 3);
    expect(narrow).toEqual({ lines: ['alpha beta', 'gamma'], truncated: false });
    const split = wrapText('x'.repeat(50), textWidth('x'.repeat(20), 14), 14, 5);
    expect(split.lines.join('')).toBe('x'.repeat(50));
    expect(split.lines.every((l) => textWidth(l, 14) <= textWidth('x'.repeat(20), 14))).toBe(true);
    const cut = wrapText('one two three four five six', textWidth('one two', 14), 14, 2);
    expect(cut.truncated).toBe(true);
    expect(cut.lines).toHaveLength(2);
    expect(cut.lines[1]!.endsWith('…')).toBe(true);
    expect(wrapText('🚀'.repeat(30), 100, 14, 1).lines[0]).toMatch(/^(🚀)+…$/u);
  });
});

describe('text measuring (string-width)', () => {
  it('counts columns: combining marks and invisible characters take none, wide characters and emoji two', () => {
    const one = textWidth('a', 14);
    expect(one).toBeGreaterThan(0);
    expect(textWidth('e\u0301', 14)).toBe(one);
    expect(textWidth('a\u200Bb', 14)).toBe(2 * one);
    expect(textWidth('漢', 14)).toBe(2 * one);
    expect(textWidth('🚀', 14)).toBe(2 * one);
    expect(textWidth('a', 28)).toBe(2 * one);
    expect(textWidth('a', 14, true)).toBeGreaterThan(one);
  });

  it('never splits a character made of several code points when it breaks a long word', () => {
    const family = '👩‍👩‍👧';
    const { lines } = wrapText(family.repeat(20), textWidth(family.repeat(3), 14), 14, 20);
    expect(lines.join('')).toBe(family.repeat(20));
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length % family.length).toBe(0);
  });
});
