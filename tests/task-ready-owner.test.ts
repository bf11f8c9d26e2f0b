// Black-box tests of TaskList's readyOnly with an owner: `{ readyOnly: true, owner: "alice" }` answers the tasks alice
// can start now among hers (pending, every blocker completed or deleted), whoever asks; without an owner, readyOnly
// keeps answering what the caller can start (unowned or its own). Over the API and through the TaskList tool.
import { taskTools } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe('TaskList({ readyOnly: true, owner })', () => {
  it("answers that owner's startable tasks, not the caller's; unowned and others' tasks are left out", async () => {
    const lead = await sessionClient(server, 'lead');
    const listName = 'team-plan';
    const create = (subject: string, extra: { owner?: string; blockedBy?: string[] } = {}) =>
      lead.client.tasks.create({ listName, subject, ...extra });
    const done = await create('Agree on the schema', { owner: 'alice' });
    const open = await create('Review the API draft');
    const ready = await create('Write the parser', { owner: 'alice' });
    const waiting = await create('Write the docs', { owner: 'alice', blockedBy: [open.id] });
    const started = await create('Fix the build', { owner: 'alice' });
    const afterDone = await create('Migrate the data', { owner: 'alice', blockedBy: [done.id] });
    const bobs = await create('Tune the cache', { owner: 'bob' });
    const unowned = await create('Triage the issues');
    await lead.client.tasks.update({ listName, id: done.id, status: 'completed' });
    await lead.client.tasks.update({ listName, id: started.id, status: 'in_progress' });

    const subjects = async (input: { readyOnly?: boolean; owner?: string }) =>
      (await lead.client.tasks.list({ listName, ...input })).tasks.map((t) => t.subject);
    expect(await subjects({ readyOnly: true, owner: 'alice' })).toEqual([ready.subject, afterDone.subject]);
    expect(await subjects({ readyOnly: true, owner: 'bob' })).toEqual([bobs.subject]);
    expect(await subjects({ readyOnly: true, owner: 'carol' })).toEqual([]);
    // Without readyOnly, the owner filter answers all of alice's active tasks, as before.
    expect(await subjects({ owner: 'alice' })).toEqual([ready.subject, waiting.subject, started.subject, afterDone.subject]);
    // Without an owner, readyOnly still means ready for the caller: unowned (the lead owns none).
    expect(await subjects({ readyOnly: true })).toEqual([open.subject, unowned.subject]);

    // Alice, asking for her own, gets the same answer.
    const alice = await sessionClient(server, 'alice');
    expect((await alice.client.tasks.list({ listName, readyOnly: true, owner: 'alice' })).tasks.map((t) => t.id)).toEqual([
      ready.id,
      afterDone.id,
    ]);

    // Through the tool a model calls.
    const list = taskTools(lead.client).find((t) => t.name === 'TaskList');
    const text = await list?.handler({ listName, readyOnly: true, owner: 'alice' });
    expect(text?.split('\n')).toEqual([
      expect.stringMatching(/^#3 \[pending\] Write the parser \(owner: alice\) +blockedBy: \[\]$/),
      expect.stringMatching(/^#6 \[pending\] Migrate the data \(owner: alice\) +blockedBy: \[\]$/),
    ]);
    expect(await list?.handler({ listName, readyOnly: true, owner: 'carol' })).toBe(`No tasks match in list "${listName}".`);
  });
});
