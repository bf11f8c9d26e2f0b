// Unit tests of the todo_write use case and the list reads (seed 000): recording, refusals that record nothing, cards, paging, revisions.
import { beforeEach, describe, expect, it } from 'vitest';
import { todoWriteInput } from '@agent-tasks/schema';
import { resolveActor, sessions, todoTopic, todos, workspaces } from '../src/index.ts';
import { type World, expectNothingRecorded, expectRefused, item, makeWorld, recordedState } from './fixtures.ts';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});

/** The todo topics' events (the workspace's session signals are tested with the dashboard reads). */
const todoEvents = () => w.events.published.filter((e) => e.topic.startsWith('todo:'));

const write = (input: Parameters<typeof todos.write>[2], actor = w.session) => todos.write(w.deps, actor, input);
const list = (sessionId = w.sessionId) => todos.get(w.deps, w.admin, { sessionId });
/** A rival writer's list, drafted for `revision`. */
const rivalDraft = (revision: number) => ({
  id: `tdu_rival_${revision}`,
  sessionId: w.sessionId,
  revision,
  items: [item('Rival')],
  changes: { added: ['Rival'], removed: [], statusChanged: [] },
  counts: { pending: 1, inProgress: 0, completed: 0 },
  createdAt: new Date('2025-01-01T00:00:00.000Z'),
});
const history = (limit = 100, before?: number) => todos.history(w.deps, w.admin, { sessionId: w.sessionId, limit, before });

describe("a mirrored list keeps each item's activeForm as display text", () => {
  it('kept trimmed (dropped when blank), shown on the list and the card, never part of the diff or the counts', async () => {
    await write({
      todos: [
        { content: 'Run tests', status: 'in_progress', activeForm: ' Running tests ' },
        { content: 'Ship', status: 'pending', activeForm: '  ' },
      ],
    });
    expect((await list()).items).toEqual([
      { content: 'Run tests', status: 'in_progress', activeForm: 'Running tests' },
      { content: 'Ship', status: 'pending' },
    ]);
    const out = await write({
      todos: [
        { content: 'Run tests', status: 'in_progress', activeForm: 'Running the suite' },
        { content: 'Ship', status: 'pending' },
      ],
    });
    expect(out.counts).toEqual({ pending: 1, inProgress: 1, completed: 0 });
    expect((await history(1)).cards[0]).toMatchObject({
      items: [
        { content: 'Run tests', status: 'in_progress', activeForm: 'Running the suite' },
        { content: 'Ship', status: 'pending' },
      ],
      changes: { added: [], removed: [], statusChanged: [] },
    });
  });

  it('the same refusals as todo_write: duplicate content is refused whatever the activeForm', async () => {
    const before = await recordedState(w, w.sessionId);
    await expectRefused(
      write({
        todos: [
          { content: 'Run tests', status: 'pending', activeForm: 'A' },
          { content: 'Run tests', status: 'pending', activeForm: 'B' },
        ],
      }),
      'INVALID_TODOS',
      'Error: invalid todos: duplicate content "Run tests"',
    );
    await expectNothingRecorded(w, w.sessionId, before);
  });
});

describe('recording an update (seed 000: "How an update works")', () => {
  it('an unwritten session has an empty list at revision 0', async () => {
    expect(await list()).toEqual({
      sessionId: w.sessionId,
      revision: 0,
      items: [],
      counts: { pending: 0, inProgress: 0, completed: 0 },
      updatedAt: null,
    });
  });

  it('records the list and answers with the counts of the whole list and the new revision', async () => {
    const out = await write({ todos: [item('Read the code', 'completed'), item('Write the fix', 'in_progress'), item('Run tests')] });
    expect(out).toEqual({
      message: 'Updated todo list: 1 pending, 1 in progress, 1 completed',
      revision: 1,
      counts: { pending: 1, inProgress: 1, completed: 1 },
    });
    expect(await list()).toEqual({
      sessionId: w.sessionId,
      revision: 1,
      items: [item('Read the code', 'completed'), item('Write the fix', 'in_progress'), item('Run tests')],
      counts: { pending: 1, inProgress: 1, completed: 1 },
      updatedAt: '2025-01-01T00:00:00.000Z',
    });
  });

  it('every update replaces the whole previous list (dropping an item = sending the list without it)', async () => {
    await write({ todos: [item('A', 'in_progress'), item('B'), item('C')] });
    const out = await write({ todos: [item('C', 'completed'), item('D')] });
    expect(out.revision).toBe(2);
    expect(out.message).toBe('Updated todo list: 1 pending, 0 in progress, 1 completed');
    const now = await list();
    expect(now.items).toEqual([item('C', 'completed'), item('D')]);
    expect(now.revision).toBe(2);
  });

  it('keeps the order the list was sent in', async () => {
    await write({ todos: [item('Z'), item('A'), item('M')] });
    expect((await list()).items.map((i) => i.content)).toEqual(['Z', 'A', 'M']);
  });

  it('records each item as only its text and its state', async () => {
    await write({ todos: [{ content: ' A ', status: 'pending', id: 7, priority: 'high' } as never] });
    expect((await list()).items).toEqual([{ content: 'A', status: 'pending' }]);
    expect(Object.keys((await list()).items[0]!)).toEqual(['content', 'status']);
  });

  it('trims each text before recording it, in the list and on the card', async () => {
    await write({ todos: [item('  Run tests  ', 'in_progress'), item('\tShip\n')] });
    expect((await list()).items).toEqual([item('Run tests', 'in_progress'), item('Ship')]);
    const [card] = (await history()).cards;
    expect(card!.items).toEqual([item('Run tests', 'in_progress'), item('Ship')]);
    expect(card!.changes.added).toEqual(['Run tests', 'Ship']);
  });

  it('an item whose text only changed by surrounding spaces is the same item', async () => {
    await write({ todos: [item('Run tests')] });
    await write({ todos: [item('  Run tests ', 'completed')] });
    const [card] = (await history()).cards;
    expect(card!.changes).toEqual({ added: [], removed: [], statusChanged: [{ content: 'Run tests', from: 'pending', to: 'completed' }] });
  });

  it('an empty list clears the list, as a new revision with zero counts', async () => {
    await write({ todos: [item('A', 'completed'), item('B')] });
    const out = await write({ todos: [] });
    expect(out).toEqual({
      message: 'Updated todo list: 0 pending, 0 in progress, 0 completed',
      revision: 2,
      counts: { pending: 0, inProgress: 0, completed: 0 },
    });
    const now = await list();
    expect(now.items).toEqual([]);
    expect(now.revision).toBe(2);
    expect(now.updatedAt).not.toBeNull();
    const [card] = (await history()).cards;
    expect(card!.changes).toEqual({ added: [], removed: ['A', 'B'], statusChanged: [] });
  });

  it('revisions count up by one per recorded update', async () => {
    for (let n = 1; n <= 4; n++) {
      expect((await write({ todos: [item(`Step ${n}`)] })).revision).toBe(n);
    }
    expect((await list()).revision).toBe(4);
  });

  it('the latest update is the list, also read through a freshly resolved token (a reopened chat)', async () => {
    await write({ todos: [item('A')] });
    await write({ todos: [item('A', 'completed'), item('B', 'in_progress')] });
    const reopened = await resolveActor(w.deps, w.sessionToken);
    expect(await todos.get(w.deps, reopened, {})).toMatchObject({
      revision: 2,
      items: [item('A', 'completed'), item('B', 'in_progress')],
    });
  });

  it('works on the contract-parsed input as a transport would send it', async () => {
    const input = todoWriteInput.parse({ todos: [{ content: '  Run tests ', status: 'in_progress' }], baseRevision: 0 });
    expect((await write(input)).message).toBe('Updated todo list: 0 pending, 1 in progress, 0 completed');
    expect((await list()).items).toEqual([item('Run tests', 'in_progress')]);
  });
});

describe('refusals record nothing (seed 000 exact texts)', () => {
  it('refuses text that is empty once trimmed', async () => {
    const before = await recordedState(w, w.sessionId);
    await expectRefused(
      write({ todos: [item('Plan'), item('   ')] }),
      'INVALID_TODOS',
      'Error: invalid todo: `content` must be a non-empty string. At `todos[1].content`.',
    );
    await expectNothingRecorded(w, w.sessionId, before);
  });

  it('refuses an empty text that reached the service through the contract (the schema trims but lets it through)', async () => {
    const input = todoWriteInput.parse({ todos: [{ content: '  ', status: 'pending' }] });
    const before = await recordedState(w, w.sessionId);
    await expectRefused(write(input), 'INVALID_TODOS', 'Error: invalid todo: `content` must be a non-empty string. At `todos[0].content`.');
    await expectNothingRecorded(w, w.sessionId, before);
  });

  it('refuses repeated text, compared after trimming', async () => {
    await write({ todos: [item('Old')] });
    const before = await recordedState(w, w.sessionId);
    await expectRefused(
      write({ todos: [item('Run tests'), item(' Run tests ', 'completed')] }),
      'INVALID_TODOS',
      'Error: invalid todos: duplicate content "Run tests"',
    );
    await expectNothingRecorded(w, w.sessionId, before);
    expect((await list()).items).toEqual([item('Old')]);
  });

  it('with the one-active rule on (the default), refuses two in progress', async () => {
    expect(await workspaces.getSettings(w.deps, w.admin)).toEqual({ oneActiveRule: true });
    const before = await recordedState(w, w.sessionId);
    await expectRefused(
      write({ todos: [item('A', 'in_progress'), item('B', 'in_progress'), item('C')] }),
      'INVALID_TODOS',
      'Error: invalid todos: at most one task may be in_progress (got 2)',
    );
    await expectNothingRecorded(w, w.sessionId, before);
  });

  it('with the one-active rule off, allows several in progress', async () => {
    await workspaces.updateSettings(w.deps, w.admin, { oneActiveRule: false });
    const out = await write({ todos: [item('A', 'in_progress'), item('B', 'in_progress'), item('C', 'in_progress')] });
    expect(out.message).toBe('Updated todo list: 0 pending, 3 in progress, 0 completed');
    expect((await list()).counts.inProgress).toBe(3);
  });

  it('turning the rule on later keeps the list recorded earlier, and checks only new updates', async () => {
    await workspaces.updateSettings(w.deps, w.admin, { oneActiveRule: false });
    await write({ todos: [item('A', 'in_progress'), item('B', 'in_progress')] });
    await workspaces.updateSettings(w.deps, w.admin, { oneActiveRule: true });

    expect(await list()).toMatchObject({ revision: 1, items: [item('A', 'in_progress'), item('B', 'in_progress')] });
    const view = await sessions.get(w.deps, w.admin, { sessionId: w.sessionId });
    expect(view.todo.items).toEqual([item('A', 'in_progress'), item('B', 'in_progress')]);

    const before = await recordedState(w, w.sessionId);
    await expectRefused(
      write({ todos: [item('A', 'in_progress'), item('B', 'in_progress')] }),
      'INVALID_TODOS',
      'Error: invalid todos: at most one task may be in_progress (got 2)',
    );
    await expectNothingRecorded(w, w.sessionId, before);
    expect((await write({ todos: [item('A', 'completed'), item('B', 'in_progress')] })).revision).toBe(2);
  });

  it('refuses a run with no session behind it (agent key, admin key), before looking at the list', async () => {
    const snapshot = w.store.snapshot();
    for (const actor of [w.agent, w.admin]) {
      await expectRefused(
        write({ todos: [item('A')] }, actor),
        'NO_OWNING_SESSION',
        'Error: todo_write requires an owning agent session before anything is written.',
      );
      await expectRefused(
        write({ todos: [item(' '), item('B', 'in_progress'), item('C', 'in_progress')] }, actor),
        'NO_OWNING_SESSION',
        'Error: todo_write requires an owning agent session before anything is written.',
      );
    }
    expect(w.store.snapshot()).toEqual(snapshot);
    expect(todoEvents()).toEqual([]);
  });

  it('refuses a viewer key with the forbidden text', async () => {
    const snapshot = w.store.snapshot();
    await expectRefused(
      write({ todos: [item('A')] }, w.viewer),
      'FORBIDDEN',
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
    expect(w.store.snapshot()).toEqual(snapshot);
    expect(todoEvents()).toEqual([]);
  });

  it('after a refusal the next valid update continues from the same revision', async () => {
    await write({ todos: [item('A')] });
    await expect(write({ todos: [item('A'), item('A')] })).rejects.toThrow();
    expect((await write({ todos: [item('A', 'completed')] })).revision).toBe(2);
  });
});

describe('baseRevision', () => {
  it('0 is accepted on an unwritten list, and a matching revision is accepted afterwards', async () => {
    expect((await write({ todos: [item('A')], baseRevision: 0 })).revision).toBe(1);
    expect((await write({ todos: [item('A', 'completed')], baseRevision: 1 })).revision).toBe(2);
  });

  it('a stale revision is refused, naming the current revision, and nothing is recorded', async () => {
    await write({ todos: [item('A')] });
    await write({ todos: [item('A'), item('B')] });
    const before = await recordedState(w, w.sessionId);
    const e = await expectRefused(
      write({ todos: [item('C')], baseRevision: 1 }),
      'STALE_REVISION',
      'Error: stale revision: this update was based on revision 1, but the list is at revision 2; read the list again and send the whole list.',
    );
    expect(e.details).toEqual({ currentRevision: 2 });
    await expectNothingRecorded(w, w.sessionId, before);
  });

  it('a revision ahead of the list is refused too', async () => {
    await write({ todos: [item('A')] });
    const e = await expectRefused(
      write({ todos: [item('C')], baseRevision: 5 }),
      'STALE_REVISION',
      'Error: stale revision: this update was based on revision 5, but the list is at revision 1; read the list again and send the whole list.',
    );
    expect(e.details).toEqual({ currentRevision: 1 });
  });

  it('0 is refused once the list has been written', async () => {
    await write({ todos: [item('A')] });
    const e = await expectRefused(
      write({ todos: [item('C')], baseRevision: 0 }),
      'STALE_REVISION',
      'Error: stale revision: this update was based on revision 0, but the list is at revision 1; read the list again and send the whole list.',
    );
    expect(e.details).toEqual({ currentRevision: 1 });
  });

  it('of two concurrent updates on the same base, one lands and the other is refused as stale', async () => {
    await write({ todos: [item('A')] });
    const results = await Promise.allSettled([
      write({ todos: [item('A', 'completed')], baseRevision: 1 }),
      write({ todos: [item('B')], baseRevision: 1 }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'STALE_REVISION', details: { currentRevision: 2 } });
    expect((await list()).revision).toBe(2);
    expect((await history()).cards).toHaveLength(2);
    expect(todoEvents()).toHaveLength(2);
  });

  it('concurrent updates without a baseRevision all land, each on its own revision', async () => {
    const results = await Promise.all([write({ todos: [item('A')] }), write({ todos: [item('B')] }), write({ todos: [item('C')] })]);
    expect(results.map((r) => r.revision).sort()).toEqual([1, 2, 3]);
    expect((await history()).cards.map((c) => c.revision)).toEqual([3, 2, 1]);
  });

  it('when a rival write moves the revision inside the transaction, the update is refused as stale and nothing lands', async () => {
    await write({ todos: [item('A')] });
    const before = await recordedState(w, w.sessionId);
    // The rival advances the revision just before our compare-and-set (as a concurrent writer would).
    w.store.once('todos.advance', async (repos) => {
      expect(await repos.todos.advance(w.workspaceId, 1, rivalDraft(2))).toEqual({ todoRevision: 2, turnNumber: 0, recorded: true });
    });
    const e = await expectRefused(
      write({ todos: [item('B')], baseRevision: 1 }),
      'STALE_REVISION',
      'Error: stale revision: this update was based on revision 1, but the list is at revision 2; read the list again and send the whole list.',
    );
    expect(e.details).toEqual({ currentRevision: 2 });
    await expectNothingRecorded(w, w.sessionId, before);
  });
});

describe('lost compare-and-set races', () => {
  it('a stale refusal names the revision the rival actually reached', async () => {
    await write({ todos: [item('A')] });
    const before = await recordedState(w, w.sessionId);
    w.store.once('todos.advance', async (repos) => {
      await repos.todos.advance(w.workspaceId, 1, rivalDraft(2));
      await repos.todos.advance(w.workspaceId, 2, rivalDraft(3));
    });
    const e = await expectRefused(
      write({ todos: [item('B')], baseRevision: 1 }),
      'STALE_REVISION',
      'Error: stale revision: this update was based on revision 1, but the list is at revision 3; read the list again and send the whole list.',
    );
    expect(e.details).toEqual({ currentRevision: 3 });
    await expectNothingRecorded(w, w.sessionId, before);
  });

  it('a write without a base revision lands on top of a rival that moved the revision first', async () => {
    await write({ todos: [item('A')] });
    w.store.once('todos.advance', async (repos) => {
      expect(await repos.todos.advance(w.workspaceId, undefined, rivalDraft(2))).toEqual({
        todoRevision: 2,
        turnNumber: 0,
        recorded: true,
      });
    });
    const answer = await write({ todos: [item('B')] });
    // Never refused, never retried: the store orders the two, and ours is recorded as the next revision.
    expect(answer.revision).toBe(3);
    expect((await todos.get(w.deps, w.session, {})).items).toEqual([item('B')]);
    // Drafted against A (the list it knew), it is recorded against the rival's list actually before it.
    const [card] = (await history()).cards;
    expect([card!.revision, card!.changes]).toEqual([3, { added: ['B'], removed: ['Rival'], statusChanged: [] }]);
  });

  it('an update drafted for a revision it did not get is not recorded there: the store answers where it moved', async () => {
    await write({ todos: [item('A')] });
    const moved = await w.store.transaction((repos) => repos.todos.advance(w.workspaceId, undefined, rivalDraft(7)));
    expect(moved).toEqual({ todoRevision: 2, turnNumber: 0, recorded: false });
    expect((await history()).cards.map((c) => c.revision)).toEqual([1]);
    // The next write, drafted for 2 against A, is recorded at 3 against the list at 2: none.
    await write({ todos: [item('B')] });
    const [card] = (await history()).cards;
    expect([card!.revision, card!.changes]).toEqual([3, { added: ['B'], removed: [], statusChanged: [] }]);
  });
});

describe('update cards, live events and history', () => {
  it('every recorded update leaves a card with the list sent, what changed, the counts and the turn', async () => {
    await sessions.startTurn(w.deps, w.session);
    w.clock.set('2025-02-03T04:05:06.000Z');
    await write({ todos: [item('A', 'in_progress'), item('B'), item('C')] });
    w.clock.advance(1000);
    await write({ todos: [item('A', 'completed'), item('B', 'in_progress'), item('D')] });

    const { cards, nextBefore } = await history();
    expect(nextBefore).toBeNull();
    expect(cards).toEqual([
      {
        sessionId: w.sessionId,
        revision: 2,
        turnNumber: 1,
        items: [item('A', 'completed'), item('B', 'in_progress'), item('D')],
        changes: {
          added: ['D'],
          removed: ['C'],
          statusChanged: [
            { content: 'A', from: 'in_progress', to: 'completed' },
            { content: 'B', from: 'pending', to: 'in_progress' },
          ],
        },
        counts: { pending: 1, inProgress: 1, completed: 1 },
        createdAt: '2025-02-03T04:05:07.000Z',
      },
      {
        sessionId: w.sessionId,
        revision: 1,
        turnNumber: 1,
        items: [item('A', 'in_progress'), item('B'), item('C')],
        changes: { added: ['A', 'B', 'C'], removed: [], statusChanged: [] },
        counts: { pending: 2, inProgress: 1, completed: 0 },
        createdAt: '2025-02-03T04:05:06.000Z',
      },
    ]);
  });

  it('an update identical to the last still records a card, with no changes', async () => {
    await write({ todos: [item('A')] });
    expect((await write({ todos: [item('A')] })).revision).toBe(2);
    expect((await history()).cards[0]!.changes).toEqual({ added: [], removed: [], statusChanged: [] });
  });

  it('publishes each recorded card on the session topic, with the revision as event id', async () => {
    await write({ todos: [item('A')] });
    await write({ todos: [item('A', 'completed')] });
    const cards = (await history()).cards;
    expect(todoTopic(w.sessionId)).toBe(`todo:${w.sessionId}`);
    expect(todoEvents()).toEqual([
      { topic: `todo:${w.sessionId}`, id: '1', data: cards[1] },
      { topic: `todo:${w.sessionId}`, id: '2', data: cards[0] },
    ]);
  });

  it('pages cards newest first; nextBefore points at the next page until the last', async () => {
    for (let n = 1; n <= 5; n++) await write({ todos: [item(`Step ${n}`)] });

    const first = await history(2);
    expect(first.cards.map((c) => c.revision)).toEqual([5, 4]);
    expect(first.nextBefore).toBe(4);

    const second = await history(2, first.nextBefore!);
    expect(second.cards.map((c) => c.revision)).toEqual([3, 2]);
    expect(second.nextBefore).toBe(2);

    const third = await history(2, second.nextBefore!);
    expect(third.cards.map((c) => c.revision)).toEqual([1]);
    expect(third.nextBefore).toBeNull();
  });

  it('nextBefore is null when the page holds exactly the remaining cards', async () => {
    for (let n = 1; n <= 4; n++) await write({ todos: [item(`Step ${n}`)] });
    const page = await history(4);
    expect(page.cards.map((c) => c.revision)).toEqual([4, 3, 2, 1]);
    expect(page.nextBefore).toBeNull();
    expect((await history(2, 3)).cards.map((c) => c.revision)).toEqual([2, 1]);
    expect((await history(2, 3)).nextBefore).toBeNull();
  });

  it('an unwritten session has no cards', async () => {
    expect(await history()).toEqual({ cards: [], nextBefore: null });
  });

  it('todos.cardsAfter pages: it says when more cards follow the page', async () => {
    for (const n of [1, 2, 3]) await write({ todos: [item(`Step ${n}`)] });
    const first = await todos.cardsAfter(w.deps, w.session, { afterRevision: 0, limit: 2 });
    expect(first.cards.map((c) => c.revision)).toEqual([1, 2]);
    expect(first.more).toBe(true);
    const rest = await todos.cardsAfter(w.deps, w.session, { afterRevision: 2, limit: 2 });
    expect(rest.cards.map((c) => c.revision)).toEqual([3]);
    expect(rest.more).toBe(false);
  });

  it('todos.cardsAfter replays the cards after a revision, oldest first', async () => {
    for (let n = 1; n <= 4; n++) await write({ todos: [item(`Step ${n}`)] });
    const after = await todos.cardsAfter(w.deps, w.session, { afterRevision: 2 });
    expect(after.sessionId).toBe(w.sessionId);
    expect(after.cards.map((c) => c.revision)).toEqual([3, 4]);
    expect(after.cards[0]!.items).toEqual([item('Step 3')]);
    expect((await todos.cardsAfter(w.deps, w.admin, { sessionId: w.sessionId, afterRevision: 0 })).cards.map((c) => c.revision)).toEqual([
      1, 2, 3, 4,
    ]);
    expect((await todos.cardsAfter(w.deps, w.session, { afterRevision: 4 })).cards).toEqual([]);
  });

  it('the replayed cards are the cards that were published', async () => {
    await write({ todos: [item('A')] });
    await write({ todos: [item('B')] });
    const replay = await todos.cardsAfter(w.deps, w.viewer, { sessionId: w.sessionId, afterRevision: 0 });
    expect(replay.cards).toEqual(todoEvents().map((e) => e.data));
  });
});

describe('reading the list', () => {
  it('a session token reads its own list without naming it', async () => {
    await write({ todos: [item('A')] });
    expect((await todos.get(w.deps, w.session, {})).items).toEqual([item('A')]);
  });

  it('a viewer can read a named session list, cards and replay', async () => {
    await write({ todos: [item('A')] });
    expect((await todos.get(w.deps, w.viewer, { sessionId: w.sessionId })).items).toEqual([item('A')]);
    expect((await todos.history(w.deps, w.viewer, { sessionId: w.sessionId, limit: 10 })).cards).toHaveLength(1);
  });

  it('a key without a session must name one', async () => {
    await expectRefused(
      todos.get(w.deps, w.viewer, {}),
      'INVALID_INPUT',
      'Error: invalid input: name a `sessionId`, or call with a session token.',
    );
  });

  it('an unknown session is not found', async () => {
    await expectRefused(todos.get(w.deps, w.admin, { sessionId: 'ses_404' }), 'NOT_FOUND', 'Error: session ses_404 not found.');
    await expectRefused(
      todos.history(w.deps, w.admin, { sessionId: 'ses_404', limit: 5 }),
      'NOT_FOUND',
      'Error: session ses_404 not found.',
    );
  });
});

describe('its footprint', () => {
  it("a write is the session's own: the store may run it beside other sessions' writes, and runs the session's in turn", async () => {
    w.store.footprints = [];
    await write({ todos: [item('Only', 'pending')] });
    expect(w.store.footprints).toEqual([`session:${w.session.sessionId}`]);
  });
});
