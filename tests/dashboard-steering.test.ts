// End-to-end tests of a person steering from the dashboard (real chromium against the real server): a member key
// creates and edits tasks, changes status, owner and blockers, deletes; a conflict with an agent's write is shown and
// settled by the person; the board moves cards by drag and by keyboard; read-only keys are told why; a run link to a
// missing or revoked run shows a page saying so. Every change names the person's key in the task's history and reaches
// agents live; every refusal records nothing. Screenshots go to docs/screenshots/.
import { type AgentTasksClient, createClient, openSessionClient, refusalOf } from '@agent-tasks/sdk';
import type { TaskEvent } from '@agent-tasks/schema';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, nameAndIntake } from './support/fixtures.ts';
import { launchBrowser, newContext, screenshot, signIn } from './support/browser.ts';
import { rowCounts } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';

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

/** A fresh workspace: its admin, a member key (a person), a viewer key, and an agent session. */
async function workspace(name: string) {
  const created = await adminClient(server).workspaces.create({ name });
  const admin = createClient({ url: server.url, token: created.adminKey });
  const member = await admin.keys.create({ name: 'Ada Lovelace', role: 'member' });
  const viewerKey = (await admin.keys.create({ name: `${name} viewer`, role: 'viewer' })).token;
  const agentKey = (await admin.keys.create({ name: `${name} agent`, role: 'agent' })).token;
  const { client: agent, session } = await openSessionClient(createClient({ url: server.url, token: agentKey }), {
    title: 'planner',
    agentName: 'planner',
  });
  return {
    admin,
    adminKey: created.adminKey,
    memberKey: member.token,
    memberKeyId: member.key.id,
    memberApi: createClient({ url: server.url, token: member.token }),
    viewerKey,
    agent,
    session,
  };
}

async function page(): Promise<Page> {
  const p = await (await newContext(browser, { width: 1400 })).newPage();
  p.setDefaultTimeout(10_000);
  return p;
}

/** Everything the list's live feed sends, from its start. */
async function watchList(client: AgentTasksClient, listName: string) {
  const events: TaskEvent[] = [];
  let sub: { unsubscribe(): void } | undefined;
  await new Promise<void>((resolve) => {
    sub = client.tasks.watch({ listName }, { onData: (e) => events.push(e.data), onStarted: () => resolve() });
  });
  return { events, stop: () => sub?.unsubscribe() };
}

/** The rows that record something (a stream ticket is a browser's passing single-use pass, not a record). */
async function recorded() {
  const { StreamTicket: _ticket, ...rest } = await rowCounts(server);
  return rest;
}

const refusal = (call: Promise<unknown>) => call.then(() => expect.fail('expected a refusal')).catch((e: unknown) => refusalOf(e));

/** Opens a task's panel from the table. */
async function openTask(p: Page, subject: string) {
  await p.getByRole('button', { name: subject, exact: true }).first().click();
  await p.getByRole('heading', { name: subject, level: 2 }).waitFor();
}

describe('a member key steers the task graph', () => {
  it('creates a task inline, edits it, and the agent sees each change live with the person named in the history', async () => {
    const ws = await workspace('steer-create');
    await ws.agent.tasks.create({ listName: 'plan', subject: 'Agent work' });
    const feed = await watchList(ws.agent, 'plan');
    const p = await page();
    await signIn(p, server.url, ws.memberKey, '/tasks/plan');
    await p.getByRole('heading', { name: 'Tasks: plan' }).waitFor();
    await p.locator('.connection[data-state="live"]').waitFor();
    expect(await p.locator('.role').textContent()).toBe('steer-create · member');

    // A refusal: no subject. The server's own text, inline; nothing recorded.
    const before = await recorded();
    await p.getByRole('button', { name: 'Add task' }).click();
    await p.getByRole('alert').getByText('Error: invalid task: `subject` must be a non-empty string.').waitFor();
    expect(await recorded()).toEqual(before);

    await p.getByLabel('New task').fill('Write the release notes');
    await p.getByLabel('Description').first().fill('For 1.2');
    await p.getByRole('button', { name: 'Add task' }).click();
    await p.getByText('Created #2 “Write the release notes”.').waitFor();
    const made = await waitFor('the task reaches the agent live', () =>
      feed.events.find((e) => e.kind === 'created' && e.task.subject === 'Write the release notes'),
    );
    expect(made.task).toMatchObject({ description: 'For 1.2', threadID: ws.memberKeyId, version: 1 });
    expect(made.by).toEqual({ sessionId: null, keyId: ws.memberKeyId });

    await openTask(p, 'Write the release notes');
    await p.getByRole('button', { name: 'Edit subject and description' }).click();
    await p.getByLabel('Subject').fill('Write the 1.2 release notes');
    await p.getByRole('textbox', { name: 'Description' }).last().fill('Cover the board and the member role');
    await p.getByRole('button', { name: 'Save' }).click();
    await p.getByRole('heading', { name: 'Write the 1.2 release notes', level: 2 }).waitFor();
    const got = await ws.agent.tasks.get({ listName: 'plan', id: made.taskId });
    expect(got).toMatchObject({ subject: 'Write the 1.2 release notes', description: 'Cover the board and the member role', version: 2 });
    await waitFor('the edit reaches the agent live', () => feed.events.find((e) => e.task.version === 2 && e.taskId === made.taskId));

    // The history names the person's key.
    await p.locator('.history li', { hasText: 'updated by key Ada Lovelace' }).waitFor();
    expect(await p.locator('.history .by-key').allTextContents()).toEqual(['Ada Lovelace', 'Ada Lovelace']);
    const history = await ws.agent.tasks.history({ listName: 'plan', id: made.taskId });
    expect(history.changes.map((c) => [c.kind, c.by.keyName, Object.keys(c.changes).sort()])).toEqual([
      ['created', 'Ada Lovelace', ['description', 'metadata', 'status', 'subject', 'threadID']],
      ['updated', 'Ada Lovelace', ['description', 'subject']],
    ]);
    await screenshot(p, 'task-panel-editing');
    feed.stop();
  });

  it('changes status (refused as TaskUpdate refuses), assigns and clears the owner, adds and removes blockers, refuses a cycle naming it, deletes', async () => {
    const ws = await workspace('steer-fields');
    const a = await ws.agent.tasks.create({ listName: 'plan', subject: 'Design the schema' });
    const b = await ws.agent.tasks.create({ listName: 'plan', subject: 'Build the API', blockedBy: [a.id] });
    const c = await ws.agent.tasks.create({ listName: 'plan', subject: 'Ship it' });
    const p = await page();
    await signIn(p, server.url, ws.memberKey, '/tasks/plan');
    await openTask(p, 'Build the API');
    const panel = p.locator('.task-panel');

    // A blocked task cannot start: the same text TaskUpdate answers, shown inline; nothing recorded.
    const before = await recorded();
    await panel.getByLabel('Status').selectOption('in_progress');
    const blockedText = 'Error: task ' + b.id + ' is blocked by ' + a.id + '; it cannot be started until it is completed.';
    await panel.getByRole('alert').getByText(blockedText).waitFor();
    expect(await recorded()).toEqual(before);
    expect((await refusal(ws.memberApi.tasks.update({ listName: 'plan', id: b.id, status: 'in_progress' }))).message).toBe(blockedText);
    expect(await panel.getByLabel('Status').inputValue()).toBe('pending');

    await panel.getByLabel('Owner').fill('builder');
    await panel.getByRole('button', { name: 'Assign' }).click();
    await waitFor('the owner set', async () => (await ws.agent.tasks.get({ listName: 'plan', id: b.id })).owner === 'builder' || null);
    await panel.getByRole('button', { name: 'Clear owner' }).click();
    await waitFor('the owner cleared', async () =>
      (await ws.agent.tasks.get({ listName: 'plan', id: b.id })).owner === undefined ? true : null,
    );

    // Add a blocker by picking a task; then one that would close a cycle is refused, naming it, recording nothing.
    await panel.getByLabel('Add a blocker').selectOption({ label: '#3 Ship it' });
    await panel.getByRole('button', { name: 'Add blocker' }).click();
    await panel.getByRole('button', { name: 'Remove blocker Ship it' }).waitFor();
    expect((await ws.agent.tasks.get({ listName: 'plan', id: b.id })).blockedBy.sort()).toEqual([a.id, c.id].sort());
    await p.getByRole('button', { name: 'Close the task panel' }).click();
    await openTask(p, 'Design the schema');
    const cycleBefore = await recorded();
    await panel.getByLabel('Add a blocker').selectOption({ label: '#2 Build the API' });
    await panel.getByRole('button', { name: 'Add blocker' }).click();
    const cycleText = (await refusal(ws.memberApi.tasks.update({ listName: 'plan', id: a.id, addBlockedBy: [b.id] }))).message;
    expect(cycleText).toMatch(/^Error: invalid dependency: it would close a cycle /);
    expect(cycleText).toContain(a.id);
    expect(cycleText).toContain(b.id);
    await panel.getByRole('alert').getByText(cycleText).waitFor();
    expect(await recorded()).toEqual(cycleBefore);
    await screenshot(p, 'task-panel-cycle-refused');

    await p.getByRole('button', { name: 'Close the task panel' }).click();
    await openTask(p, 'Build the API');
    await panel.getByRole('button', { name: 'Remove blocker Ship it' }).click();
    await panel.getByRole('button', { name: 'Remove blocker Ship it' }).waitFor({ state: 'detached' });
    expect((await ws.agent.tasks.get({ listName: 'plan', id: b.id })).blockedBy).toEqual([a.id]);

    // Completing the blocker lets the status change through.
    await ws.agent.tasks.update({ listName: 'plan', id: a.id, status: 'completed' });
    await panel.getByText('pending · ready').waitFor();
    await panel.getByLabel('Status').selectOption('in_progress');
    await waitFor('started', async () =>
      (await ws.agent.tasks.get({ listName: 'plan', id: b.id })).status === 'in_progress' ? true : null,
    );

    await panel.getByRole('button', { name: 'Delete task' }).click();
    await panel.getByRole('button', { name: 'Delete for good' }).click();
    await p.locator('.task-panel').waitFor({ state: 'detached' });
    expect((await ws.agent.tasks.get({ listName: 'plan', id: b.id })).status).toBe('deleted');
    expect(await p.getByRole('button', { name: 'Build the API', exact: true }).count()).toBe(0);

    // Every change was sent with the version read and is in the history under the person's key.
    const history = await ws.agent.tasks.history({ listName: 'plan', id: b.id });
    const byPerson = history.changes.filter((x) => x.by.keyName === 'Ada Lovelace').map((x) => Object.keys(x.changes).sort().join(','));
    expect(byPerson).toEqual(['owner', 'owner', 'blockedBy', 'blockedBy', 'status', 'blockedBy,status']);
  });
});

describe('a conflict with an agent', () => {
  it('shows what the agent changed between the read and the save, and lets the person keep theirs or take the agent’s', async () => {
    const ws = await workspace('steer-conflict');
    const t = await ws.agent.tasks.create({ listName: 'plan', subject: 'Migrate the database', description: 'Old text' });
    const p = await page();
    await signIn(p, server.url, ws.memberKey, '/tasks/plan');
    await openTask(p, 'Migrate the database');
    const panel = p.locator('.task-panel');

    // The person reads version 1 and starts editing; the agent writes version 2 meanwhile.
    await panel.getByRole('button', { name: 'Edit subject and description' }).click();
    await panel.getByRole('textbox', { name: 'Description' }).fill('The person’s plan');
    await ws.agent.tasks.update({ listName: 'plan', id: t.id, subject: 'Migrate the database to PostgreSQL', owner: 'planner' });
    // The page follows live, and the person's draft is kept.
    await panel.getByRole('heading', { name: 'Migrate the database to PostgreSQL', level: 2 }).waitFor();
    expect(await panel.getByRole('textbox', { name: 'Description' }).inputValue()).toBe('The person’s plan');

    const before = await recorded();
    await panel.getByRole('button', { name: 'Save' }).click();
    const dialog = p.getByRole('alertdialog', { name: 'This task changed while you were editing' });
    await dialog.waitFor();
    expect(await recorded()).toEqual(before);
    expect(await dialog.getByText('You read version 1; it is now at version 2.', { exact: false }).count()).toBe(1);
    expect(await dialog.locator('.conflict-fields tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent))).toEqual([
      'subjectMigrate the databaseMigrate the database to PostgreSQL',
      'owner—planner',
    ]);
    expect(await dialog.locator('.conflict-mine li').allTextContents()).toEqual(['description: The person’s plan']);
    await dialog.getByRole('button', { name: 'Take theirs' }).scrollIntoViewIfNeeded();
    await screenshot(p, 'task-conflict');
    await dialog.getByRole('button', { name: 'Keep mine' }).click();
    await dialog.waitFor({ state: 'detached' });
    await panel.locator('.description').getByText('The person’s plan').waitFor();
    // Kept: the person's description on top of the agent's subject and owner — neither silently lost.
    expect(await ws.agent.tasks.get({ listName: 'plan', id: t.id })).toMatchObject({
      subject: 'Migrate the database to PostgreSQL',
      owner: 'planner',
      description: 'The person’s plan',
      version: 3,
    });

    // Again, and this time the person takes the agent's version: nothing of theirs is written.
    await panel.getByRole('button', { name: 'Edit subject and description' }).click();
    await panel.getByLabel('Subject').fill('A subject the person drops');
    await ws.agent.tasks.update({ listName: 'plan', id: t.id, subject: 'Migrate with zero downtime' });
    await panel.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Take theirs' }).click();
    await dialog.waitFor({ state: 'detached' });
    await panel.getByRole('heading', { name: 'Migrate with zero downtime', level: 2 }).waitFor();
    const after = await ws.agent.tasks.get({ listName: 'plan', id: t.id });
    expect(after).toMatchObject({ subject: 'Migrate with zero downtime', version: 4 });
    const history = await ws.agent.tasks.history({ listName: 'plan', id: t.id });
    expect(history.changes.map((c) => c.by.keyName)).toEqual([
      'steer-conflict agent',
      'steer-conflict agent',
      'Ada Lovelace',
      'steer-conflict agent',
    ]);
  });
});

describe('the board', () => {
  it('columns by status with ready tasks marked; a drag and a keyboard-only move change status and order', async () => {
    const ws = await workspace('steer-board');
    const a = await ws.agent.tasks.create({ listName: 'plan', subject: 'Sketch' });
    const b = await ws.agent.tasks.create({ listName: 'plan', subject: 'Paint', blockedBy: [a.id] });
    const c = await ws.agent.tasks.create({ listName: 'plan', subject: 'Frame' });
    const feed = await watchList(ws.agent, 'plan');
    const p = await page();
    await signIn(p, server.url, ws.memberKey, '/tasks/plan?view=board');
    const column = (status: string) => p.locator(`.board-column[data-status="${status}"]`);
    const cards = (status: string) => column(status).locator('.board-card .link').allTextContents();
    await column('pending').getByText('Sketch').waitFor();
    expect(await cards('pending')).toEqual(['Sketch', 'Paint', 'Frame']);
    expect(
      await column('pending')
        .locator('.board-card', { has: p.locator('.ready') })
        .locator('.link')
        .allTextContents(),
    ).toEqual(['Sketch', 'Frame']);

    // Drag "Frame" into In progress.
    await column('pending').locator(`[data-task-id="${c.id}"]`).dragTo(column('in_progress'));
    await column('in_progress').getByText('Frame').waitFor();
    expect((await ws.agent.tasks.get({ listName: 'plan', id: c.id })).status).toBe('in_progress');

    // Keyboard only: focus "Sketch", ArrowDown puts it after "Paint", ArrowRight moves it to In progress.
    await p.locator(`[data-task-id="${a.id}"]`).focus();
    await p.keyboard.press('ArrowDown');
    await p.getByTestId('board-said').getByText('Moved “Sketch” to Pending, position 2 of 2.').waitFor();
    expect(await cards('pending')).toEqual(['Paint', 'Sketch']);
    await p.keyboard.press('ArrowRight');
    await p.getByTestId('board-said').getByText('Moved “Sketch” to In progress, position 2 of 2.').waitFor();
    expect(await cards('in_progress')).toEqual(['Frame', 'Sketch']);
    // The focus stayed on the moved card.
    expect(
      await p.evaluate(() =>
        (
          globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } } }
        ).document.activeElement.getAttribute('data-task-id'),
      ),
    ).toBe(a.id);
    await p.keyboard.press('ArrowUp');
    await p.getByTestId('board-said').getByText('Moved “Sketch” to In progress, position 1 of 2.').waitFor();
    expect(await cards('in_progress')).toEqual(['Sketch', 'Frame']);
    // "Paint" is ready once "Sketch" is no longer... still unresolved: blocked, not ready; a blocked card cannot start.
    const before = await recorded();
    await p.locator(`[data-task-id="${b.id}"]`).focus();
    await p.keyboard.press('ArrowRight');
    await p
      .getByRole('alert')
      .getByText(`Error: task ${b.id} is blocked by ${a.id}; it cannot be started until it is completed.`)
      .waitFor();
    expect(await recorded()).toEqual(before);
    expect(await cards('pending')).toEqual(['Paint']);

    // A drag onto the top half of a card puts the dragged card before it: an order change within the column.
    await column('in_progress')
      .locator(`[data-task-id="${c.id}"]`)
      .dragTo(column('in_progress').locator(`[data-task-id="${a.id}"]`), { targetPosition: { x: 20, y: 4 } });
    await p.getByTestId('board-said').getByText('Moved “Frame” to In progress, position 1 of 2.').waitFor();
    expect(await cards('in_progress')).toEqual(['Frame', 'Sketch']);

    // Each move was one TaskUpdate the agent saw live: status and the board order in metadata, under the person's key.
    const moves = await waitFor('the moves live', () => (feed.events.filter((e) => e.kind === 'updated').length >= 5 ? feed.events : null));
    expect(moves.filter((e) => e.kind === 'updated').map((e) => [e.task.subject, e.task.status, e.by.keyId])).toEqual([
      ['Frame', 'in_progress', ws.memberKeyId],
      ['Sketch', 'pending', ws.memberKeyId],
      ['Sketch', 'in_progress', ws.memberKeyId],
      ['Sketch', 'in_progress', ws.memberKeyId],
      ['Frame', 'in_progress', ws.memberKeyId],
    ]);
    const order = (id: string) => moves.findLast((e) => e.taskId === id)?.task.metadata.boardOrder as number;
    expect(order(c.id)).toBeLessThan(order(a.id));
    await screenshot(p, 'task-board');
    feed.stop();
  });

  it('tells a viewer key why it cannot move cards or edit, and its cards do not move', async () => {
    const ws = await workspace('steer-viewer');
    const t = await ws.agent.tasks.create({ listName: 'plan', subject: 'Read only' });
    const p = await page();
    await signIn(p, server.url, ws.viewerKey, '/tasks/plan?view=board');
    await p.locator('.board-card').first().waitFor();
    await p.getByTestId('read-only-note').waitFor();
    expect(await p.getByTestId('read-only-note').textContent()).toContain('sign in with a member key');
    expect(await p.getByRole('form', { name: 'Create a task' }).count()).toBe(0);
    expect(await p.locator('.board-card').first().getAttribute('draggable')).toBe('false');
    await p.locator(`[data-task-id="${t.id}"]`).focus();
    await p.keyboard.press('ArrowRight');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await ws.agent.tasks.get({ listName: 'plan', id: t.id })).version).toBe(1);
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'Read only', level: 2 }).waitFor();
    expect(await p.locator('.task-panel').getByTestId('read-only-note').count()).toBe(1);
    expect(await p.getByRole('button', { name: 'Delete task' }).count()).toBe(0);
    await screenshot(p, 'task-board-viewer');
  });
});

describe('empty states', () => {
  it('explain the role: a member is offered to start a list, a viewer is told how to get a member key', async () => {
    const ws = await workspace('steer-empty');
    const viewer = await page();
    await signIn(viewer, server.url, ws.viewerKey, '/tasks');
    await viewer.getByRole('heading', { name: 'No task lists yet' }).waitFor();
    expect(await viewer.getByTestId('read-only-note').textContent()).toContain('sign in with a member key');

    const member = await page();
    await signIn(member, server.url, ws.memberKey, '/tasks');
    await member.getByRole('link', { name: 'start the default list' }).click();
    await member.getByText('No tasks in this list yet', { exact: false }).waitFor();
    await member.getByLabel('New task').fill('First step');
    await member.getByRole('button', { name: 'Add task' }).click();
    await member.getByRole('button', { name: 'First step', exact: true }).waitFor();
    expect((await ws.agent.tasks.list({})).tasks.map((t) => t.subject)).toEqual(['First step']);
  });
});

describe('keys for people', () => {
  it('an admin makes a member key in the dashboard; the member sees no Admin page', async () => {
    const ws = await workspace('steer-keys');
    const p = await page();
    await signIn(p, server.url, ws.adminKey, '/admin');
    await p.getByRole('heading', { name: 'API keys' }).waitFor();
    await p.getByLabel('Name', { exact: true }).first().fill('Grace Hopper');
    await p.getByLabel('Role').selectOption('member');
    await p.getByRole('button', { name: 'Create key' }).click();
    const token = (await p.getByTestId('new-token').textContent()) ?? '';
    expect(token).toMatch(/^atk_/);
    expect(await createClient({ url: server.url, token }).workspaces.whoami()).toMatchObject({ role: 'member' });

    const q = await page();
    await signIn(q, server.url, token);
    expect(await q.locator('.role').textContent()).toBe('steer-keys · member');
    expect(await q.getByRole('link', { name: 'Admin' }).count()).toBe(0);
  });
});

describe('run links that lead nowhere', () => {
  it('a missing run and a revoked link show the dashboard’s page with a way in; API clients keep the JSON', async () => {
    const ws = await workspace('steer-run-link');
    const p = await page();
    const missing = await p.goto(`${server.url}/runs/no-such-run`);
    expect(missing?.status()).toBe(404);
    await p.getByRole('heading', { name: 'This run link leads to no run', level: 1 }).waitFor();
    expect(await p.locator('header.top .brand').textContent()).toBe('agent-tasks');
    // Nothing to follow: the page does not keep trying to watch a run that is not there.
    await p.locator('.connection[data-state="idle"]').waitFor();
    await screenshot(p, 'run-link-missing');
    await p.getByRole('link', { name: 'Sign in to the dashboard' }).click();
    await p.getByLabel('API key').waitFor();

    const api = await fetch(`${server.url}/runs/no-such-run`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: 'Error: run not found.' });

    // A real run whose link an admin revoked: the same page; once restored, the run again.
    const { startAttemptId } = await ws.agent.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
    const run = await ws.agent.runs.execute({ startAttemptId });
    await nameAndIntake(ws.agent, {
      runId: run.id,
      name: 'Release 2.0',
      progress_checklist_outcome: 'One step',
      tasks: [{ action: 'Tag it', expected_result: 'Tagged' }],
    });
    await ws.admin.runs.revokeLink({ runId: run.id });
    const q = await page();
    const revoked = await q.goto(`${server.url}/runs/${run.id}`);
    expect(revoked?.status()).toBe(404);
    await q.getByRole('heading', { name: 'This run link leads to no run', level: 1 }).waitFor();
    expect(await q.getByText('an admin of its workspace revoked its link', { exact: false }).count()).toBe(1);
    const revokedApi = await fetch(`${server.url}/runs/${run.id}`, { headers: { accept: 'application/json' } });
    expect([revokedApi.status, await revokedApi.json()]).toEqual([404, { error: 'Error: run not found.' }]);

    // Signed in, the way in is the workspace's runs.
    await signIn(q, server.url, ws.viewerKey);
    await q.goto(`${server.url}/runs/${run.id}`);
    await q.getByRole('link', { name: "See your workspace's runs" }).waitFor();
    await ws.admin.runs.restoreLink({ runId: run.id });
    await q.goto(`${server.url}/runs/${run.id}`);
    await q.getByRole('heading', { name: 'Release 2.0', level: 1 }).waitFor();
  });
});
