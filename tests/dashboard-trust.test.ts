// End-to-end test of trust on the dashboard in a real browser: verified and contested badges on the table, the graph
// and the board's cards, evidence with its provenance on the task panel, and the lease countdown of a claimed task.
import { createHmac, randomUUID } from 'node:crypto';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './support/fixtures.ts';
import { launchBrowser, newContext, screenshot, signIn } from './support/browser.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { guardMs } from './support/time-guard.ts';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function checkRun(workspaceId: string, secret: string, commit: string, conclusion: string) {
  const body = JSON.stringify({
    action: 'completed',
    check_run: { name: 'ci / test', conclusion, head_sha: commit, html_url: 'https://github.com/acme/shop/runs/7' },
  });
  const response = await fetch(`${server.url}/hooks/github?workspace=${workspaceId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'check_run',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
  expect(response.status).toBe(200);
}

describe('trust on the dashboard', () => {
  it('badges on the table, graph and board, evidence with provenance on the panel, and the lease countdown', async () => {
    const created = await adminClient(server).workspaces.create({ name: 'trust' });
    const admin = createClient({ url: server.url, token: created.adminKey });
    const secret = 'a webhook secret for the dashboard test';
    await admin.workspaces.githubSecret({ secret });
    const agent = createClient({ url: server.url, token: (await admin.keys.create({ name: 'agent', role: 'agent' })).token });
    const viewerKey = (await admin.keys.create({ name: 'viewer', role: 'viewer' })).token;
    const { client } = await openSessionClient(agent, { agentName: 'builder' });

    const verified = await client.tasks.create({ subject: 'Fix the totals' });
    await client.tasks.claim({ id: verified.id });
    await client.tasks.hookEvidence({ evidence: { kind: 'command', command: 'pnpm test', exitCode: 0, outputTail: '148 passed' } });
    await client.tasks.update({ id: verified.id, status: 'completed' });
    const commit = 'c0ffee1234567890c0ffee1234567890c0ffee12';
    const contested = await client.tasks.create({ subject: 'Ship the API', metadata: { commit } });
    await checkRun(created.workspace.id, secret, commit, 'success');
    await checkRun(created.workspace.id, secret, commit, 'failure');
    const word = await client.tasks.create({ subject: 'Write the docs' });
    await client.tasks.update({ id: word.id, status: 'completed', evidence: { kind: 'note', text: 'Done, trust me' } });
    const leased = await client.tasks.create({ subject: 'Long migration' });
    await client.tasks.claim({ id: leased.id, leaseMs: 15 * 60_000 });

    const p = await (await newContext(browser)).newPage();
    await signIn(p, server.url, viewerKey, '/tasks/default?view=graph');
    await p.locator('svg .node').nth(3).waitFor();
    const graphBadge = (id: string) => p.locator(`.node[data-task="${id}"] [data-badge]`);
    expect(await graphBadge(verified.id).getAttribute('data-badge')).toBe('verified');
    expect(await graphBadge(contested.id).getAttribute('data-badge')).toBe('contested');
    expect(await graphBadge(word.id).count()).toBe(0);
    expect(await p.locator(`.node[data-task="${contested.id}"]`).getAttribute('aria-label')).toContain(', contested');

    // The panel: each piece of evidence with where it came from.
    await p.locator(`.node[data-task="${contested.id}"]`).click();
    await p.getByRole('heading', { name: 'Ship the API', level: 2 }).waitFor();
    const items = p.getByRole('list', { name: 'Evidence' }).locator('li');
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).getAttribute('data-provenance')).toBe('ci');
    expect(await items.nth(0).textContent()).toContain('CI ✓ ci / test: success @ c0ffee1');
    expect(await items.nth(1).textContent()).toContain('CI ✗ ci / test: failure @ c0ffee1');
    expect(await p.locator('.task-panel [data-badge="contested"]').count()).toBe(1);
    await p.locator(`.node[data-task="${word.id}"]`).click();
    await p.getByRole('heading', { name: 'Write the docs', level: 2 }).waitFor();
    expect(await p.getByRole('list', { name: 'Evidence' }).textContent()).toContain("agent's word ✓ Done, trust me");
    await screenshot(p, 'task-trust-graph');

    // The table: the badges beside the status, and the lease counting down.
    await p.getByRole('button', { name: 'Table' }).click();
    const row = (subject: string) => p.locator('table.tasks tbody tr', { has: p.getByRole('button', { name: subject }) });
    await row('Fix the totals').waitFor();
    expect(await row('Fix the totals').locator('[data-badge]').textContent()).toBe('verified');
    expect(await row('Ship the API').locator('[data-badge]').textContent()).toBe('contested');
    expect(await row('Write the docs').locator('[data-badge]').count()).toBe(0);
    const lease = row('Long migration').locator('.lease');
    const first = await lease.textContent();
    expect(first).toMatch(/^lease 1[45]:\d\d$/);
    await p.waitForFunction(
      ({ before }) => {
        const el = (
          globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
        ).document.querySelector('table.tasks .lease');
        return el !== null && el.textContent !== before;
      },
      { before: first },
      { timeout: guardMs(1_000) },
    );
    await screenshot(p, 'task-trust-table');

    // The board: the same badges on the cards, in their status columns.
    await p.getByRole('button', { name: 'Board' }).click();
    const card = (id: string) => p.locator(`.board-card[data-task-id="${id}"]`);
    await card(verified.id).waitFor();
    expect(await card(verified.id).locator('[data-badge]').textContent()).toBe('verified');
    expect(await p.locator(`.board-column[data-status="completed"] [data-task-id="${verified.id}"] [data-badge]`).count()).toBe(1);
    expect(await card(contested.id).locator('[data-badge]').textContent()).toBe('contested');
    expect(await card(contested.id).locator('[data-badge]').getAttribute('title')).toBe('Contested: a check failed after a success');
    expect(await card(word.id).locator('[data-badge]').count()).toBe(0);
    expect(await card(leased.id).locator('.lease').textContent()).toMatch(/^lease 1[45]:\d\d$/);
    await screenshot(p, 'task-trust-board');
  });
});
