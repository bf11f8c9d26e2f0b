// Black-box tests of the group commit on PostgreSQL, counted on the wire (a relay in front of the database reads what
// the server sends): writes that arrive together share one transaction, a refusal among them records nothing of its
// own and undoes nothing of the others'; another replica hears every one of them.
import type { TodoCard } from '@agent-tasks/schema';
import { type Subscription, createClient } from '@agent-tasks/sdk';
import { describe, expect, it } from 'vitest';
import { queryRows } from './support/database.ts';
import type { RoundTrip } from './support/pg-wire-counter.ts';
import { adminClient, sessionClient } from './support/fixtures.ts';
import { startServer } from './support/server.ts';
import { serverBehindWireCounter } from './support/wired-server.ts';
import { waitFor } from './support/webhook-receiver.ts';

const wired = serverBehindWireCounter();

/** One HTTP request holding `inputs.length` todos.write calls (a tRPC batch): they reach the store together. */
async function batchOfWrites(token: string, inputs: unknown[]) {
  const body = Object.fromEntries(inputs.map((input, i) => [String(i), input]));
  const res = await fetch(`${wired.server.url}/trpc/${inputs.map(() => 'todos.write').join(',')}?batch=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return (await res.json()) as ({ result: { data: { revision: number } } } | { error: { message: string } })[];
}

/** One HTTP request holding these calls (a tRPC batch of mutations): they reach the store together. */
async function batchOf(token: string, calls: [path: string, input: unknown][]) {
  const body = Object.fromEntries(calls.map(([, input], i) => [String(i), input]));
  const res = await fetch(`${wired.server.url}/trpc/${calls.map(([path]) => path).join(',')}?batch=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return (await res.json()) as (
    { result: { data: { id: string; version: number; metadata: unknown } } } | { error: { message: string } }
  )[];
}

/** The list locks taken since the last reset (a task write's first statement on PostgreSQL). */
const listLocks = () => wired.wire.tally().texts.filter((t) => /FROM "TaskList" WHERE "id" = \$1 FOR UPDATE/.test(t));

/** The round trips since the last reset that ran an UPDATE of a task, each with how many were unanswered before it. */
const taskWrites = () => wired.wire.tally().trips.filter((t) => t.statements.some((s) => s.includes('UPDATE "Task" SET')));

const list = (n: number) => ({ todos: [{ content: `Step ${n}`, status: 'pending' }] });

const recordsTodos = (sql: string) => sql.includes('INSERT INTO "TodoUpdate"');
const recordsSomeTodos = (trip: RoundTrip) => trip.statements.some(recordsTodos);
const notifies = (trip: RoundTrip) => trip.statements.some((s) => s.includes('pg_notify('));
/** Whether a NOTIFY went out after round trip `index` of those since the last reset. */
const pgNotifyAfter = (index: number) =>
  wired.wire
    .tally()
    .trips.slice(index + 1)
    .some(notifies);

/** The transactions since the last reset that recorded a todo list, each as its round trips. */
const todoTransactions = () => wired.wire.transactions().filter((trips) => trips.some(recordsSomeTodos));

describe('the group commit on PostgreSQL', () => {
  it('ten writes that arrive together are each recorded once, in one transaction, with no savepoint round trip', async () => {
    const { session, token } = await sessionClient(wired.server, 'batched writer');
    await batchOfWrites(token, [list(0)]); // every statement prepared on the writer's connection
    // The first write's NOTIFY seen before the count starts (and with it, sent before it on the same connection, the
    // session's opening's): on a loaded machine the relay may read them only after the batch's COMMIT.
    await waitFor("the first write's NOTIFY", () => pgNotifyAfter(wired.wire.tally().trips.findLastIndex(recordsSomeTodos)));
    wired.wire.reset();
    const answers = await batchOfWrites(
      token,
      Array.from({ length: 10 }, (_, i) => list(i + 1)),
    );
    const revisions = answers.map((a) => ('result' in a ? a.result.data.revision : a.error.message));
    expect([...revisions].sort((x, y) => Number(x) - Number(y))).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const rows = await queryRows<{ revision: number }>(
      wired.server,
      'SELECT "revision" FROM "TodoUpdate" WHERE "sessionId" = ? ORDER BY "revision"',
      session.id,
    );
    expect(rows.map((r) => r.revision)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // Before: ten transactions, each BEGIN, UPDATE … RETURNING, INSERT, COMMIT (four round trips a write).
    const transactions = todoTransactions();
    expect(transactions).toHaveLength(1);
    const [shared = []] = transactions;
    // Round trips: BEGIN and COMMIT once, and each write's own statements. A savepoint is set only when a refusal needs
    // one (none was refused here): before, one more round trip a write.
    const own = shared.filter((t) => !['BEGIN', 'COMMIT'].includes(t.statements.join()));
    expect(shared.flatMap((t) => t.statements).filter((s) => /SAVEPOINT/.test(s))).toEqual([]);
    const statements = own.flatMap((t) => t.statements);
    // Each write's compare-and-set and its record are one statement, drafted against the list before it: the one at
    // revision 1 for the first, and for each later one the list the write before it in the same transaction recorded.
    // Before, each later write moved the revision past a draft against revision 1, read the list before and recorded
    // its own: three round trips, not one.
    const advances = statements.filter((s) => s.includes('UPDATE "Session" SET "todoRevision"'));
    expect(advances).toHaveLength(10);
    expect(advances.every((s) => s.trimStart().startsWith('WITH') && recordsTodos(s))).toBe(true);
    expect(statements).toHaveLength(10);
    // And each card's changes are against the card before it.
    const cards = await queryRows<{ revision: number; items: string; changes: string }>(
      wired.server,
      'SELECT "revision", "items", "changes" FROM "TodoUpdate" WHERE "sessionId" = ? ORDER BY "revision"',
      session.id,
    );
    const contents = cards.map((c) => (JSON.parse(c.items) as { content: string }[]).map((i) => i.content));
    expect(cards.slice(1).map((c) => JSON.parse(c.changes) as unknown)).toEqual(
      contents.slice(1).map((now, i) => ({
        added: now.filter((x) => !contents[i]!.includes(x)),
        removed: contents[i]!.filter((x) => !now.includes(x)),
        statusChanged: [],
      })),
    );
    expect(own.every((t) => t.statements.length === 1)).toBe(true);
    // The twenty live events (a card and the session's activity for each write) went out in one NOTIFY statement after
    // the shared COMMIT.
    const trips = wired.wire.tally().trips;
    const lastInsert = trips.findLastIndex(recordsSomeTodos);
    const commit = trips.findIndex((t, i) => i > lastInsert && t.statements.join() === 'COMMIT');
    expect(commit).toBeGreaterThan(lastInsert);
    await waitFor('the NOTIFY after the shared COMMIT', () => pgNotifyAfter(commit));
    expect(wired.wire.tally().trips.slice(commit).filter(notifies)).toHaveLength(1);
  });

  it('a stale write among them is refused with its text and records nothing; the others are each recorded', async () => {
    const { session, token } = await sessionClient(wired.server, 'one stale among many');
    await batchOfWrites(token, [list(0)]);
    wired.wire.reset();
    const answers = await batchOfWrites(token, [list(1), list(2), { ...list(99), baseRevision: 0 }, list(3), list(4)]);
    const stale = answers[2];
    expect(stale && 'error' in stale ? stale.error.message : stale).toMatch(
      /^Error: stale revision: this update was based on revision 0, but the list is at revision [2-5]; read the list again and send the whole list\.$/,
    );
    expect(answers.filter((a) => 'result' in a)).toHaveLength(4);
    const rows = await queryRows<{ revision: number; items: string }>(
      wired.server,
      'SELECT "revision", "items" FROM "TodoUpdate" WHERE "sessionId" = ? ORDER BY "revision"',
      session.id,
    );
    expect(rows.map((r) => r.revision)).toEqual([1, 2, 3, 4, 5]);
    expect(rows.some((r) => r.items.includes('Step 99'))).toBe(false);
    expect(todoTransactions()).toHaveLength(1);
    // The refused write's compare-and-set changed no row, so nothing was undone: no savepoint, no rollback.
    expect(wired.wire.count('ROLLBACK') + wired.wire.count('SAVEPOINT')).toBe(0);
  });

  it("a session's write on a list this server recorded is one statement: its compare-and-set with its record", async () => {
    const { session, token } = await sessionClient(wired.server, 'one statement a write');
    const write = async (todos: unknown) => {
      const answer = await batchOfWrites(token, [todos]);
      return answer.map((a) => ('result' in a ? a.result.data.revision : a.error.message));
    };
    expect(await write(list(1))).toEqual([1]);
    wired.wire.reset();
    expect(
      await write({
        todos: [
          { content: 'Step 1', status: 'completed' },
          { content: 'Step 2', status: 'in_progress' },
        ],
      }),
    ).toEqual([2]);
    const [only, ...more] = todoTransactions();
    expect(more).toEqual([]);
    // BEGIN, the one statement, COMMIT: before, BEGIN, UPDATE … RETURNING, INSERT, COMMIT.
    expect(only?.map((t) => t.statements.map((s) => s.trimStart().split(/\s/, 1)[0]))).toEqual([['BEGIN'], ['WITH'], ['COMMIT']]);
    const [card] = await queryRows<{ revision: number; changes: string; inProgress: number }>(
      wired.server,
      'SELECT "revision", "changes", "inProgress" FROM "TodoUpdate" WHERE "sessionId" = ? ORDER BY "revision" DESC LIMIT 1',
      session.id,
    );
    expect({ ...card, changes: JSON.parse(card!.changes) as unknown }).toEqual({
      revision: 2,
      inProgress: 1,
      changes: { added: ['Step 2'], removed: [], statusChanged: [{ content: 'Step 1', from: 'pending', to: 'completed' }] },
    });
  });

  it("a task's write is one statement for its compare-and-set, its feed position and its change record", async () => {
    const { client } = await sessionClient(wired.server, 'task writer');
    const listName = 'one-statement';
    const task = await client.tasks.create({ listName, subject: 'Counted' });
    await client.tasks.update({ listName, id: task.id, metadata: { n: 0 } }); // every statement prepared
    wired.wire.reset();
    await client.tasks.update({ listName, id: task.id, metadata: { n: 1 } });
    const written = wired.wire
      .transactions()
      .filter((trips) => trips.some((t) => t.statements.some((s) => s.includes('UPDATE "Task" SET'))));
    expect(written).toHaveLength(1);
    const statements = written[0]!.flatMap((t) => t.statements).map((s) => s.replace(/\s+/g, ' ').trim());
    // Before: UPDATE "Task", UPDATE "TaskList" … RETURNING and INSERT INTO "TaskChange", three round trips.
    const writes = statements.filter((s) => /^(UPDATE|INSERT|WITH)\b/.test(s));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^WITH "written" AS \( UPDATE "Task" SET .* UPDATE "TaskList" SET "changeSeq" .* INSERT INTO "TaskChange"/);
    // The change is recorded at the list's next feed position, after the creation's and the first update's.
    const changes = await queryRows<{ seq: number; kind: string; changes: string }>(
      wired.server,
      'SELECT "seq", "kind", "changes" FROM "TaskChange" WHERE "taskId" = ? ORDER BY "seq"',
      task.id,
    );
    expect(changes.map((c) => [c.seq, c.kind])).toEqual([
      [1, 'created'],
      [2, 'updated'],
      [3, 'updated'],
    ]);
    expect(JSON.parse(changes[2]!.changes)).toEqual({ metadata: { from: { n: 0 }, to: { n: 1 } } });
    expect(await client.tasks.get({ listName, id: task.id })).toMatchObject({ metadata: { n: 1 } });
  });

  it('updates of their own fields on different tasks go out side by side: each sent before the one before is answered', async () => {
    const { client, token } = await sessionClient(wired.server, 'side by side');
    const listName = 'side-by-side';
    const tasks = [];
    for (let i = 0; i < 5; i++) tasks.push(await client.tasks.create({ listName, subject: `Task ${i}` }));
    await batchOf(token, [['tasks.update', { listName, id: tasks[0]!.id, metadata: { n: 0 } }]]); // statements prepared
    wired.wire.reset();
    // PostgreSQL's answers held back a while: a busy machine cannot make the server's pipelining look like waiting.
    wired.wire.holdAnswers(100);
    const answers = await batchOf(
      token,
      tasks.map((t, i) => ['tasks.update', { listName, id: t.id, metadata: { n: i + 1 }, subject: `Task ${i}, renamed` }]),
    ).finally(() => wired.wire.holdAnswers(0));
    expect(answers.map((a) => ('result' in a ? a.result.data.metadata : a.error.message))).toEqual(tasks.map((_, i) => ({ n: i + 1 })));
    // One transaction; the five writes' statements pipelined: the later ones sent while earlier ones were unanswered.
    const writes = taskWrites();
    expect(writes).toHaveLength(5);
    expect(Math.max(...writes.map((t) => t.behind))).toBeGreaterThan(0);
    // The list's lock once: the transaction holds it from the first write's lock on.
    expect(listLocks()).toHaveLength(1);
    for (const [i, t] of tasks.entries()) {
      expect(await client.tasks.get({ listName, id: t.id })).toMatchObject({ subject: `Task ${i}, renamed`, metadata: { n: i + 1 } });
    }
  });

  it("updates of one task, or a change beyond a task's own fields, go in turn: none is sent before the one before is answered", async () => {
    const { client, token } = await sessionClient(wired.server, 'in turn');
    const listName = 'in-turn';
    const [a, b, c] = [
      await client.tasks.create({ listName, subject: 'A' }),
      await client.tasks.create({ listName, subject: 'B' }),
      await client.tasks.create({ listName, subject: 'C' }),
    ];
    await batchOf(token, [['tasks.update', { listName, id: a.id, metadata: { n: 0 } }]]);
    // Three updates of task A: each sees the one before it (its version, its merged metadata).
    wired.wire.reset();
    const same = await batchOf(token, [
      ['tasks.update', { listName, id: a.id, metadata: { first: 1 } }],
      ['tasks.update', { listName, id: a.id, metadata: { second: 2 } }],
      ['tasks.update', { listName, id: a.id, metadata: { third: 3 } }],
    ]);
    expect(same.map((x) => ('result' in x ? x.result.data.version : x.error.message))).toEqual([
      a.version + 2,
      a.version + 3,
      a.version + 4,
    ]);
    expect(taskWrites().map((t) => t.behind)).toEqual([0, 0, 0]);
    expect(listLocks()).toHaveLength(1);
    expect((await client.tasks.get({ listName, id: a.id })).metadata).toEqual({ n: 0, first: 1, second: 2, third: 3 });
    // A status change is its list's write: it goes alone, between the updates of the other tasks' own fields.
    wired.wire.reset();
    const mixed = await batchOf(token, [
      ['tasks.update', { listName, id: b.id, metadata: { n: 1 } }],
      ['tasks.update', { listName, id: c.id, status: 'in_progress' }],
      ['tasks.update', { listName, id: a.id, metadata: { n: 2 } }],
    ]);
    expect(mixed.every((x) => 'result' in x)).toBe(true);
    expect(taskWrites().map((t) => t.behind)).toEqual([0, 0, 0]);
    expect(await client.tasks.get({ listName, id: c.id })).toMatchObject({ status: 'in_progress' });
  });

  it('a stale update among updates side by side is refused with its text and changes nothing; the others are recorded', async () => {
    const { client, token } = await sessionClient(wired.server, 'one stale side by side');
    const listName = 'stale-side-by-side';
    const tasks = [];
    for (let i = 0; i < 4; i++) tasks.push(await client.tasks.create({ listName, subject: `Task ${i}` }));
    await batchOf(token, [['tasks.update', { listName, id: tasks[0]!.id, metadata: { n: 0 } }]]);
    const stale = tasks[2]!;
    wired.wire.reset();
    const answers = await batchOf(
      token,
      tasks.map((t, i) => [
        'tasks.update',
        { listName, id: t.id, metadata: { n: i + 10 }, ...(t === stale ? { expectedVersion: 99 } : {}) },
      ]),
    );
    const refused = answers[2];
    expect(refused && 'error' in refused ? refused.error.message : refused).toMatch(
      new RegExp(`^Error: stale version: task ${stale.id} was read at version 99 but is now at version ${stale.version}; read it again\\.`),
    );
    expect(answers.filter((a) => 'result' in a)).toHaveLength(3);
    expect(await client.tasks.get({ listName, id: stale.id })).toMatchObject({ version: stale.version, metadata: {} });
    for (const i of [0, 1, 3]) expect((await client.tasks.get({ listName, id: tasks[i]!.id })).metadata).toEqual({ n: i + 10 });
    // Side by side, the refused write's changes (none here) cannot be told from the others': the batch was rolled
    // back once and the others ran again, each in a savepoint. The refusal stood: the stale write ran once.
    const texts = wired.wire.tally().texts.filter((t) => /^(ROLLBACK|SAVEPOINT|RELEASE)/.test(t));
    expect(texts.filter((t) => t === 'ROLLBACK')).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('ROLLBACK TO SAVEPOINT'))).toHaveLength(0);
    expect(texts.filter((t) => t.startsWith('SAVEPOINT'))).toHaveLength(3);
    // The list's lock once a run: taken again after the rollback, by the first write run again.
    expect(listLocks()).toHaveLength(2);
  });

  it("different sessions' writes that meet in a transaction go out side by side; each session's are recorded in turn", async () => {
    const writers = await Promise.all(Array.from({ length: 8 }, (_, i) => sessionClient(wired.server, `writer ${i}`)));
    const advances = () =>
      wired.wire.tally().trips.filter((t) => t.statements.some((s) => s.includes('UPDATE "Session" SET "todoRevision"')));
    await Promise.all(writers.map(({ token }) => batchOfWrites(token, [list(0)])));
    // Sent at once, the writes of eight sessions queue behind one another's transaction and meet in the next.
    let rounds = 1;
    wired.wire.reset();
    for (; rounds <= 20 && !advances().some((t) => t.behind > 0); rounds++) {
      await Promise.all(writers.map(({ token }) => batchOfWrites(token, [list(rounds), list(rounds + 100)])));
    }
    expect(Math.max(...advances().map((t) => t.behind))).toBeGreaterThan(0);
    // Each session's two writes a round in the order sent: Step r at revision 2r, Step r+100 after it.
    const expected = Array.from({ length: 1 + 2 * (rounds - 1) }, (_, i) => {
      const revision = i + 1;
      return { revision, step: revision === 1 ? 'Step 0' : `Step ${revision % 2 === 0 ? revision / 2 : (revision - 1) / 2 + 100}` };
    });
    for (const { session } of writers) {
      const rows = await queryRows<{ revision: number; items: string }>(
        wired.server,
        'SELECT "revision", "items" FROM "TodoUpdate" WHERE "sessionId" = ? ORDER BY "revision"',
        session.id,
      );
      expect(rows.map((r) => ({ revision: r.revision, step: (JSON.parse(r.items) as { content: string }[])[0]?.content }))).toEqual(
        expected,
      );
    }
  });

  it('another replica hears every write of a shared transaction, in order', async () => {
    const other = await startServer({ databaseUrl: wired.database.url, adminKey: wired.server.adminKey });
    try {
      const { session, token } = await sessionClient(wired.server, 'heard elsewhere');
      await batchOfWrites(token, [list(0)]);
      const viewer = createClient({
        url: other.url,
        token: (await adminClient(other).keys.create({ name: 'watcher', role: 'viewer' })).token,
      });
      const events: TodoCard[] = [];
      let sub: Subscription | undefined;
      await new Promise<void>((resolve) => {
        sub = viewer.todos.watch({ sessionId: session.id }, { onData: (e) => events.push(e.data), onStarted: resolve });
      });
      try {
        await batchOfWrites(
          token,
          Array.from({ length: 8 }, (_, i) => list(i + 1)),
        );
        await waitFor('eight cards on the other replica', () => (events.length >= 8 ? events : null), 15_000);
        expect(events.map((e) => e.revision)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
      } finally {
        sub?.unsubscribe();
      }
    } finally {
      await other.stop();
    }
  });
});
