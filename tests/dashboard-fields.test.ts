// End-to-end tests in a real browser (Debian's chromium through playwright-core) against the real server: the task
// list's search box (a hit opens its task), the panel's priority, labels and comments section (a person's comment
// saved, an agent's arriving live), and the table's priority and label filters. Screenshots go to docs/screenshots/.
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import type { Browser, Page } from 'playwright-core';
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

async function workspace(name: string) {
  const created = await adminClient(server).workspaces.create({ name });
  const admin = createClient({ url: server.url, token: created.adminKey });
  const agentKey = (await admin.keys.create({ name: `${name} agent`, role: 'agent' })).token;
  const viewerKey = (await admin.keys.create({ name: `${name} viewer`, role: 'viewer' })).token;
  const { client: agent } = await openSessionClient(createClient({ url: server.url, token: agentKey }), {
    title: 'planner',
    agentName: 'planner',
  });
  return { adminKey: created.adminKey, admin, agent, viewerKey };
}

async function page(): Promise<Page> {
  return (await newContext(browser)).newPage();
}

describe('task list: search, priorities, labels and comments', () => {
  it('a search hit opens its task; the panel shows priority, labels and comments, a person adds one, an agent one arrives live', async () => {
    const ws = await workspace('fields');
    await ws.agent.tasks.create({ subject: 'Write the changelog', priority: 'P3', labels: ['docs'] });
    const target = await ws.agent.tasks.create({
      subject: 'Rotate the signing keys',
      description: 'The old keys expire on Friday; coordinate with the kumquat team.',
      priority: 'P0',
      labels: ['security', 'ops'],
    });
    await ws.agent.tasks.create({ subject: 'Tidy the backlog' });

    const p = await page();
    await signIn(p, server.url, ws.adminKey, '/tasks/default');
    await p.locator('table.tasks tbody th button').first().waitFor();
    await p.getByLabel('Search', { exact: true }).fill('kumquat');
    await p.getByRole('button', { name: 'Search' }).click();
    const hit = p.getByRole('list', { name: 'Tasks matching kumquat' }).getByRole('button');
    await hit.waitFor();
    expect(await hit.allTextContents()).toEqual([`${target.ref} Rotate the signing keys`]);
    expect(await p.locator('.search-hits mark').first().textContent()).toBe('kumquat');
    await screenshot(p, 'task-search');
    await hit.click();
    await p.getByRole('heading', { name: 'Rotate the signing keys', level: 2 }).waitFor();
    expect(await p.getByTestId('priority').textContent()).toBe('P0');
    expect(await p.getByTestId('labels').textContent()).toBe('security, ops');

    // Comments: none yet; a person's comment is saved and listed with the key's name.
    const section = p.locator('.task-comments');
    await section.getByText('No comments yet.').waitFor();
    await section.getByLabel('Comment', { exact: true }).fill('Please do this before the release.');
    await section.getByRole('button', { name: 'Add comment' }).click();
    await section.locator('li', { hasText: 'Please do this before the release.' }).waitFor();
    expect(await section.locator('li strong').allTextContents()).toEqual(['first admin key']);
    expect((await ws.agent.tasks.get({ id: target.id })).comments.newest.map((c) => c.body)).toEqual([
      'Please do this before the release.',
    ]);
    // An agent's comment arrives live, without a reload.
    await ws.agent.tasks.comment({ id: target.id, body: 'On it after the deploy.' });
    await section.locator('li[data-by="agent"]', { hasText: 'On it after the deploy.' }).waitFor({ timeout: guardMs(1_000) });
    expect(await section.getByRole('heading').textContent()).toBe('Comments (2)');
    await screenshot(p, 'task-comments');

    // The table filters by priority and by label.
    await p.locator('form.filters').getByLabel('Priority').selectOption('P0');
    expect(await p.locator('table.tasks tbody th button').allTextContents()).toEqual(['Rotate the signing keys']);
    await p.locator('form.filters').getByLabel('Priority').selectOption('(none)');
    expect(await p.locator('table.tasks tbody th button').allTextContents()).toEqual(['Tidy the backlog']);
    await p.locator('form.filters').getByLabel('Priority').selectOption('');
    await p.locator('form.filters').getByLabel('Label').selectOption('docs');
    expect(await p.locator('table.tasks tbody th button').allTextContents()).toEqual(['Write the changelog']);
  });

  it('a viewer reads comments but gets no comment form', async () => {
    const ws = await workspace('fields-viewer');
    const task = await ws.agent.tasks.create({ subject: 'Read only' });
    await ws.admin.tasks.comment({ id: task.id, body: 'Visible to viewers' });
    const p = await page();
    await signIn(p, server.url, ws.viewerKey, '/tasks/default');
    await p.locator('table.tasks tbody th button', { hasText: 'Read only' }).click();
    await p.locator('.task-comments li', { hasText: 'Visible to viewers' }).waitFor();
    expect(await p.locator('.task-comments form').count()).toBe(0);
  });
});
