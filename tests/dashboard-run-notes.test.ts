// End-to-end test of a person's note on a checklist run from the dashboard (real chromium against the real server): a
// member leaves a note on the run page and the agent's next directive over HTTP carries it; a refusal is shown in the
// server's words and records nothing; a viewer gets no form and is told why.
import { agentTools, createClient, openSessionClient } from '@agent-tasks/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, nameAndIntake, stepTask } from './support/fixtures.ts';
import { launchBrowser, newContext, signIn } from './support/browser.ts';
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

async function page(): Promise<Page> {
  const p = await (await newContext(browser, { width: 1400 })).newPage();
  p.setDefaultTimeout(10_000);
  return p;
}

/** A workspace with a member and a viewer key, and an agent session walking a two-task run. */
async function runningRun(name: string) {
  const created = await adminClient(server).workspaces.create({ name });
  const admin = createClient({ url: server.url, token: created.adminKey });
  const memberKey = (await admin.keys.create({ name: 'Ada Lovelace', role: 'member' })).token;
  const viewerKey = (await admin.keys.create({ name: `${name} viewer`, role: 'viewer' })).token;
  const agentKey = (await admin.keys.create({ name: `${name} agent`, role: 'agent' })).token;
  const { client: agent } = await openSessionClient(createClient({ url: server.url, token: agentKey }), { agentName: 'releaser' });
  const { startAttemptId } = await agent.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
  const run = await agent.runs.execute({ startAttemptId });
  await nameAndIntake(agent, {
    runId: run.id,
    name: 'Release 1.2',
    tasks: [stepTask(1), stepTask(2)],
    progress_checklist_outcome: 'Two steps',
  });
  return { runId: run.id, agent, memberKey, viewerKey };
}

/** The rows that record something (a stream ticket is a browser's passing single-use pass, not a record). */
async function recorded() {
  const { StreamTicket: _ticket, ...rest } = await rowCounts(server);
  return rest;
}

describe('a note on a run from the dashboard', () => {
  it("a member leaves a note on the current task; the agent's next directive carries it; a refusal records nothing", async () => {
    const { runId, agent, memberKey } = await runningRun('run-note-member');
    const p = await page();
    await signIn(p, server.url, memberKey);
    await p.goto(`${server.url}/runs/${runId}`);
    await p.getByRole('heading', { name: 'Release 1.2', level: 1 }).waitFor();
    const form = p.getByRole('form', { name: 'Leave a note for the agent' });
    const box = form.getByRole('textbox', { name: 'Note on task 1: Do step 1' });
    await box.waitFor();

    // A refusal: a blank note. The server's own text, inline; nothing recorded.
    const before = await recorded();
    const version = (await agent.runs.get({ runId })).version;
    await box.fill('   ');
    await form.getByRole('button', { name: 'Leave note' }).click();
    await form.getByRole('alert').getByText('Error: invalid input: `text` must be a non-empty string.').waitFor();
    expect(await recorded()).toEqual(before);
    expect((await agent.runs.get({ runId })).version).toBe(version);

    await box.fill('Use the blue cluster, green is being drained.');
    await form.getByRole('button', { name: 'Leave note' }).click();
    await form.getByText('Note left on task 1.').waitFor();
    await p
      .getByRole('list', { name: 'Notes on Do step 1' })
      .getByText('Note from Ada Lovelace: Use the blue cluster, green is being drained.')
      .waitFor();
    expect(await box.inputValue()).toBe('');
    // The run's history on the page records it too.
    await p.locator('.history li', { hasText: 'Note from Ada Lovelace' }).waitFor();

    // The agent's next directive, over HTTP, carries the person's note.
    const tools = Object.fromEntries(agentTools(agent).map((t) => [t.name, t]));
    const directive = (await tools.checklist_get?.handler({ runId })) ?? '';
    expect(directive.split('\n').slice(0, 3)).toEqual([
      'Task 1/2: Do step 1',
      'Expected result: Step 1 is done',
      'Note from Ada Lovelace: Use the blue cluster, green is being drained.',
    ]);
  });

  it('a viewer sees the run but no note form, and is told why', async () => {
    const { runId, viewerKey } = await runningRun('run-note-viewer');
    const p = await page();
    await signIn(p, server.url, viewerKey);
    await p.goto(`${server.url}/runs/${runId}`);
    await p.getByRole('heading', { name: 'Release 1.2', level: 1 }).waitFor();
    await p.getByTestId('run-note-read-only').waitFor();
    expect(await p.getByTestId('run-note-read-only').textContent()).toContain('sign in with a member key');
    expect(await p.getByRole('form', { name: 'Leave a note for the agent' }).count()).toBe(0);
    expect(await p.getByRole('button', { name: 'Leave note' }).count()).toBe(0);
  });
});
