// The Prisma store's group commit on PostgreSQL: transactions queued in one turn share one BEGIN … COMMIT on the
// writer's connection, without a savepoint round trip each; work that throws after writing, or whose statement fails
// (which aborts a PostgreSQL transaction), rolls the batch back and the others run again, each in a savepoint.
import type { Repositories, Store } from '@agent-tasks/core';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  taskChangeRecord as change,
  taskListRecord as listRec,
  sessionRecord as ses,
  taskRecord as taskRec,
  workspaceRecord as ws,
} from '../../../packages/core/test/record-builders.ts';
import { type WireCounter, startWireCounter } from '../../../tests/support/pg-wire-counter.ts';
import { type TestDatabase, createTestDatabase, stopTestPostgres } from '../../../tests/support/postgres.ts';
import { isDatabaseBusy } from '../src/db/busy.ts';
import type { DbHandle } from '../src/db/client.ts';
import { openPostgresDb } from '../src/db/postgres-client.ts';
import { applyPostgresMigrations } from '../src/db/postgres-migrations.ts';
import { postgresMigrationsDir } from '../src/db/postgres-schema.ts';
import { rawSql } from '../src/db/direct-sql.ts';
import type { Prisma } from '../src/generated/prisma/client.ts';
import { groupCommit } from '../src/repositories/group-commit.ts';
import { prismaStore } from '../src/repositories/prisma-store.ts';

let database: TestDatabase;
let wire: WireCounter;
let writer: DbHandle;
let reader: DbHandle;
let store: Store;
beforeAll(async () => {
  database = await createTestDatabase();
  await applyPostgresMigrations({ url: database.url, migrationsDir: postgresMigrationsDir });
  wire = await startWireCounter(database.url);
  writer = await openPostgresDb(wire.url, { max: 1 });
  reader = await openPostgresDb(database.url);
  store = prismaStore(writer, reader.db, { replicas: { claimLeaseMs: 60_000 } });
  await store.transaction(async (repos) => {
    await repos.workspaces.create(ws('ws_1'));
    await repos.sessions.create(ses('ses_taken'));
    await repos.tasks.createList(listRec('tl_1', 'default'));
    await repos.tasks.insert(taskRec('T-1', 1));
  });
}, 120_000);
afterAll(async () => {
  await Promise.all([writer?.db.$disconnect(), reader?.db.$disconnect()]);
  await wire?.close();
  await database?.drop();
  await stopTestPostgres();
});
beforeEach(() => wire.reset());

const tx = <T>(work: (repos: Repositories) => Promise<T>) => store.transaction(work);
const outcome = (write: Promise<unknown>) =>
  write.then(
    () => 'committed',
    (error: unknown) =>
      `refused: ${String((error as Error).message ?? error)
        .replace(/\s+/g, ' ')
        .trim()}`,
  );
const sessionIds = async () => (await reader.db.session.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((s) => s.id);

/** Work that counts how often it ran (a batch rolled back runs its other writes again). */
function counted<T>(work: (repos: Repositories) => Promise<T>) {
  const counter = {
    runs: 0,
    write: tx((repos) => {
      counter.runs++;
      return work(repos);
    }),
  };
  return counter;
}
/** A todo update of ses_taken drafted for `revision`. */
const draft = (id: string, revision: number) => ({
  id,
  sessionId: 'ses_taken',
  revision,
  items: [],
  changes: { added: [], removed: [], statusChanged: [] },
  counts: { pending: 0, inProgress: 0, completed: 0 },
  createdAt: new Date(),
});
/** A one-task write of T-1 (one data-modifying WITH: its compare-and-set, feed position and change record). */
const taskWrite = (repos: Repositories, fromVersion: number) => {
  const { seq: _seq, ...unnumbered } = change(0, 'T-1');
  return repos.tasks.commit('tl_1', {
    tasks: [{ task: { ...taskRec('T-1', 1), subject: `from ${fromVersion}`, version: fromVersion + 1 }, fromVersion }],
    changes: [unnumbered],
    readiness: [],
  });
};
const trips = (transaction: { statements: string[] }[] | undefined) => (transaction ?? []).flatMap((t) => t.statements);
/** Sessions inserted. */
const inserts = (transaction: { statements: string[] }[] | undefined) =>
  trips(transaction).filter((x) => /^INSERT INTO (?:"public"\.)?"Session"/.test(x)).length;

/**
 * A write that sets ses_taken's agent name and, queued with it, `refused` (which changes its title, then is refused):
 * the first commits, the refusal is answered with its text, and its change is undone.
 */
async function expectUndone(agentName: string, refused: (db: Prisma.TransactionClient) => Promise<unknown>) {
  const commits = groupCommit(writer);
  let text = '';
  const outcomes = await Promise.all(
    [
      commits.run((db) => rawSql(db).$queryRaw`UPDATE "Session" SET "agentName" = ${agentName} WHERE "id" = 'ses_taken'`),
      commits.run((db) =>
        refused(db).catch((error: unknown) => {
          text = (error as Error).message;
          throw error;
        }),
      ),
    ].map(outcome),
  );
  expect(outcomes).toEqual(['committed', `refused: ${text}`]);
  const row = await reader.db.session.findUniqueOrThrow({ where: { id: 'ses_taken' } });
  expect([row.agentName, row.title]).toEqual([agentName, null]);
}

/**
 * Runs `work` on a store whose lock timeout is 300 ms while another connection holds ses_taken's row lock (the wire
 * counter reset just before): a write that takes that lock waits its timeout out ("busy").
 */
async function whileSessionLocked(work: (busyStore: Store) => Promise<void>) {
  const busyWriter = await openPostgresDb(wire.url, { max: 1, lockTimeoutMs: 300 });
  const busyStore = prismaStore(busyWriter, reader.db, { replicas: { claimLeaseMs: 60_000 } });
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM "Session" WHERE "id" = $1 FOR UPDATE', ['ses_taken']);
    wire.reset();
    await work(busyStore);
  } finally {
    await holder.query('ROLLBACK');
    await holder.end();
    await busyWriter.db.$disconnect();
  }
}

describe('the group commit on PostgreSQL', () => {
  it('work queued together shares one transaction without a savepoint round trip; a refusal that changed nothing undoes nothing', async () => {
    const writes = [
      counted((repos) => repos.sessions.create(ses('ses_a'))),
      // Refused after a read, and by a compare-and-set that matched no row: neither changed anything.
      counted(async (repos) => {
        await repos.sessions.get('ws_1', 'ses_taken');
        throw new Error('refused after a read');
      }),
      counted(async (repos) => {
        // One statement (a data-modifying WITH) that answered no row: marked as changing nothing then.
        if (!(await repos.todos.advance('ws_1', 77, draft('tdu_stale', 78)))) throw new Error('stale');
      }),
      counted(async (repos) => {
        // A task's compare-and-set, feed position and change record in one statement, which answered no row.
        if (!(await taskWrite(repos, 77))) throw new Error('task changed meanwhile');
      }),
      counted((repos) => repos.sessions.create(ses('ses_d'))),
    ];
    const outcomes = await Promise.all(writes.map((w) => outcome(w.write)));
    expect(outcomes).toEqual([
      'committed',
      'refused: refused after a read',
      'refused: stale',
      'refused: task changed meanwhile',
      'committed',
    ]);
    expect(writes.map((w) => w.runs)).toEqual([1, 1, 1, 1, 1]);
    expect(await sessionIds()).toEqual(['ses_a', 'ses_d', 'ses_taken']);
    const transactions = wire.transactions();
    expect(transactions).toHaveLength(1);
    expect(transactions[0]?.at(-1)?.statements).toEqual(['COMMIT']);
    expect(wire.count('SAVEPOINT') + wire.count('ROLLBACK') + wire.count('RELEASE')).toBe(0);
  });

  it('a write refused after its write rolls the batch back; the others run in the next, each in a savepoint', async () => {
    const writes = [
      counted((repos) => repos.sessions.create(ses('ses_b1'))),
      counted(async (repos) => {
        await repos.sessions.create(ses('ses_b2'));
        throw new Error('refused after its write');
      }),
      counted((repos) => repos.sessions.create(ses('ses_b3'))),
    ];
    // The refusal is answered once the others have committed (a caller that lost a race reads the winner's write).
    const seenAtRefusal = writes[1]?.write.catch(() => sessionIds());
    const outcomes = await Promise.all(writes.map((w) => outcome(w.write)));
    expect(await seenAtRefusal).toEqual(expect.arrayContaining(['ses_b1', 'ses_b3']));
    expect(outcomes).toEqual(['committed', 'refused: refused after its write', 'committed']);
    // The write before it ran twice, the one after it once (it had not run when the batch was rolled back).
    expect(writes.map((w) => w.runs)).toEqual([2, 1, 1]);
    expect((await sessionIds()).filter((id) => id.startsWith('ses_b'))).toEqual(['ses_b1', 'ses_b3']);
    const [first, second, ...more] = wire.transactions();
    expect(more).toHaveLength(0);
    expect(first?.at(-1)?.statements).toEqual(['ROLLBACK']);
    expect(inserts(first)).toBe(2);
    expect(second?.at(-1)?.statements).toEqual(['COMMIT']);
    expect(inserts(second)).toBe(2);
    // One for each write run again (the refused one keeps its refusal and is not run again).
    expect(trips(second).filter((x) => x === 'SAVEPOINT group_commit')).toHaveLength(2);
  });

  it('a failed statement (it aborts a PostgreSQL transaction) is undone the same way, and only its own write is refused', async () => {
    const outcomes = await Promise.all(
      [
        tx((repos) => repos.sessions.create(ses('ses_c1'))),
        tx(async (repos) => {
          await repos.sessions.create(ses('ses_c2'));
          await repos.sessions.create(ses('ses_taken'));
        }),
        tx((repos) => repos.sessions.create(ses('ses_c3'))),
      ].map(outcome),
    );
    expect(outcomes[0]).toBe('committed');
    expect(outcomes[1]).toMatch(/^refused: .*Unique constraint failed/);
    expect(outcomes[2]).toBe('committed');
    expect((await sessionIds()).filter((id) => id.startsWith('ses_c'))).toEqual(['ses_c1', 'ses_c3']);
    expect(wire.transactions().map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
  });

  it('a todo write of one statement that did record, then refused, is undone the same way', async () => {
    const before = (await reader.db.session.findUniqueOrThrow({ where: { id: 'ses_taken' } })).todoRevision;
    const known = await store.todos.latestKnown('ses_taken');
    const outcomes = await Promise.all(
      [
        tx((repos) => repos.sessions.create(ses('ses_t1'))),
        tx(async (repos) => {
          const moved = await repos.todos.advance('ws_1', before, draft('tdu_undone', before + 1));
          throw new Error(`refused after recording at ${moved?.todoRevision}`);
        }),
        tx((repos) => repos.sessions.create(ses('ses_t2'))),
      ].map(outcome),
    );
    expect(outcomes).toEqual(['committed', `refused: refused after recording at ${before + 1}`, 'committed']);
    expect((await reader.db.session.findUniqueOrThrow({ where: { id: 'ses_taken' } })).todoRevision).toBe(before);
    expect(await reader.db.todoUpdate.count({ where: { id: 'tdu_undone' } })).toBe(0);
    // The card rolled back is not remembered as the session's list (a later write would be diffed against it).
    expect(await store.todos.latestKnown('ses_taken')).toEqual(known);
    expect(wire.transactions().map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
  });

  it('a one-task write of one statement that did commit its task, then refused, is undone the same way', async () => {
    const outcomes = await Promise.all(
      [
        tx((repos) => repos.sessions.create(ses('ses_k1'))),
        tx(async (repos) => {
          const records = await taskWrite(repos, 1);
          throw new Error(`refused after recording change ${records?.[0]?.seq}`);
        }),
        tx((repos) => repos.sessions.create(ses('ses_k2'))),
      ].map(outcome),
    );
    expect(outcomes).toEqual(['committed', 'refused: refused after recording change 1', 'committed']);
    expect(await store.tasks.get('tl_1', 'T-1')).toMatchObject({ version: 1, subject: taskRec('T-1', 1).subject });
    expect(await store.tasks.feedPosition('tl_1')).toBe(0);
    expect(await store.tasks.changesAfter('tl_1', 0, 10)).toEqual([]);
    expect(wire.transactions().map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
  });

  it('a write refused with a call it made still running is undone with it: the call is not left to the next write', async () => {
    const commits = groupCommit(writer);
    const outcomes = await Promise.all(
      [
        commits.run(async (db) => {
          // Not awaited: Prisma reaches the connection only after work of its own, by then the write was refused.
          void db.session.update({ where: { id: 'ses_taken' }, data: { title: 'stray' } }).then(
            () => undefined,
            () => undefined,
          );
          throw new Error('refused with a call running');
        }),
        commits.run((db) => rawSql(db).$queryRaw`UPDATE "Session" SET "agentName" = ${'after the stray'} WHERE "id" = 'ses_taken'`),
      ].map(outcome),
    );
    expect(outcomes).toEqual(['refused: refused with a call running', 'committed']);
    const row = await reader.db.session.findUniqueOrThrow({ where: { id: 'ses_taken' } });
    expect([row.agentName, row.title]).toEqual(['after the stray', null]);
  });

  it('a todo card is known to the writes after it in the batch run again, never one its savepoint undid', async () => {
    const before = (await reader.db.session.findUniqueOrThrow({ where: { id: 'ses_taken' } })).todoRevision;
    const [, kept, undone, known] = await Promise.all([
      // Refused after its write: the batch is run again, each write in a savepoint.
      tx(async (repos) => {
        await repos.sessions.create(ses('ses_s1'));
        throw new Error('refused after its write');
      }).catch(() => 'refused'),
      tx((repos) => repos.todos.advance('ws_1', before, draft('tdu_kept', before + 1))),
      tx(async (repos) => {
        await repos.todos.advance('ws_1', before + 1, draft('tdu_rolled_back', before + 2));
        throw new Error('refused after recording');
      }).catch((error: unknown) => (error as Error).message),
      tx(async (repos) => (await repos.todos.latestKnown('ses_taken'))?.id),
    ]);
    expect([kept?.recorded, undone, known]).toEqual([true, 'refused after recording', 'tdu_kept']);
    expect(trips(wire.transactions().at(-1)).filter((x) => x === 'SAVEPOINT group_commit').length).toBeGreaterThan(0);
  });

  it('a change made by a SELECT (a data-modifying WITH) counts as a change', async () => {
    await expectUndone('kept', async (db) => {
      await rawSql(db)
        .$queryRaw`WITH made AS (UPDATE "Session" SET "title" = 'changed' WHERE "id" = 'ses_taken' RETURNING "id") SELECT "id" FROM made`;
      throw new Error('refused after a WITH … UPDATE');
    });
    expect(wire.transactions().map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
  });

  it('a write command that touched no row but changed data through its WITH counts as a change', async () => {
    await expectUndone('kept, with', async (db) => {
      await rawSql(db).$queryRaw`WITH made AS (UPDATE "Session" SET "title" = 'through with' WHERE "id" = 'ses_taken' RETURNING "id")
        UPDATE "Session" SET "agentName" = 'none' WHERE false`;
      throw new Error('refused after an UPDATE of no row');
    });
  });

  it('a statement sent and not yet answered when its write is refused counts as a change', async () => {
    await expectUndone('kept too', (db) => {
      // Sent at once on the writer's connection; the write is refused before its answer comes.
      void rawSql(db).$queryRaw`UPDATE "Session" SET "title" = 'late' WHERE "id" = 'ses_taken'`.catch(() => undefined);
      return Promise.reject(new Error('refused while its statement runs'));
    });
  });

  it('a batch run again keeps a write refused the second time to its savepoint: a batch runs at most twice', async () => {
    let flips = 0;
    const writes = [
      counted((repos) => repos.sessions.create(ses('ses_r1'))),
      counted(async (repos) => {
        await repos.sessions.create(ses('ses_r2'));
        if (++flips === 2) throw new Error('refused the second time');
      }),
      counted(async (repos) => {
        await repos.sessions.create(ses('ses_r3'));
        throw new Error('refused after its write');
      }),
    ];
    const outcomes = await Promise.all(writes.map((w) => outcome(w.write)));
    expect(outcomes).toEqual(['committed', 'refused: refused the second time', 'refused: refused after its write']);
    expect(writes.map((w) => w.runs)).toEqual([2, 2, 1]);
    expect((await sessionIds()).filter((id) => id.startsWith('ses_r'))).toEqual(['ses_r1']);
    const transactions = wire.transactions();
    expect(transactions.map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
    expect(trips(transactions[1])).toContain('ROLLBACK TO SAVEPOINT group_commit');
  });

  it('a batch whose last write is refused still commits the ones before it', async () => {
    const outcomes = await Promise.all(
      [tx((repos) => repos.sessions.create(ses('ses_e'))), tx((repos) => repos.sessions.create(ses('ses_taken')))].map(outcome),
    );
    expect(outcomes[0]).toBe('committed');
    expect(outcomes[1]).toMatch(/^refused: .*Unique constraint failed/);
    expect(await sessionIds()).toContain('ses_e');
  });

  it('a write alone takes no savepoint, and its refusal rolls its transaction back', async () => {
    expect(await outcome(tx((repos) => repos.sessions.create(ses('ses_taken'))))).toMatch(/^refused: .*Unique constraint failed/);
    expect(await outcome(tx((repos) => repos.sessions.create(ses('ses_f'))))).toBe('committed');
    expect(wire.count('SAVEPOINT')).toBe(0);
    expect(wire.transactions().map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
  });

  it('holds at most 32 writes in one transaction: more subtransactions than a backend caches would slow every snapshot', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `ses_many_${String(i).padStart(2, '0')}`);
    await Promise.all(ids.map((id) => tx((repos) => repos.sessions.create(ses(id)))));
    expect((await sessionIds()).filter((id) => id.startsWith('ses_many_'))).toEqual(ids);
    expect(wire.transactions().map(inserts)).toEqual([32, 8]);
    expect(wire.count('SAVEPOINT')).toBe(0);
  });

  it('a write whose lock wait ran out ends its batch: the writes after it go into the next transaction, none waits again', async () => {
    await whileSessionLocked(async (busyStore) => {
      const errors: unknown[] = [];
      const outcomes = await Promise.all(
        [
          busyStore.transaction((repos) => repos.sessions.create(ses('ses_g1'))),
          busyStore
            .transaction((repos) => repos.todos.advance('ws_1', undefined, draft('tdu_locked', 1)))
            .catch((e: unknown) => {
              errors.push(e);
              throw e;
            }),
          busyStore.transaction((repos) => repos.sessions.create(ses('ses_g2'))),
        ].map(outcome),
      );
      expect(outcomes[0]).toBe('committed');
      expect(outcomes[1]).toMatch(/^refused: /);
      expect(errors.some((e) => isDatabaseBusy(e) || (e as Error).name === 'StoreUnavailable')).toBe(true);
      expect(outcomes[2]).toBe('committed');
      expect(await sessionIds()).toEqual(expect.arrayContaining(['ses_g1', 'ses_g2']));
      // The failed statement rolled the batch back; the other two ran again in the next transaction, which did not
      // wait for the lock again.
      const transactions = wire.transactions();
      expect(transactions.map(inserts)).toEqual([1, 2]);
      expect(transactions.map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
    });
  });
});

describe('writes side by side on PostgreSQL (footprints apart)', () => {
  /** Work with a footprint, counting how often it ran. */
  function apart<T>(footprint: string, work: (repos: Repositories) => Promise<T>) {
    const counter = {
      runs: 0,
      write: store.transaction(
        (repos) => {
          counter.runs++;
          return work(repos);
        },
        { footprint },
      ),
    };
    return counter;
  }
  /** Round trips of the transactions since the reset, and how many were unanswered before each. */
  const behind = () => wire.tally().trips.map((t) => t.behind);
  const locks = () => wire.tally().texts.filter((t) => /FROM "TaskList" WHERE "id" = \$1 FOR UPDATE/.test(t)).length;

  it('go out together; a refusal with no statement failed stands, whatever it changed undone; the others run again', async () => {
    const writes = [
      apart('w:1', (repos) => repos.sessions.create(ses('ses_s1'))),
      apart('w:2', async (repos) => {
        await repos.sessions.create(ses('ses_s2'));
        throw new Error('refused after its write');
      }),
      apart('w:3', (repos) => repos.sessions.create(ses('ses_s3'))),
    ];
    const outcomes = await Promise.all(writes.map((w) => outcome(w.write)));
    expect(outcomes).toEqual(['committed', 'refused: refused after its write', 'committed']);
    // The first run sent the three inserts together; the refused write was not run again.
    expect(Math.max(...behind())).toBeGreaterThan(0);
    expect(writes.map((w) => w.runs)).toEqual([2, 1, 2]);
    expect((await sessionIds()).filter((id) => /^ses_s\d/.test(id))).toEqual(['ses_s1', 'ses_s3']);
    const [first, second, ...more] = wire.transactions();
    expect(more).toHaveLength(0);
    expect(first?.at(-1)?.statements).toEqual(['ROLLBACK']);
    expect(second?.at(-1)?.statements).toEqual(['COMMIT']);
    expect(trips(second).filter((x) => x === 'SAVEPOINT group_commit')).toHaveLength(2);
  });

  it('a failed statement among them aborts all: every write runs again, one at a time, and only its own is refused', async () => {
    const writes = [
      apart('w:1', (repos) => repos.sessions.create(ses('ses_f1'))),
      apart('w:2', async (repos) => {
        await repos.sessions.create(ses('ses_f2'));
        await repos.sessions.create(ses('ses_taken'));
      }),
      // Its statement comes after the failed one: refused there ("transaction aborted"), it is run again.
      apart('w:3', async (repos) => {
        await repos.sessions.get('ws_1', 'ses_taken');
        await repos.sessions.create(ses('ses_f3'));
      }),
    ];
    const outcomes = await Promise.all(writes.map((w) => outcome(w.write)));
    expect(outcomes[0]).toBe('committed');
    expect(outcomes[1]).toMatch(/^refused: .*Unique constraint failed/);
    expect(outcomes[2]).toBe('committed');
    expect(writes.map((w) => w.runs)).toEqual([2, 2, 2]);
    expect((await sessionIds()).filter((id) => /^ses_f\d/.test(id))).toEqual(['ses_f1', 'ses_f3']);
    expect(wire.transactions().map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
  });

  it("a list's lock: once for writes side by side; run again, a refused write's savepoint releases it and the next takes it", async () => {
    const lockThen = (after: (repos: Repositories) => Promise<unknown>) => async (repos: Repositories) => {
      await repos.tasks.findList('ws_1', 'default', { hold: true });
      return after(repos);
    };
    const writes = [
      // Refused by a failed statement after its lock: nothing stands, and it is first again in the run with savepoints.
      apart(
        'w:1',
        lockThen((repos) => repos.sessions.create(ses('ses_taken'))),
      ),
      apart(
        'w:2',
        lockThen((repos) => repos.sessions.create(ses('ses_l2'))),
      ),
      apart(
        'w:3',
        lockThen((repos) => repos.sessions.create(ses('ses_l3'))),
      ),
    ];
    const outcomes = await Promise.all(writes.map((w) => outcome(w.write)));
    expect(outcomes[0]).toMatch(/^refused: .*Unique constraint failed/);
    expect(outcomes.slice(1)).toEqual(['committed', 'committed']);
    // First run: one lock for the three. Run again: the refused write's, undone with its savepoint, then the next's.
    expect(locks()).toBe(3);
    expect(wire.transactions().map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
  });

  it('a lock wait run out among them keeps its "busy": the write is not run again to wait as long again', async () => {
    await whileSessionLocked(async (busyStore) => {
      const errors: unknown[] = [];
      const outcomes = await Promise.all(
        [
          busyStore.transaction((repos) => repos.sessions.create(ses('ses_h1')), { footprint: 'w:1' }),
          busyStore
            .transaction((repos) => repos.todos.advance('ws_1', undefined, draft('tdu_locked_apart', 1)), { footprint: 'w:2' })
            .catch((e: unknown) => {
              errors.push(e);
              throw e;
            }),
          // Sent behind the statement that waits: it waits too, then fails as the transaction was aborted.
          busyStore.transaction((repos) => repos.sessions.create(ses('ses_h2')), { footprint: 'w:3' }),
        ].map(outcome),
      );
      expect(outcomes[0]).toBe('committed');
      expect(outcomes[1]).toMatch(/^refused: /);
      expect(errors.some((e) => isDatabaseBusy(e) || (e as Error).name === 'StoreUnavailable')).toBe(true);
      expect(outcomes[2]).toBe('committed');
      expect(await sessionIds()).toEqual(expect.arrayContaining(['ses_h1', 'ses_h2']));
      // The waiting statement was sent once: the others ran again in the next transaction, without it.
      expect(wire.tally().texts.filter((t) => t.includes('UPDATE "Session" SET "todoRevision"'))).toHaveLength(1);
      expect(wire.transactions().map((t) => t.at(-1)?.statements)).toEqual([['ROLLBACK'], ['COMMIT']]);
    });
  });

  it('writes whose footprints overlap go in turn, in the order they came', async () => {
    const order: string[] = [];
    const writes = [
      apart('w:list', async (repos) => {
        await repos.sessions.create(ses('ses_o1'));
        order.push('list');
      }),
      apart('w:list/task:1', async (repos) => {
        await repos.sessions.create(ses('ses_o2'));
        order.push('task 1');
      }),
      apart('w:list/task:1', async (repos) => {
        await repos.sessions.create(ses('ses_o3'));
        order.push('task 1 again');
      }),
    ];
    expect(await Promise.all(writes.map((w) => outcome(w.write)))).toEqual(['committed', 'committed', 'committed']);
    expect(order).toEqual(['list', 'task 1', 'task 1 again']);
    expect(behind().every((n) => n === 0)).toBe(true);
  });
});
