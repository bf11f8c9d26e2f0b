// Regenerates the dashboard's screenshots in docs/screenshots/ from one seeded server: a real server on a fresh SQLite
// file (in this process, real HTTP), a workspace with a member, an agent and its session, a planned task list with
// priorities, labels, comments and evidence, and a checklist run; then Debian's chromium (playwright-core) takes the
// board, the task panel, a search, a conflict, a run note and the run-link-missing page. Run: `pnpm screenshots`.
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import type { Page } from 'playwright-core';
import { launchBrowser, newContext, screenshot, signIn } from './browser.ts';
import { startServer } from './server.ts';

const LIST = 'release-1.2';
/** The pictures this script takes, in docs/screenshots/<name>.png. */
export const SHOTS = ['task-board', 'task-panel', 'task-search', 'task-conflict', 'run-note', 'run-link-missing'] as const;

async function seed(url: string, adminKey: string) {
  const created = await createClient({ url, token: adminKey }).workspaces.create({ name: 'acme-shop' });
  const admin = createClient({ url, token: created.adminKey });
  const member = await admin.keys.create({ name: 'Ada Lovelace', role: 'member' });
  const agentKey = (await admin.keys.create({ name: 'builder agent', role: 'agent' })).token;
  const { client: agent } = await openSessionClient(createClient({ url, token: agentKey }), { title: 'Release 1.2', agentName: 'builder' });
  const person = createClient({ url, token: member.token });
  const listName = LIST;

  // Done, with a hook's evidence: verified.
  const schema = await agent.tasks.create({ listName, subject: 'Design the checkout schema', priority: 'P1', labels: ['backend'] });
  await agent.tasks.claim({ listName, id: schema.id });
  await agent.tasks.hookEvidence({ listName, evidence: { kind: 'command', command: 'pnpm test', exitCode: 0, outputTail: '148 passed' } });
  await agent.tasks.update({ listName, id: schema.id, status: 'completed' });
  // In progress, claimed, with a failing run the hook saw, comments from a person and the agent.
  const api = await agent.tasks.create({
    listName,
    subject: 'Build the payments API',
    description: 'Charge, refund and webhook endpoints behind the new checkout schema.',
    blockedBy: [schema.id],
    priority: 'P0',
    labels: ['backend', 'payments'],
  });
  await agent.tasks.claim({ listName, id: api.id, leaseMs: 30 * 60_000 });
  await agent.tasks.hookEvidence({
    listName,
    evidence: { kind: 'command', command: 'pnpm test payments', exitCode: 1, outputTail: '2 failed, 31 passed' },
  });
  await person.tasks.comment({ listName, id: api.id, body: 'Keep the old /charge endpoint until the mobile app ships.' });
  await agent.tasks.comment({ listName, id: api.id, body: 'Will do: /charge stays as an alias for now.' });
  await agent.tasks.create({ listName, subject: 'Migrate the orders table', blockedBy: [api.id], priority: 'P2', labels: ['db'] });
  await agent.tasks.create({ listName, subject: 'Add the receipt e-mail', priority: 'P2', labels: ['payments', 'ux'] });
  await agent.tasks.create({
    listName,
    subject: 'Fix the rounding of discounted totals',
    description: 'Totals with a 15 % discount are off by a cent: round once, at the end.',
    priority: 'P1',
    labels: ['bug'],
  });
  const notes = await agent.tasks.create({ listName, subject: 'Write the release notes', priority: 'P3', labels: ['docs'] });

  // A checklist run on its second task.
  const { startAttemptId } = await agent.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
  const run = await agent.runs.execute({ startAttemptId });
  await agent.runs.name({ runId: run.id, name: 'Release 1.2' });
  await agent.runs.intake({
    runId: run.id,
    progress_checklist_outcome: 'Three steps to ship 1.2',
    tasks: [
      { action: 'Tag the release candidate', expected_result: 'v1.2.0-rc.1 is tagged' },
      { action: 'Deploy to staging', expected_result: 'The staging health check passes' },
      { action: 'Announce the release', expected_result: 'The changelog is posted' },
    ],
  });
  const { attemptId } = await agent.runs.get({ runId: run.id });
  await agent.runs.step({
    runId: run.id,
    attemptId: attemptId ?? 'none',
    evidence: 'git tag v1.2.0-rc.1',
    progress_execution_outcome: 'Tagged',
  });
  return { memberKey: member.token, agent, notesId: notes.id, runId: run.id };
}

async function openTask(p: Page, subject: string) {
  await p.getByRole('button', { name: subject, exact: true }).first().click();
  await p.getByRole('heading', { name: subject, level: 2 }).waitFor();
}

export async function takeScreenshots() {
  const server = await startServer({ postgres: false });
  const browser = await launchBrowser();
  try {
    const ws = await seed(server.url, server.adminKey);
    const context = await newContext(browser, { width: 1400 });
    const p = await context.newPage();
    p.setDefaultTimeout(15_000);

    await signIn(p, server.url, ws.memberKey, `/tasks/${LIST}?view=board`);
    await p.locator('.board-card').nth(5).waitFor();
    await screenshot(p, 'task-board');

    await p.getByRole('button', { name: 'Table', exact: true }).click();
    await p.setViewportSize({ width: 1400, height: 2000 });
    await openTask(p, 'Build the payments API');
    await p.locator('.task-comments li').nth(1).waitFor();
    await p.locator('.task-comments').scrollIntoViewIfNeeded();
    await screenshot(p, 'task-panel');
    await p.getByRole('button', { name: 'Close the task panel' }).click();
    await p.setViewportSize({ width: 1400, height: 860 });

    await p.getByLabel('Search', { exact: true }).fill('rounding');
    await p.getByRole('button', { name: 'Search', exact: true }).click();
    await p.getByRole('list', { name: 'Tasks matching rounding' }).getByRole('button').first().waitFor();
    await screenshot(p, 'task-search');

    // A conflict: the person edits, the agent writes meanwhile, the save is refused as stale and the choice shown.
    await p.goto(`${server.url}/tasks/${LIST}`);
    await openTask(p, 'Write the release notes');
    const panel = p.locator('.task-panel');
    await panel.getByRole('button', { name: 'Edit subject and description' }).click();
    await panel.getByRole('textbox', { name: 'Description' }).fill('Cover the payments API and the new receipt e-mail.');
    await ws.agent.tasks.update({ listName: LIST, id: ws.notesId, subject: 'Write the 1.2 release notes', owner: 'builder' });
    await panel.getByRole('heading', { name: 'Write the 1.2 release notes', level: 2 }).waitFor();
    await panel.getByRole('button', { name: 'Save' }).click();
    const dialog = p.getByRole('alertdialog', { name: 'This task changed while you were editing' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Take theirs' }).scrollIntoViewIfNeeded();
    await screenshot(p, 'task-conflict');

    await p.goto(`${server.url}/runs/${ws.runId}`);
    const form = p.getByRole('form', { name: 'Leave a note for the agent' });
    await form.getByRole('textbox').fill('Use the blue cluster: green is being drained.');
    await form.getByRole('button', { name: 'Leave note' }).click();
    await form.getByText('Note left on task 2.').waitFor();
    await screenshot(p, 'run-note');

    const anonymous = await (await newContext(browser, { width: 1400 })).newPage();
    await anonymous.goto(`${server.url}/runs/no-such-run`);
    await anonymous.getByRole('heading', { name: 'This run link leads to no run', level: 1 }).waitFor();
    await screenshot(anonymous, 'run-link-missing');
  } finally {
    await browser.close();
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await takeScreenshots();
  console.log(`Wrote ${SHOTS.map((s) => `docs/screenshots/${s}.png`).join(', ')}`);
}
