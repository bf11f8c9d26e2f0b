// Black-box tests of seed 001's task tools over HTTP: TaskUpdate setting whole edge lists (blockedBy, blocks) with the
// cycle and unknown-task checks, or adding to them as Claude Code's TaskUpdate does (addBlockedBy, addBlocks), and
// TaskList's text aligned in columns exactly as the seed shows it.
import { taskTools } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

let lists = 0;
const freshList = () => `seed-${++lists}`;

describe('8. TaskUpdate({ id, blockedBy: [...] }) and blocks: [...] set the whole edge list', () => {
  it('replaces the blockers and the blocked tasks, with the readiness they imply', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const [a, b, c, d] = await Promise.all(['A', 'B', 'C', 'D'].map((subject) => s.client.tasks.create({ listName, subject })));
    if (!a || !b || !c || !d) throw new Error('tasks not created');
    await s.client.tasks.update({ listName, id: d.id, addBlockedBy: [a.id] });
    const set = await s.client.tasks.update({ listName, id: d.id, blockedBy: [b.id, c.id] });
    expect([...set.blockedBy].sort()).toEqual([b.id, c.id].sort());
    expect((await s.client.tasks.get({ listName, id: a.id })).blocks).toEqual([]);
    const cleared = await s.client.tasks.update({ listName, id: d.id, blockedBy: [] });
    expect(cleared.blockedBy).toEqual([]);
    const blocks = await s.client.tasks.update({ listName, id: a.id, blocks: [c.id, d.id, d.id] });
    expect([...blocks.blocks].sort()).toEqual([c.id, d.id].sort());
    const fewer = await s.client.tasks.update({ listName, id: a.id, blocks: [d.id] });
    expect(fewer.blocks).toEqual([d.id]);
    expect((await s.client.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.subject).sort()).toEqual(['A', 'B', 'C']);
    // Through the tool a model calls, exactly as the seed writes it.
    const update = taskTools(s.client).find((t) => t.name === 'TaskUpdate');
    expect(await update?.handler({ listName, id: d.id, blockedBy: [b.id] })).toMatch(new RegExp(`blockedBy: \\[${b.id}\\]$`));
  });

  it('a cycle or an unknown task in a whole list is refused; nothing is recorded, not even the dropped edges', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const a = await s.client.tasks.create({ listName, subject: 'A' });
    const b = await s.client.tasks.create({ listName, subject: 'B', blockedBy: [a.id] });
    const c = await s.client.tasks.create({ listName, subject: 'C', blockedBy: [b.id] });
    const before = {
      edges: await countRows(server, 'TaskEdge'),
      changes: await countRows(server, 'TaskChange'),
      version: (await s.client.tasks.get({ listName, id: a.id })).version,
    };
    const cycle = await refused(s.client.tasks.update({ listName, id: a.id, blockedBy: [c.id] }));
    expect(cycle.message).toBe(`Error: invalid dependency: it would close a cycle ${a.id} → ${b.id} → ${c.id} → ${a.id}.`);
    const unknown = await refused(s.client.tasks.update({ listName, id: c.id, blockedBy: ['T-does-not-exist'] }));
    expect(unknown.message).toBe(`Error: invalid dependency: task T-does-not-exist not found in list "${listName}".`);
    const both = await refused(s.client.tasks.update({ listName, id: c.id, blockedBy: [a.id], addBlockedBy: [a.id] }));
    expect(both.message).toBe(
      'Error: invalid input: `blockedBy` sets the whole list; send it alone, or change it with `addBlockedBy`/`removeBlockedBy`, not both.',
    );
    expect(await countRows(server, 'TaskEdge')).toBe(before.edges);
    expect(await countRows(server, 'TaskChange')).toBe(before.changes);
    expect((await s.client.tasks.get({ listName, id: c.id })).blockedBy).toEqual([b.id]);
    expect((await s.client.tasks.get({ listName, id: a.id })).version).toBe(before.version);
  });
});

describe('TaskUpdate as agents trained on Claude Code or Oh My OpenCode call it', () => {
  it('takes addBlockedBy and addBlocks through the tool, though its definition shows only the whole lists', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const [a, b, c] = await Promise.all(['A', 'B', 'C'].map((subject) => s.client.tasks.create({ listName, subject })));
    if (!a || !b || !c) throw new Error('tasks not created');
    const update = taskTools(s.client).find((t) => t.name === 'TaskUpdate');
    expect(Object.keys(update?.inputSchema.properties ?? {})).not.toContain('addBlockedBy');
    expect(await update?.handler({ listName, id: c.id, addBlockedBy: [a.id] })).toMatch(new RegExp(`blockedBy: \\[${a.id}\\]$`));
    expect(await update?.handler({ listName, id: b.id, addBlocks: [c.id] })).toMatch(/^Updated /);
    expect([...(await s.client.tasks.get({ listName, id: c.id })).blockedBy].sort()).toEqual([a.id, b.id].sort());
    // Mixing a whole list with a change to it is still refused, recording nothing.
    const changes = await countRows(server, 'TaskChange');
    expect(await update?.handler({ listName, id: c.id, blockedBy: [a.id], addBlockedBy: [b.id] })).toBe(
      'Error: invalid input: `blockedBy` sets the whole list; send it alone, or change it with `addBlockedBy`/`removeBlockedBy`, not both.',
    );
    expect(await countRows(server, 'TaskChange')).toBe(changes);
  });
});

describe('9. TaskList text aligned in columns as the seed shows it', () => {
  it('the seed’s three tasks read back exactly as its TaskList() comment', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const file = (id: string, subject: string, blockedBy: string[]) => ({
      name: `${id}.json`,
      content: JSON.stringify({ id, subject, description: '', status: 'pending', blocks: [], blockedBy }),
    });
    await s.client.tasks.import({
      listName,
      format: 'sisyphus',
      files: [
        file('T-001', 'Build frontend', []),
        file('T-002', 'Build backend', []),
        file('T-003', 'Integration tests', ['T-001', 'T-002']),
      ],
    });
    const list = taskTools(s.client).find((t) => t.name === 'TaskList');
    expect(await list?.handler({ listName })).toBe(
      [
        'T-001 [pending] Build frontend        blockedBy: []',
        'T-002 [pending] Build backend         blockedBy: []',
        'T-003 [pending] Integration tests     blockedBy: [T-001, T-002]',
      ].join('\n'),
    );
  });

  it('every column lines up whatever the widths: statuses, owners and long subjects', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const a = await s.client.tasks.create({ listName, subject: 'Build the frontend bundle for production' });
    const b = await s.client.tasks.create({ listName, subject: 'Test', blockedBy: [a.id] });
    await s.client.tasks.claim({ listName, id: a.id });
    const text =
      (await taskTools(s.client)
        .find((t) => t.name === 'TaskList')
        ?.handler({ listName })) ?? '';
    const lines = text.split('\n');
    expect(lines).toHaveLength(2);
    const column = (line: string, what: string) => line.indexOf(what);
    expect(column(lines[0] ?? '', 'blockedBy:')).toBe(column(lines[1] ?? '', 'blockedBy:'));
    expect(column(lines[0] ?? '', ' Build')).toBe(column(lines[1] ?? '', ' Test'));
    // Long ids read as their #n references.
    expect(b.ref).toBe('#2');
    expect(lines[1]).toMatch(/^#2 \[pending\] {5}Test {2,}blockedBy: \[#1\]$/);
  });
});
