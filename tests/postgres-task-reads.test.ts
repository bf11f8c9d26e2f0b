// Black-box tests of a task write's reads on PostgreSQL, counted on the wire: the task is read with its edges,
// evidence, lease and requirements in one statement, and what the write changes of them is read again (or known), so
// its answer is what a read after it shows.
import { openSessionClient } from '@agent-tasks/sdk';
import { describe, expect, it } from 'vitest';
import { keyClient } from './support/fixtures.ts';
import { serverBehindWireCounter } from './support/wired-server.ts';

const wired = serverBehindWireCounter();

let lists = 0;
/** TaskGet's answer without its comments: what tasks.update answers. */
const read = async (client: Awaited<ReturnType<typeof agent>>, listName: string, id: string) => {
  const { comments: _comments, ...task } = await client.tasks.get({ listName, id });
  return task;
};
const agent = async (agentName: string, capabilities: string[] = []) =>
  (await openSessionClient(await keyClient(wired.server, 'agent'), { agentName, capabilities })).client;

/** A claimed task (leased) that blocks another, has a requirement and evidence: each part a read could bring along. */
async function busyTask() {
  const worker = await agent('worker', ['tool:browser']);
  const listName = `reads-${++lists}`;
  const task = await worker.tasks.create({ listName, subject: 'Check the page', requires: ['tool:browser'] });
  const next = await worker.tasks.create({ listName, subject: 'Ship it', blockedBy: [task.id] });
  await worker.tasks.claim({ listName, id: task.id, leaseMs: 60_000 });
  await worker.tasks.update({ listName, id: task.id, evidence: { kind: 'note', text: 'Looked at it once' } });
  return { worker, listName, task, next };
}

/** The round trips of the one transaction since the last reset that wrote a task, without its BEGIN and COMMIT. */
function taskWriteTrips() {
  const writes = wired.wire.transactions().filter((trips) => trips.some((t) => t.statements.some((s) => s.includes('UPDATE "Task" SET'))));
  expect(writes).toHaveLength(1);
  return (writes[0] ?? []).filter((t) => !['BEGIN', 'COMMIT'].includes(t.statements.join()));
}

describe('a task write on PostgreSQL', () => {
  it('reads the task with its edges, evidence, lease and requirements in one round trip, and nothing after', async () => {
    const { worker, listName, task } = await busyTask();
    await worker.tasks.update({ listName, id: task.id, metadata: { warm: true } }); // statements prepared
    wired.wire.reset();
    const updated = await worker.tasks.update({ listName, id: task.id, metadata: { step: 2 } });
    const trips = taskWriteTrips().map((t) => t.statements.join(' ; ').trim());
    // The list's row lock, the task with what surrounds it, the owner's lease renewed, the write (with its change
    // record). Before: the edges, the lease and the answer's evidence, lease and requirements read a round trip each.
    expect(trips).toHaveLength(4);
    expect(trips[0]).toMatch(/^SELECT "id" FROM "TaskList" WHERE "id" = \$1 FOR UPDATE$/);
    expect(trips[1]).toMatch(/^SELECT .*"aroundEdges".*"aroundEvidence".*"aroundLeases".*"aroundRequirements"/s);
    expect(trips[2]).toMatch(/^INSERT INTO "public"."TaskLease"/);
    expect(trips[3]).toMatch(/^WITH "written" AS/);
    // The answer shows all of it, as a read after the write does.
    expect(updated).toEqual(await read(worker, listName, task.id));
    expect(updated).toMatchObject({
      metadata: { warm: true, step: 2 },
      requires: ['tool:browser'],
      evidence: [{ kind: 'note', text: 'Looked at it once' }],
      lease: { owner: 'worker', leaseMs: 60_000 },
    });
  });

  it('answers with what the write itself changed: new evidence, edges, a lease given up, a lease renewed', async () => {
    const { worker, listName, task, next } = await busyTask();
    const other = await worker.tasks.create({ listName, subject: 'Write the notes' });
    // Evidence added, the edge to `next` dropped and one to `other` made, and the task handed to someone else: its
    // lease goes with it. Each is read again after the write, or known from what it wrote.
    const updated = await worker.tasks.update({
      listName,
      id: task.id,
      evidence: { kind: 'command', command: 'pnpm test', exitCode: 0 },
      blocks: [other.id],
      owner: 'someone-else',
    });
    expect(updated).toEqual(await read(worker, listName, task.id));
    expect(updated.evidence?.map((e) => e.kind)).toEqual(['note', 'command']);
    expect(updated.blocks).toEqual([other.id]);
    expect(updated.lease).toBeUndefined();
    expect((await worker.tasks.get({ listName, id: next.id })).blockedBy).toEqual([]);
    expect((await worker.tasks.get({ listName, id: other.id })).blockedBy).toEqual([task.id]);
    // An edge removed alone.
    const unblocked = await worker.tasks.update({ listName, id: task.id, removeBlocks: [other.id] });
    expect(unblocked.blocks).toEqual([]);
    expect(unblocked).toEqual(await read(worker, listName, task.id));
    // The lease renewed by its owner's write shows its new end.
    const free = await worker.tasks.create({ listName, subject: 'Tidy up' });
    const claimed = await worker.tasks.claim({ listName, id: free.id, leaseMs: 30_000 });
    const before = Date.parse(claimed.task?.lease?.expiresAt ?? '');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const renewed = await worker.tasks.update({ listName, id: free.id, activeForm: 'Tidying up' });
    expect(Date.parse(renewed.lease?.expiresAt ?? '')).toBeGreaterThan(before);
    expect(renewed).toEqual(await read(worker, listName, free.id));
  });
});
