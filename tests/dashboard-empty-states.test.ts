// End-to-end test of the dashboard's empty states by role (real chromium against the real server): with nothing yet,
// the sessions and runs pages tell a member what a member may do, and a viewer why the controls are missing and how a
// person gets a member key; an empty comments section tells a viewer who adds comments.
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './support/fixtures.ts';
import { launchBrowser, newContext, signIn } from './support/browser.ts';
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
  const p = await (await newContext(browser)).newPage();
  p.setDefaultTimeout(10_000);
  return p;
}

async function workspace(name: string) {
  const created = await adminClient(server).workspaces.create({ name });
  const admin = createClient({ url: server.url, token: created.adminKey });
  const memberKey = (await admin.keys.create({ name: 'Ada Lovelace', role: 'member' })).token;
  const viewerKey = (await admin.keys.create({ name: `${name} viewer`, role: 'viewer' })).token;
  return { admin, memberKey, viewerKey };
}

const hint = (p: Page) => p.getByTestId('role-hint');

describe('empty states explain the role', () => {
  it('sessions and runs: a member is told what it may do, a viewer why the controls are missing', async () => {
    const ws = await workspace('empty-roles');
    const member = await page();
    await signIn(member, server.url, ws.memberKey);
    await member.getByRole('heading', { name: 'No sessions yet — connect an agent:' }).waitFor();
    expect(await hint(member).getAttribute('data-role')).toBe('member');
    expect(await hint(member).textContent()).toContain('Signed in with a member key. Sessions are opened by agents, not from here.');
    expect(await hint(member).textContent()).toContain('create tasks, change their status, owner, priority, labels and blockers, comment');
    await member.getByRole('link', { name: 'Runs' }).click();
    await member.getByRole('heading', { name: 'No runs yet' }).waitFor();
    expect(await hint(member).textContent()).toContain('leave a note on its current task — the agent reads it with its next directive');

    const viewer = await page();
    await signIn(viewer, server.url, ws.viewerKey);
    await viewer.getByRole('heading', { name: 'No sessions yet — connect an agent:' }).waitFor();
    expect(await hint(viewer).textContent()).toContain(
      'Signed in with a viewer key: you see every session and its todo list live, and no control here changes anything.',
    );
    expect(await hint(viewer).textContent()).toContain('sign in with a member key');
    await viewer.getByRole('link', { name: 'Runs' }).click();
    await viewer.getByRole('heading', { name: 'No runs yet' }).waitFor();
    expect(await hint(viewer).textContent()).toContain('Signed in with a viewer key: you follow runs as agents walk them');
    expect(await hint(viewer).textContent()).toContain('agent-tasks keys create --role member');
  });

  it("a task's empty comments tell a viewer that a member key adds them; a member gets the form", async () => {
    const ws = await workspace('empty-comments');
    const agentKey = (await ws.admin.keys.create({ name: 'agent', role: 'agent' })).token;
    const { client: agent } = await openSessionClient(createClient({ url: server.url, token: agentKey }), { agentName: 'planner' });
    await agent.tasks.create({ subject: 'Quiet task' });
    for (const [key, note, forms] of [
      [ws.viewerKey, 'No comments yet. A viewer key reads comments; a member key adds them.', 0],
      [ws.memberKey, 'No comments yet.', 1],
    ] as const) {
      const p = await page();
      await signIn(p, server.url, key, '/tasks/default');
      await p.getByRole('button', { name: 'Quiet task', exact: true }).click();
      const section = p.locator('.task-comments');
      await section.locator('p.none').waitFor();
      expect(await section.locator('p.none').textContent()).toBe(note);
      expect(await section.locator('form').count()).toBe(forms);
    }
  });
});
