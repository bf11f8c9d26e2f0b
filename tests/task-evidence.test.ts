// Black-box tests of evidence on tasks: every kind and provenance, the verdict, and lists that require evidence.
import { openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, keyClient, refused } from './support/fixtures.ts';
import { rowCounts } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

let lists = 0;
const freshList = () => `evidence-${++lists}`;
const agentSession = async (agentName: string) => openSessionClient(await keyClient(server, 'agent'), { agentName });

describe('evidence on TaskUpdate', () => {
  it('records every kind with provenance agent, in TaskGet and in the history; the agent alone never verifies', async () => {
    const { client } = await agentSession('ana');
    const listName = freshList();
    const task = await client.tasks.create({ listName, subject: 'Fix the login form' });
    expect(task).not.toHaveProperty('evidence');
    expect(task).not.toHaveProperty('verdict');
    const done = await client.tasks.update({
      listName,
      id: task.id,
      status: 'completed',
      evidence: [
        { kind: 'note', text: 'Checked it by hand' },
        { kind: 'command', command: 'pnpm test', exitCode: 0, outputTail: '42 passed' },
        { kind: 'check', name: 'ci / test', conclusion: 'success', url: 'https://github.com/acme/shop/runs/1', commit: 'abc1234' },
      ],
    });
    expect(done.status).toBe('completed');
    expect(done.evidence).toEqual([
      { kind: 'note', text: 'Checked it by hand', provenance: 'agent', success: true, at: expect.any(String) },
      {
        kind: 'command',
        command: 'pnpm test',
        exitCode: 0,
        outputTail: '42 passed',
        provenance: 'agent',
        success: true,
        at: expect.any(String),
      },
      {
        kind: 'check',
        name: 'ci / test',
        conclusion: 'success',
        url: 'https://github.com/acme/shop/runs/1',
        commit: 'abc1234',
        provenance: 'agent',
        success: true,
        at: expect.any(String),
      },
    ]);
    // Only a hook or CI makes a task verified.
    expect(done.verdict).toBe('unverified');
    // TaskGet is the update's answer plus the task's comments.
    expect(await client.tasks.get({ listName, id: task.id })).toEqual({ ...done, comments: { count: 0, newest: [] } });
    const history = (await client.tasks.history({ listName, id: task.id })).changes;
    expect(history.at(-1)?.changes.evidence?.to).toEqual(done.evidence);
    expect(history.at(-1)?.changes.status).toEqual({ from: 'pending', to: 'completed' });
    // One evidence object alone is taken too.
    const other = await client.tasks.create({ listName, subject: 'Other' });
    const failed = await client.tasks.update({ listName, id: other.id, evidence: { kind: 'command', command: 'pnpm lint', exitCode: 1 } });
    expect(failed.evidence).toMatchObject([{ kind: 'command', exitCode: 1, success: false, provenance: 'agent' }]);
  });

  it("a hook records what it saw (provenance hook) on the caller's in-progress tasks: success verifies them", async () => {
    const { client } = await agentSession('bo');
    const { client: rival } = await agentSession('cy');
    const listName = freshList();
    const mine = await client.tasks.create({ listName, subject: 'Mine' });
    const theirs = await client.tasks.create({ listName, subject: 'Theirs' });
    const idle = await client.tasks.create({ listName, subject: 'Not started' });
    await client.tasks.claim({ listName, id: mine.id });
    await rival.tasks.claim({ listName, id: theirs.id });

    const seen = await client.tasks.hookEvidence({ listName, evidence: { kind: 'command', command: 'pnpm test', exitCode: 0 } });
    expect(seen.taskIds).toEqual([mine.id]);
    const got = await client.tasks.get({ listName, id: mine.id });
    expect(got.evidence).toMatchObject([{ kind: 'command', command: 'pnpm test', exitCode: 0, provenance: 'hook', success: true }]);
    expect(got.verdict).toBe('verified');
    expect(await client.tasks.get({ listName, id: theirs.id })).not.toHaveProperty('evidence');
    expect(await client.tasks.get({ listName, id: idle.id })).not.toHaveProperty('evidence');
    const listed = await client.tasks.list({ listName });
    expect(listed.tasks.find((t) => t.id === mine.id)?.verdict).toBe('verified');
    expect(listed.tasks.find((t) => t.id === idle.id)).not.toHaveProperty('verdict');
    // A later failing command the hook saw: the latest command decides.
    await client.tasks.hookEvidence({ listName, evidence: { kind: 'command', command: 'pnpm test', exitCode: 1, outputTail: '1 failed' } });
    expect((await client.tasks.get({ listName, id: mine.id })).verdict).toBe('unverified');
  });

  it('refuses bad evidence with a clear text and records nothing', async () => {
    const { client } = await agentSession('di');
    const listName = freshList();
    const task = await client.tasks.create({ listName, subject: 'Anything' });
    const before = await rowCounts(server);
    const cases: [unknown, string][] = [
      [{ kind: 'video', url: 'x' }, 'Error: invalid evidence: `kind` must be "note", "command" or "check" (got "video").'],
      [{ kind: 'command', command: 'pnpm test' }, 'Error: invalid evidence: `exitCode` must be a whole number.'],
      [{ kind: 'note', text: '  ' }, 'Error: invalid evidence: `evidence.text` must be a non-empty string.'],
      [{ kind: 'check', name: 'ci', conclusion: 'success' }, 'Error: invalid evidence: `url` must be a string.'],
      [{ kind: 'note', text: 'ok', by: 'me' }, 'Error: invalid input: unknown field `evidence.by`.'],
      [[], 'Error: invalid evidence: send 1 to 10 pieces of evidence.'],
    ];
    for (const [evidence, text] of cases) {
      const refusal = await refused(client.tasks.update({ listName, id: task.id, status: 'completed', evidence: evidence as never }));
      expect(refusal.message).toBe(text);
    }
    expect(await rowCounts(server)).toEqual(before);
    expect((await client.tasks.get({ listName, id: task.id })).status).toBe('pending');
  });
});

describe('lists that require evidence', () => {
  it("off by default: completed on the agent's word, as seed 001 has it", async () => {
    const { client } = await agentSession('ed');
    const listName = freshList();
    const task = await client.tasks.create({ listName, subject: 'Plain' });
    expect((await client.tasks.update({ listName, id: task.id, status: 'completed' })).status).toBe('completed');
    expect(await client.tasks.settings({ listName })).toEqual({ listName, requireEvidence: false, requireVerified: false, leaseMs: null });
  });

  it('requireEvidence: completed without evidence is refused naming the fix, nothing recorded; with any evidence it passes', async () => {
    const { client } = await agentSession('fa');
    const admin = adminClient(server);
    const listName = freshList();
    const task = await client.tasks.create({ listName, subject: 'Ship it' });
    expect(await admin.tasks.setSettings({ listName, requireEvidence: true })).toEqual({
      listName,
      requireEvidence: true,
      requireVerified: false,
      leaseMs: null,
    });
    const before = await rowCounts(server);
    const refusal = await refused(client.tasks.update({ listName, id: task.ref ?? '', status: 'completed' }));
    expect(refusal.message).toBe(
      `Error: cannot complete ${task.ref}: task list "${listName}" requires evidence; send \`evidence\` with the update, e.g. { kind: "command", command: "pnpm test", exitCode: 0 }.`,
    );
    expect(refusal.code).toBe('EVIDENCE_REQUIRED');
    expect(await rowCounts(server)).toEqual(before);
    expect((await client.tasks.get({ listName, id: task.id })).status).toBe('pending');
    const done = await client.tasks.update({ listName, id: task.id, status: 'completed', evidence: { kind: 'note', text: 'Deployed' } });
    expect(done).toMatchObject({ status: 'completed', verdict: 'unverified' });
  });

  it('requireVerified: only hook or CI evidence reporting success counts', async () => {
    const { client } = await agentSession('gu');
    const admin = adminClient(server);
    const listName = freshList();
    const task = await client.tasks.create({ listName, subject: 'Verified work' });
    await admin.tasks.setSettings({ listName, requireEvidence: true, requireVerified: true });
    await client.tasks.claim({ listName, id: task.id });
    const before = await rowCounts(server);
    const text = `Error: cannot complete ${task.id}: task list "${listName}" requires verified evidence (a hook or CI reporting success), and it has none; run the tests where a hook or CI records them, then complete the task.`;
    const agentWord = await refused(
      client.tasks.update({ listName, id: task.id, status: 'completed', evidence: { kind: 'command', command: 'pnpm test', exitCode: 0 } }),
    );
    expect(agentWord.message).toBe(text);
    expect(await rowCounts(server)).toEqual(before);
    // A failing command the hook saw is evidence, but not of success.
    await client.tasks.hookEvidence({ listName, evidence: { kind: 'command', command: 'pnpm test', exitCode: 2 } });
    expect((await refused(client.tasks.update({ listName, id: task.id, status: 'completed' }))).message).toBe(text);
    await client.tasks.hookEvidence({ listName, evidence: { kind: 'command', command: 'pnpm test', exitCode: 0 } });
    expect(await client.tasks.completionCheck({ listName, id: task.id })).toEqual({ allowed: true, reason: null });
    expect(await client.tasks.update({ listName, id: task.id, status: 'completed' })).toMatchObject({
      status: 'completed',
      verdict: 'verified',
    });
  });

  it("settings are an admin's: an agent is refused and nothing is recorded; bad values are refused", async () => {
    const { client } = await agentSession('ha');
    const listName = freshList();
    await client.tasks.create({ listName, subject: 'x' });
    const before = await rowCounts(server);
    expect((await refused(client.tasks.setSettings({ listName, requireEvidence: true }))).message).toBe(
      'Error: forbidden: this call needs an admin key (this key is agent).',
    );
    expect((await refused(adminClient(server).tasks.setSettings({ listName, leaseMs: 10 }))).message).toBe(
      'Error: invalid input: `leaseMs` must be a whole number of milliseconds from 1000 to 86400000.',
    );
    expect(await rowCounts(server)).toEqual(before);
  });
});
