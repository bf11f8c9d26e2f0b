// End-to-end test of a person setting a task's priority and labels from the dashboard's task panel (real chromium
// against the real server): each change one TaskUpdate with the version read, found by the table's filters and by
// TaskGet over HTTP; the server's refusals of too many and too long labels shown inline, recording nothing; an agent's
// write between the read and the save shown as a conflict the person settles.
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './support/fixtures.ts';
import { launchBrowser, newContext, screenshot, signIn } from './support/browser.ts';
import { rowCounts } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';

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
  const memberKey = (await admin.keys.create({ name: 'Ada Lovelace', role: 'member' })).token;
  const agentKey = (await admin.keys.create({ name: `${name} agent`, role: 'agent' })).token;
  const { client: agent } = await openSessionClient(createClient({ url: server.url, token: agentKey }), { agentName: 'planner' });
  return { memberKey, agent };
}

async function page(): Promise<Page> {
  const p = await (await newContext(browser, { width: 1400 })).newPage();
  p.setDefaultTimeout(10_000);
  return p;
}

/** The rows that record something (a stream ticket is a browser's passing single-use pass, not a record). */
async function recorded() {
  const { StreamTicket: _ticket, ...rest } = await rowCounts(server);
  return rest;
}

async function openTask(p: Page, subject: string) {
  await p.getByRole('button', { name: subject, exact: true }).first().click();
  await p.getByRole('heading', { name: subject, level: 2 }).waitFor();
}

const tableRows = (p: Page) => p.locator('table.tasks tbody th button').allTextContents();

describe('priority and labels from the task panel', () => {
  it('a member sets both; the table filters find the task and TaskGet shows them; refusals are shown and record nothing', async () => {
    const { memberKey, agent } = await workspace('fields-edit');
    const target = await agent.tasks.create({ listName: 'plan', subject: 'Rotate the signing keys' });
    await agent.tasks.create({ listName: 'plan', subject: 'Tidy the backlog', priority: 'P3', labels: ['chore'] });
    const p = await page();
    await signIn(p, server.url, memberKey, '/tasks/plan');
    await openTask(p, 'Rotate the signing keys');
    const panel = p.locator('.task-panel');

    await panel.getByLabel('Priority').selectOption('P0');
    await panel.getByTestId('priority').getByText('P0').waitFor();
    await panel.getByLabel('Labels').fill('security, ops , ');
    await panel.getByRole('button', { name: 'Set labels' }).click();
    await panel.getByTestId('labels').getByText('security, ops').waitFor();

    // TaskGet over HTTP: both fields, in two changes under the person's key.
    const got = await agent.tasks.get({ listName: 'plan', id: target.id });
    expect(got).toMatchObject({ priority: 'P0', labels: ['security', 'ops'], version: 3 });
    const history = await agent.tasks.history({ listName: 'plan', id: target.id });
    expect(history.changes.slice(1).map((c) => [c.by.keyName, Object.keys(c.changes)])).toEqual([
      ['Ada Lovelace', ['priority']],
      ['Ada Lovelace', ['labels']],
    ]);

    // The table's filters find it.
    const filters = p.locator('form.filters');
    await filters.getByLabel('Priority').selectOption('P0');
    expect(await tableRows(p)).toEqual(['Rotate the signing keys']);
    await filters.getByLabel('Priority').selectOption('');
    await filters.getByLabel('Label').selectOption('ops');
    expect(await tableRows(p)).toEqual(['Rotate the signing keys']);
    await filters.getByLabel('Label').selectOption('chore');
    expect(await tableRows(p)).toEqual(['Tidy the backlog']);
    await filters.getByLabel('Label').selectOption('');

    // Refusals in the server's words, inline; nothing recorded, the labels as they were.
    const before = await recorded();
    const eleven = Array.from({ length: 11 }, (_, i) => `l${i + 1}`).join(', ');
    await panel.getByLabel('Labels').fill(eleven);
    await panel.getByRole('button', { name: 'Set labels' }).click();
    await panel.getByRole('alert').getByText('Error: invalid task: `labels` may hold at most 10 labels (got 11).').waitFor();
    const long = 'x'.repeat(33);
    await panel.getByLabel('Labels').fill(`ok, ${long}`);
    await panel.getByRole('button', { name: 'Set labels' }).click();
    await panel
      .getByRole('alert')
      .getByText(`Error: invalid task: a label must be at most 32 characters (got 33: "${long}"). At \`labels[1]\`.`)
      .waitFor();
    await screenshot(p, 'task-panel-labels-refused');
    expect(await recorded()).toEqual(before);
    expect(await agent.tasks.get({ listName: 'plan', id: target.id })).toMatchObject({ labels: ['security', 'ops'], version: 3 });

    // Clearing: priority none and no labels.
    await panel.getByLabel('Labels').fill('');
    await panel.getByRole('button', { name: 'Set labels' }).click();
    await panel.getByTestId('labels').getByText('—').waitFor();
    await panel.getByLabel('Priority').selectOption('');
    await panel.getByTestId('priority').getByText('—').waitFor();
    const cleared = await agent.tasks.get({ listName: 'plan', id: target.id });
    expect([cleared.priority, cleared.labels]).toEqual([undefined, []]);
  });

  it('labels typed while an agent changed the task: the conflict names what changed, and Keep mine saves them on top', async () => {
    const { memberKey, agent } = await workspace('fields-conflict');
    const t = await agent.tasks.create({ listName: 'plan', subject: 'Ship the API', labels: ['api'] });
    const p = await page();
    await signIn(p, server.url, memberKey, '/tasks/plan');
    await openTask(p, 'Ship the API');
    const panel = p.locator('.task-panel');

    await panel.getByLabel('Labels').fill('api, backend');
    await agent.tasks.update({ listName: 'plan', id: t.id, priority: 'P1', labels: ['api', 'urgent'] });
    await panel.getByTestId('priority').getByText('P1').waitFor();
    // The person's typing is kept while the page follows the task live.
    expect(await panel.getByLabel('Labels').inputValue()).toBe('api, backend');

    const before = await recorded();
    await panel.getByRole('button', { name: 'Set labels' }).click();
    const dialog = p.getByRole('alertdialog', { name: 'This task changed while you were editing' });
    await dialog.waitFor();
    expect(await recorded()).toEqual(before);
    expect(await dialog.locator('.conflict-fields tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent))).toEqual([
      'priority—P1',
      'labelsapiapi, urgent',
    ]);
    expect(await dialog.locator('.conflict-mine li').allTextContents()).toEqual(['labels: api, backend']);
    await dialog.getByRole('button', { name: 'Keep mine' }).click();
    await dialog.waitFor({ state: 'detached' });
    await panel.getByTestId('labels').getByText('api, backend').waitFor();
    expect(await agent.tasks.get({ listName: 'plan', id: t.id })).toMatchObject({ priority: 'P1', labels: ['api', 'backend'], version: 3 });
  });
});
