// The Prisma store's group commit on PostgreSQL: transactions queued in one turn share one BEGIN … COMMIT on the
// writer's connection, each in its own savepoint, so work that throws after writing, or whose statement fails (which
// aborts a PostgreSQL transaction until it is rolled back to a savepoint), undoes only its own writes.
import type { Repositories, Store } from '@agent-tasks/core';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sessionRecord as ses, workspaceRecord as ws } from '../../../packages/core/test/record-builders.ts';
import { type WireCounter, startWireCounter } from '../../../tests/support/pg-wire-counter.ts';
import { type TestDatabase, createTestDatabase, stopTestPostgres } from '../../../tests/support/postgres.ts';
import { isDatabaseBusy } from '../src/db/busy.ts';
import type { DbHandle } from '../src/db/client.ts';
import { openPostgresDb } from '../src/db/postgres-client.ts';
import { applyPostgresMigrations } from '../src/db/postgres-migrations.ts';
import { postgresMigrationsDir } from '../src/db/postgres-schema.ts';
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

describe('the group commit on PostgreSQL', () => {
  it('work queued together shares one transaction; a write refused after writing, or by a failed statement, undoes only its own', async () => {
    const outcomes = await Promise.all(
      [
        tx((repos) => repos.sessions.create(ses('ses_a'))),
        tx(async (repos) => {
          await repos.sessions.create(ses('ses_b'));
          throw new Error('refused after its write');
        }),
        // A unique violation: PostgreSQL aborts the transaction until it is rolled back to the write's savepoint.
        tx(async (repos) => {
          await repos.sessions.create(ses('ses_c'));
          await repos.sessions.create(ses('ses_taken'));
        }),
        tx((repos) => repos.sessions.create(ses('ses_d'))),
      ].map(outcome),
    );
    expect(outcomes[0]).toBe('committed');
    expect(outcomes[1]).toBe('refused: refused after its write');
    expect(outcomes[2]).toMatch(/^refused: .*Unique constraint failed/);
    expect(outcomes[3]).toBe('committed');
    expect(await sessionIds()).toEqual(['ses_a', 'ses_d', 'ses_taken']);
    const transactions = wire.transactions();
    expect(transactions).toHaveLength(1);
    expect(transactions[0]?.at(-1)?.statements).toEqual(['COMMIT']);
    expect(wire.count('ROLLBACK')).toBe(2); // the two refused writes, each to its own savepoint
  });

  it('a batch whose last write is refused still commits the ones before it', async () => {
    const outcomes = await Promise.all(
      [tx((repos) => repos.sessions.create(ses('ses_e'))), tx((repos) => repos.sessions.create(ses('ses_taken')))].map(outcome),
    );
    expect(outcomes[0]).toBe('committed');
    expect(outcomes[1]).toMatch(/^refused: .*Unique constraint failed/);
    expect(await sessionIds()).toContain('ses_e');
    expect(wire.transactions()).toHaveLength(1);
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
    expect(wire.transactions().map((t) => t.filter((trip) => trip.statements.includes('SAVEPOINT group_commit')).length)).toEqual([32, 8]);
  });

  it('a write whose lock wait ran out ends its batch: the writes after it go into the next transaction, none waits again', async () => {
    const busyWriter = await openPostgresDb(wire.url, { max: 1, lockTimeoutMs: 300 });
    const busyStore = prismaStore(busyWriter, reader.db, { replicas: { claimLeaseMs: 60_000 } });
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM "Session" WHERE "id" = $1 FOR UPDATE', ['ses_taken']);
      wire.reset();
      const errors: unknown[] = [];
      const outcomes = await Promise.all(
        [
          busyStore.transaction((repos) => repos.sessions.create(ses('ses_g1'))),
          busyStore
            .transaction((repos) => repos.sessions.advanceTodoRevision('ws_1', 'ses_taken', undefined))
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
      // The third write ran in a transaction of its own, after the one whose lock wait ran out.
      const sessionsCreated = wire
        .transactions()
        .map((t) => t.flatMap((trip) => trip.statements).filter((x) => x.includes('INSERT INTO')).length);
      expect(sessionsCreated).toEqual([1, 1]);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      await busyWriter.db.$disconnect();
    }
  });
});
