// Black-box tests of claim leases (expiry at the moment on a manual clock, renewal, heartbeat, 20 claimants) and of
// capability-aware claims.
import type { TaskEvent } from '@agent-tasks/schema';
import { openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, keyClient, refused } from './support/fixtures.ts';
import { rowCounts, testDatabase } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  // The app in this process on a manual clock, on the pass's database (SQLite, or PostgreSQL in its pass).
  server = await startServer({ manualTime: true, postgres: testDatabase() === 'postgres' });
});
afterAll(() => server.stop());

let lists = 0;
const freshList = () => `leases-${++lists}`;
const agentSession = async (agentName: string, capabilities?: string[]) =>
  openSessionClient(await keyClient(server, 'agent'), { agentName, ...(capabilities ? { capabilities } : {}) });
const clock = () => {
  if (!server.clock) throw new Error('the server runs on the wall clock');
  return server.clock;
};

/** Waits (a generous failure guard, never a target) until `check` holds. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('claim leases', () => {
  it('an expired lease returns the task to ready at its moment: owner cleared, "lease expired" in the history, a live event; the next claim-next takes it', async () => {
    const { client: crashed } = await agentSession('crashed');
    const { client: next } = await agentSession('next');
    const listName = freshList();
    const task = await crashed.tasks.create({ listName, subject: 'Long job' });
    const events: { id: string; data: TaskEvent }[] = [];
    let feed: { unsubscribe(): void } | undefined;
    await new Promise<void>((resolve) => {
      feed = next.tasks.watch({ listName }, { onData: (e) => void events.push(e), onStarted: resolve });
    });
    try {
      const claimed = await crashed.tasks.claim({ listName, leaseMs: 60_000 });
      expect(claimed.task).toMatchObject({
        id: task.id,
        status: 'in_progress',
        owner: 'crashed',
        lease: { owner: 'crashed', leaseMs: 60_000 },
      });
      expect(Date.parse(claimed.task?.lease?.expiresAt ?? '') - clock().now().getTime()).toBe(60_000);
      expect((await next.tasks.claim({ listName })).task).toBeNull();

      clock().advance(59_999);
      expect((await next.tasks.get({ listName, id: task.id })).owner).toBe('crashed');
      clock().advance(1);
      const returned = await eventually(
        () => next.tasks.get({ listName, id: task.id }),
        (t) => t.status === 'pending',
        'the lease to expire',
      );
      expect(returned).not.toHaveProperty('owner');
      expect(returned).not.toHaveProperty('lease');
      const history = (await next.tasks.history({ listName, id: task.id })).changes;
      expect(history.at(-1)).toMatchObject({
        kind: 'lease_expired',
        changes: { status: { from: 'in_progress', to: 'pending' }, owner: { from: 'crashed', to: null }, lease: { to: null } },
      });
      await eventually(
        async () => events,
        (e) => e.some((x) => x.data.kind === 'lease_expired' && x.data.taskId === task.id),
        'the live event',
      );
      expect((await next.tasks.claim({ listName })).task).toMatchObject({ id: task.id, owner: 'next' });
    } finally {
      feed?.unsubscribe();
    }
  });

  it("the owner's writes and heartbeats renew the lease; others cannot", async () => {
    const { client: owner } = await agentSession('owner');
    const { client: other } = await agentSession('other');
    const listName = freshList();
    const task = await owner.tasks.create({ listName, subject: 'Renewed' });
    await owner.tasks.claim({ listName, id: task.id, leaseMs: 10_000 });
    clock().advance(8_000);
    const updated = await owner.tasks.update({ listName, id: task.id, activeForm: 'Still working' });
    expect(Date.parse(updated.lease?.expiresAt ?? '')).toBe(clock().now().getTime() + 10_000);
    clock().advance(8_000);
    const beat = await owner.tasks.heartbeat({ listName, id: task.id });
    expect(Date.parse(beat.lease.expiresAt)).toBe(clock().now().getTime() + 10_000);
    const before = await rowCounts(server);
    expect((await refused(other.tasks.heartbeat({ listName, id: task.id }))).message).toBe(
      `Error: cannot renew the lease of ${task.id}: it is claimed by owner.`,
    );
    expect(await rowCounts(server)).toEqual(before);
    clock().advance(8_000);
    await server.expireLeases?.();
    expect((await owner.tasks.get({ listName, id: task.id })).owner).toBe('owner');
    // Completing the task ends its lease.
    const done = await owner.tasks.update({ listName, id: task.id, status: 'completed' });
    expect(done).not.toHaveProperty('lease');
    expect((await refused(owner.tasks.heartbeat({ listName, id: task.id }))).message).toBe(
      `Error: cannot renew the lease of ${task.id}: it has no lease (claim it with \`leaseMs\`, or set the list's \`leaseMs\`).`,
    );
  });

  it("a list's default lease applies to claims that name none", async () => {
    const { client } = await agentSession('dflt');
    const listName = freshList();
    await client.tasks.create({ listName, subject: 'Defaulted' });
    await adminClient(server).tasks.setSettings({ listName, leaseMs: 900_000 });
    const claimed = await client.tasks.claim({ listName });
    expect(claimed.task?.lease).toMatchObject({ owner: 'dflt', leaseMs: 900_000 });
  });

  it('20 claimants with leases: each ready task has one winner, each winner one task', async () => {
    const listName = freshList();
    const { client: lead } = await agentSession('lead');
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push((await lead.tasks.create({ listName, subject: `Task ${i}` })).id);
    const agents = await Promise.all(Array.from({ length: 20 }, (_, i) => agentSession(`claimant-${i}`)));
    const results = await Promise.all(agents.map(({ client }) => client.tasks.claim({ listName, leaseMs: 30_000 })));
    const won = results.flatMap((r) => (r.task ? [r.task] : []));
    expect(won).toHaveLength(10);
    expect(new Set(won.map((t) => t.id)).size).toBe(10);
    expect(new Set(won.map((t) => t.owner)).size).toBe(10);
    for (const t of won) expect(t.lease?.owner).toBe(t.owner);
    // All leases run out together: every task returns once, one "lease expired" each.
    clock().advance(30_000);
    await server.expireLeases?.();
    const listed = await eventually(
      () => lead.tasks.list({ listName }),
      (l) => l.tasks.every((t) => t.status === 'pending'),
      'every lease to expire',
    );
    expect(listed.tasks.every((t) => t.owner === undefined)).toBe(true);
    for (const id of ids) {
      const kinds = (await lead.tasks.history({ listName, id })).changes.map((c) => c.kind);
      expect(kinds.filter((k) => k === 'lease_expired')).toHaveLength(1);
    }
  });

  it('refuses a bad leaseMs with its text and records nothing', async () => {
    const { client } = await agentSession('bad');
    const listName = freshList();
    const task = await client.tasks.create({ listName, subject: 'x' });
    const before = await rowCounts(server);
    expect((await refused(client.tasks.claim({ listName, id: task.id, leaseMs: 0.5 }))).message).toBe(
      'Error: invalid input: `leaseMs` must be a whole number of milliseconds from 1000 to 86400000.',
    );
    expect(await rowCounts(server)).toEqual(before);
  });
});

describe('capability-aware claims', () => {
  it('claim-next hands a session only tasks whose requirements it meets; a named claim is refused naming what is missing', async () => {
    const listName = freshList();
    const { client: lead } = await agentSession('planner');
    const browser = await lead.tasks.create({ listName, subject: 'Check the page', requires: ['tool:browser'] });
    const review = await lead.tasks.create({ listName, subject: 'Review', requires: ['role:reviewer', 'tool:browser'] });
    const plain = await lead.tasks.create({ listName, subject: 'Anyone' });
    expect(browser.requires).toEqual(['tool:browser']);
    expect((await lead.tasks.get({ listName, id: review.id })).requires).toEqual(['role:reviewer', 'tool:browser']);

    const { client: coder } = await agentSession('coder', ['tool:shell']);
    const before = await rowCounts(server);
    const refusal = await refused(coder.tasks.claim({ listName, id: review.id }));
    expect(refusal.message).toBe(
      `Error: cannot claim ${review.id}: it requires role:reviewer, tool:browser, which this session did not declare (open the session with \`capabilities\` naming them).`,
    );
    expect(refusal.code).toBe('CLAIM_REFUSED');
    expect(await rowCounts(server)).toEqual(before);
    expect((await coder.tasks.claim({ listName })).task?.id).toBe(plain.id);
    expect((await coder.tasks.claim({ listName })).task).toBeNull();

    const { client: tester } = await agentSession('tester', ['tool:browser']);
    expect((await tester.tasks.claim({ listName })).task?.id).toBe(browser.id);
    expect((await refused(tester.tasks.claim({ listName, id: review.id }))).message).toBe(
      `Error: cannot claim ${review.id}: it requires role:reviewer, which this session did not declare (open the session with \`capabilities\` naming it).`,
    );
    const { client: reviewer } = await agentSession('reviewer', ['role:reviewer', 'tool:browser']);
    expect((await reviewer.tasks.claim({ listName })).task?.id).toBe(review.id);
  });

  it('refuses bad requirements and capabilities with their texts', async () => {
    const { client } = await agentSession('shape');
    expect((await refused(client.tasks.create({ listName: freshList(), subject: 'x', requires: [''] }))).message).toBe(
      'Error: invalid input: `requires[0]` must not be empty.',
    );
    expect((await refused(openSessionClient(await keyClient(server, 'agent'), { capabilities: 'tool:browser' as never }))).message).toBe(
      'Error: invalid input: `capabilities` must be an array of strings such as "tool:browser".',
    );
  });
});
