// Black-box tests of a run's card (seed 002 "Execution progress"): the SVG image with the blocks Checklist → Prepare → Work,
// fetched from the real server by its capability link GET /runs/<id>/card.svg and through client.runs.card.
import type { ChecklistEntry } from '@agent-tasks/schema';
import { createClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledge, keyClient, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

type Session = Awaited<ReturnType<typeof sessionClient>>;
const task = (action: string): ChecklistEntry => ({ action, expected_result: `${action}: verified` });

async function runWith(s: Session, name: string, list: ChecklistEntry[]) {
  const { startAttemptId } = await s.client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
  const run = await s.client.runs.execute({ startAttemptId });
  await s.client.runs.name({ runId: run.id, name });
  return s.client.runs.intake({ runId: run.id, tasks: list, progress_checklist_outcome: `${list.length} ordered tasks are ready` });
}

const fetchCard = (runId: string) => fetch(`${server.url}/runs/${runId}/card.svg`);

/** The drawn text lines of an SVG card (the <text> elements), entities decoded. */
const linesOf = (svg: string) =>
  [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) =>
    (m[1] ?? '').replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e] ?? ''),
  );

/** Balanced tags: every opened element is closed in order (comments, declarations and self-closing tags aside). */
function balanced(svg: string) {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([A-Za-z][-\w:.]*)[^>]*?(\/?)>/g)) {
    const [, close, name, self] = m;
    if (self) continue;
    if (close) {
      if (stack.pop() !== name) return false;
    } else stack.push(name ?? '');
  }
  return stack.length === 0;
}

describe('GET /runs/<id>/card.svg', () => {
  it('serves the card as image/svg+xml with no key: the unguessable run id is the capability', async () => {
    const s = await sessionClient(server);
    const run = await runWith(s, 'Ship <the> "release" & tell \'them\'', [
      task('Build the image'),
      task('Deploy the service'),
      task('Announce it'),
    ]);
    await acknowledge(s.client, run.id, { task: 1, evidence: 'Image pushed.', progress_execution_outcome: 'The image is in the registry' });

    const res = await fetchCard(run.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const svg = await res.text();
    expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(balanced(svg)).toBe(true);
    expect(svg).not.toContain('<the>');
    expect(svg).toContain('Ship &lt;the&gt; &quot;release&quot; &amp; tell &#39;them&#39;');

    const lines = linesOf(svg);
    expect(lines.slice(0, 3)).toEqual(['Todo List', 'Running', 'Ship <the> "release" & tell \'them\'']);
    const blocks = ['CHECKLIST', 'PREPARE', 'WORK'].map((b) => lines.indexOf(b));
    expect(blocks.every((i) => i > 0)).toBe(true);
    expect([...blocks].sort((a, b) => a - b)).toEqual(blocks);
    expect(lines).toContain('3 ordered tasks are ready');
    expect(lines).toContain('Task 2/3');
    expect(lines).toContain('1 of 3 done');
    expect(lines).toContain('Done · The image is in the registry');
    expect([...svg.matchAll(/data-state="(\w+)"/g)].map((m) => m[1])).toEqual(['done', 'in_progress', 'pending']);
    for (const mark of ['✓', '▶', '○']) expect(lines).toContain(mark);
  });

  it('answers 404 for an unknown run; the run page route is unchanged', async () => {
    const res = await fetchCard('run_does_not_exist');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Error: run not found.' });
    expect((await fetch(`${server.url}/runs/run_x/card.png`)).status).toBe(404);
    const s = await sessionClient(server);
    const run = await runWith(s, 'Page', [task('Only')]);
    const page = await fetch(`${server.url}/runs/${run.id}`);
    expect(page.headers.get('content-type')).toBe('application/json');
    expect(((await page.json()) as { id: string }).id).toBe(run.id);
  });

  it('grows with the checklist: 100 tasks, every one a row, all done once the run completes', async () => {
    const s = await sessionClient(server);
    const list = Array.from({ length: 100 }, (_, i) => task(`Task number ${i + 1}`));
    const run = await runWith(s, 'A long checklist', list);
    const small = await (await fetchCard((await runWith(s, 'Short', [task('One')])).id)).text();
    for (let n = 1; n <= 100; n++) {
      await acknowledge(s.client, run.id, { task: n, evidence: 'ok', progress_execution_outcome: `Outcome ${n}` });
    }
    const svg = await (await fetchCard(run.id)).text();
    const height = (x: string) => Number(x.match(/<svg[^>]*\sheight="(\d+)"/)?.[1]);
    expect(height(svg)).toBeGreaterThan(height(small) + 99 * 40);
    expect([...svg.matchAll(/data-state="done"/g)]).toHaveLength(100);
    expect(linesOf(svg)).toEqual(expect.arrayContaining(['Completed', 'Done 100/100', '100 of 100 done', 'Task number 100']));
  });
});

describe('client.runs.card', () => {
  it('returns { svg }, the same image the link serves, to any key of the workspace', async () => {
    const s = await sessionClient(server);
    const run = await runWith(s, 'Card by client', [task('First'), task('Second')]);
    await acknowledge(s.client, run.id, { task: 1, evidence: 'ok', progress_execution_outcome: 'First is done' });
    await acknowledge(s.client, run.id, { task: 2, evidence: 'ok', progress_execution_outcome: 'Second is done' });
    // A completed run no longer changes, so both ways draw the same card.
    const card = await s.client.runs.card({ runId: run.id });
    expect(Object.keys(card)).toEqual(['svg']);
    expect(card.svg).toBe(await (await fetchCard(run.id)).text());
    const viewer = await keyClient(server, 'viewer');
    expect((await viewer.runs.card({ runId: run.id })).svg).toBe(card.svg);
    expect(linesOf(card.svg)).toEqual(
      expect.arrayContaining(['Card by client', 'Done 2/2', 'Done · First is done', 'Done · Second is done']),
    );
  });

  it('refuses an unknown run, a strict input, and a caller without a key', async () => {
    const s = await sessionClient(server);
    expect(await refused(s.client.runs.card({ runId: 'run_nope' }))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Error: run run_nope not found.',
    });
    expect(await refused(s.client.runs.card({ runId: 'run_nope', extra: 1 } as never))).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'Error: invalid input: unknown field `extra`.',
    });
    expect(await refused(createClient({ url: server.url, token: 'atk_unknown' }).runs.card({ runId: 'run_nope' }))).toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });
});

describe('the complete current action (seed 002: "shows the complete current action")', () => {
  it('wraps and grows, never cut: in the Prepare block, in the task row in progress, and on the run page', async () => {
    const s = await sessionClient(server);
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const long = `${words} Supercalifragilisticexpialidocious${'x'.repeat(120)} END`;
    expect(long.length).toBeLessThanOrEqual(1000);
    const short = await runWith(s, 'Short action', [task('Deploy'), task('Check')]);
    const run = await runWith(s, 'Long action', [{ action: long, expected_result: 'All of it is done' }, task('Check')]);

    const svg = await (await fetchCard(run.id)).text();
    const lines = linesOf(svg);
    const start = lines.findIndex((l) => l.startsWith('word0 '));
    expect(start).toBeGreaterThan(-1);
    // The Prepare block: the lines after "Current action" join back to the whole action, with no ellipsis.
    const prepare = [];
    for (let i = start, text = ''; text.length < long.length; i++) {
      prepare.push(lines[i] ?? '');
      text = prepare.join(' ');
      if (i > start + 60) break;
    }
    expect(prepare.join(' ').replace(/x+( x+)+/g, (m) => m.replaceAll(' ', ''))).toBe(long);
    expect(prepare.join('')).not.toContain('…');
    // The task row in progress draws the whole action too.
    const row = svg.match(/<g class="task" data-task="1" data-state="in_progress">[\s\S]*?<\/g>/)?.[0] ?? '';
    const rowText = linesOf(row).filter((l) => /word|^x+|END$|^Super/.test(l));
    expect(rowText.join(' ').replace(/x+( x+)+/g, (m) => m.replaceAll(' ', ''))).toBe(long);
    expect(row).not.toContain('…');
    // The card grows to hold it.
    const height = (text: string) => Number(text.match(/<svg [^>]*height="(\d+)"/)?.[1]);
    expect(height(svg)).toBeGreaterThan(height(await (await fetchCard(short.id)).text()) + 200);
    // The run page carries the complete action.
    const page = (await (await fetch(`${server.url}/runs/${run.id}`)).json()) as { current: { action: string } };
    expect(page.current.action).toBe(long);
  });
});
