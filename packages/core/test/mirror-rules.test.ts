// Unit tests of what a mirror keeps of another runtime's state: texts cut with a visible "…" at the storage bounds,
// lists and metadata kept as the runtime had them, and the use cases that record them (todos.mirror,
// taskMirror.mirrorTask) next to our own tools, whose seed rules stay.
import { beforeEach, describe, expect, it } from 'vitest';
import { MIRROR_DESCRIPTION_MAX, MIRROR_METADATA_MAX, MIRROR_TEXT_MAX, MIRROR_TODO_ITEMS_MAX } from '@agent-tasks/schema';
import { type Actor, cutText, mirroredMetadata, mirroredTodos, resolveActor, sessions, taskMirror, tasks, todos } from '../src/index.ts';
import { type World, agentSession, expectRefused, makeWorld } from './fixtures.ts';

describe('cutText', () => {
  it('keeps text up to the bound; past it the first bound-1 characters and "…", counted in code points', () => {
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('abcd', 3)).toBe('ab…');
    expect(cutText('😀😀😀', 3)).toBe('😀😀😀');
    expect(cutText('😀😀😀😀', 3)).toBe('😀😀…');
  });
});

describe('mirroredTodos', () => {
  it('keeps two items in progress, repeated texts and long texts; trims; cuts past the bound with "…"', () => {
    const items = mirroredTodos([
      { content: ' Write the fix ', status: 'in_progress', activeForm: 'Writing the fix' },
      { content: 'Run the tests', status: 'in_progress', activeForm: ' ' },
      { content: 'Run the tests', status: 'pending' },
      { content: 'x'.repeat(1200), status: 'pending' },
      { content: 'y'.repeat(MIRROR_TEXT_MAX + 5), status: 'pending', activeForm: 'z'.repeat(MIRROR_TEXT_MAX + 1) },
    ]);
    expect(items.slice(0, 4)).toEqual([
      { content: 'Write the fix', status: 'in_progress', activeForm: 'Writing the fix' },
      { content: 'Run the tests', status: 'in_progress' },
      { content: 'Run the tests', status: 'pending' },
      { content: 'x'.repeat(1200), status: 'pending' },
    ]);
    expect(items[4]).toEqual({
      content: `${'y'.repeat(MIRROR_TEXT_MAX - 1)}…`,
      status: 'pending',
      activeForm: `${'z'.repeat(MIRROR_TEXT_MAX - 1)}…`,
    });
  });

  it('keeps 110 items; past the item bound the last kept item says how many more were not kept', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ content: `Step ${i + 1}`, status: 'pending' as const }));
    expect(mirroredTodos(many(110))).toHaveLength(110);
    const cut = mirroredTodos(many(MIRROR_TODO_ITEMS_MAX + 10));
    expect(cut).toHaveLength(MIRROR_TODO_ITEMS_MAX);
    expect(cut.at(-1)).toEqual({ content: '… and 11 more items, not kept', status: 'pending' });
  });
});

describe('mirroredMetadata', () => {
  it('keeps 11,000 characters of metadata as it is; past the bound keeps the keys that fit and says how many were not', () => {
    const eleven = { notes: 'n'.repeat(11_000) };
    expect(mirroredMetadata(eleven)).toBe(eleven);
    const big = { a: 'a'.repeat(60_000), b: 'b'.repeat(60_000), c: 1 };
    const kept = mirroredMetadata(big);
    expect(kept).toEqual({ a: big.a, '…': `2 more keys not kept (the metadata was ${JSON.stringify(big).length} characters of JSON)` });
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(MIRROR_METADATA_MAX);
  });
});

describe('the mirror use cases', () => {
  let w: World;
  let agent: Actor;
  beforeEach(async () => {
    w = await makeWorld();
    agent = await agentSession(w, 'claude');
  });

  it('todos.mirror records two in progress and repeats under the one-active rule; todo_write still refuses them', async () => {
    const list = [
      { content: 'Write the fix', status: 'in_progress' as const },
      { content: 'Write the fix', status: 'in_progress' as const },
    ];
    expect(await todos.mirror(w.deps, agent, { todos: list })).toMatchObject({ revision: 1, counts: { inProgress: 2 } });
    await expectRefused(
      todos.write(w.deps, agent, { todos: list }),
      'INVALID_TODOS',
      'Error: invalid todos: duplicate content "Write the fix"',
    );
    await expectRefused(
      todos.write(w.deps, agent, { todos: [list[0]!, { content: 'Other', status: 'in_progress' }] }),
      'INVALID_TODOS',
      'Error: invalid todos: at most one task may be in_progress (got 2)',
    );
  });

  it('todos.mirror with forkOf copies the parent list once, only into a session without a list', async () => {
    const open = async (externalId: string) => resolveActor(w.deps, (await sessions.open(w.deps, w.agent, { externalId })).token);
    const parent = await open('claude-parent');
    const fork = await open('claude-fork');
    const items = [{ content: 'Write the fix', status: 'in_progress' as const, activeForm: 'Writing the fix' }];
    const none = { pending: 0, inProgress: 0, completed: 0 };
    expect(await todos.mirror(w.deps, fork, { forkOf: 'claude-parent' })).toEqual({
      message: 'Nothing copied: the session it was forked from has no list.',
      revision: 0,
      counts: none,
    });
    await todos.mirror(w.deps, parent, { todos: items });
    expect(await todos.mirror(w.deps, fork, { forkOf: 'unknown' })).toEqual({
      message: 'Nothing copied: no session with external id "unknown".',
      revision: 0,
      counts: none,
    });
    expect(await todos.mirror(w.deps, fork, { forkOf: 'claude-parent' })).toMatchObject({ revision: 1, counts: { inProgress: 1 } });
    expect((await todos.get(w.deps, fork, {})).items).toEqual(items);
    // Once the fork has a list of its own, it keeps it.
    expect(await todos.mirror(w.deps, fork, { forkOf: 'claude-parent' })).toMatchObject({
      message: 'Nothing copied: this session has a list already.',
      revision: 1,
    });
  });

  it('taskMirror.mirrorTask starts and completes a blocked task and keeps long texts; TaskUpdate still refuses', async () => {
    const listName = 'cc';
    const make = (id: string, subject: string) =>
      taskMirror.mirrorTask(w.deps, agent, { listName, id, create: { subject, description: '' } });
    await make('T-cc-1', 'Build');
    const long = { subject: 's'.repeat(250), description: 'd'.repeat(MIRROR_DESCRIPTION_MAX + 1) };
    await taskMirror.mirrorTask(w.deps, agent, { listName, id: 'T-cc-3', create: long, addBlockedBy: ['T-cc-1', 'T-cc-9'] });
    const blocked = await tasks.get(w.deps, agent, { listName, id: 'T-cc-3' });
    expect(blocked).toMatchObject({
      subject: long.subject,
      description: `${'d'.repeat(MIRROR_DESCRIPTION_MAX - 1)}…`,
      blockedBy: ['T-cc-1'],
    });

    await expectRefused(
      tasks.update(w.deps, agent, { listName, id: 'T-cc-3', status: 'in_progress' }),
      'TASK_BLOCKED',
      'Error: task T-cc-3 is blocked by T-cc-1; it cannot be started until it is completed.',
    );
    const started = await taskMirror.mirrorTask(w.deps, agent, { listName, id: 'T-cc-3', status: 'in_progress' });
    expect(started).toMatchObject({ task: { status: 'in_progress', blockedBy: ['T-cc-1'] }, notRecorded: [] });
    const done = await taskMirror.mirrorTask(w.deps, agent, { listName, id: 'T-cc-3', status: 'completed' });
    expect(done.task.status).toBe('completed');
  });

  it('taskMirror.mirrorTask records what a graph can hold of a cycle and names the edge it cannot', async () => {
    const listName = 'cc';
    for (const id of ['T-cc-1', 'T-cc-2'])
      await taskMirror.mirrorTask(w.deps, agent, { listName, id, create: { subject: id, description: '' } });
    await taskMirror.mirrorTask(w.deps, agent, { listName, id: 'T-cc-2', addBlockedBy: ['T-cc-1'] });
    const answer = await taskMirror.mirrorTask(w.deps, agent, { listName, id: 'T-cc-1', owner: 'main', addBlockedBy: ['T-cc-2'] });
    expect(answer.task).toMatchObject({ owner: 'main', blockedBy: [] });
    expect(answer.notRecorded).toEqual([
      { blockerId: 'T-cc-2', blockedId: 'T-cc-1', reason: 'it would close a cycle T-cc-1 → T-cc-2 → T-cc-1.' },
    ]);
  });
});
