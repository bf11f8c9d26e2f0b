// The store's own path to PostgreSQL: raw statements straight to node-postgres answer what Prisma's $queryRaw answers
// there, and the writer's own transaction (no Prisma interactive transaction) holds Prisma's queries, a query Prisma
// runs in a transaction of its own included.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createTestDatabase, stopTestPostgres } from '../../../tests/support/postgres.ts';
import { isDatabaseBusy, isDatabaseUnreachable } from '../src/db/busy.ts';
import type { DbHandle } from '../src/db/client.ts';
import { rawSql } from '../src/db/direct-sql.ts';
import { adapterOn, openPostgresDb } from '../src/db/postgres-client.ts';
import { applyPostgresMigrations } from '../src/db/postgres-migrations.ts';
import { postgresMigrationsDir } from '../src/db/postgres-schema.ts';
import { Prisma } from '../src/generated/prisma/client.ts';
import { PrismaClient } from '../src/generated/prisma-postgres/client.ts';

let database: TestDatabase;
let writer: DbHandle;
let reader: DbHandle;
const at = new Date('2026-12-05T09:30:00.123Z');

beforeAll(async () => {
  database = await createTestDatabase();
  await applyPostgresMigrations({ url: database.url, migrationsDir: postgresMigrationsDir });
  writer = await openPostgresDb(database.url, { max: 1, lockTimeoutMs: 200 });
  reader = await openPostgresDb(database.url);
  await reader.db.workspace.create({ data: { id: 'ws_1', name: 'one', oneActiveRule: false, createdAt: at } });
  await reader.db.workspace.create({ data: { id: 'ws_2', name: 'two', oneActiveRule: true, createdAt: at } });
}, 120_000);
afterAll(async () => {
  await Promise.all([writer?.db.$disconnect(), reader?.db.$disconnect()]);
  await database?.drop();
  await stopTestPostgres();
});

const names = async () => (await reader.db.workspace.findMany({ orderBy: { id: 'asc' }, select: { id: true } })).map((w) => w.id);

describe('raw statements on PostgreSQL, straight to node-postgres', () => {
  it("answer as Prisma's $queryRaw does: dates, booleans, integers, big integers, decimals, JSON, nulls, text", async () => {
    for (const { db } of [writer, reader]) {
      expect(rawSql(db)).not.toBe(db);
      const sql = (id: string) => Prisma.sql`
        SELECT "id", "name", "oneActiveRule", "createdAt", NULL AS "nothing", COUNT(*) OVER () AS "n", 2.5 AS "half",
               "createdAt" + interval '1 millisecond' AS "later", 'x' || "name" AS "joined", length("name") AS "size",
               '{"a":[1,"b"]}'::jsonb AS "doc", '2026-12-05 09:30:00.5+00'::timestamptz AS "zoned", 0.25::float8 AS "quarter"
        FROM "Workspace" WHERE "id" >= ${id} AND "id" <= ${'ws_2'} ORDER BY "id"`;
      const direct = await rawSql(db).$queryRaw(sql('ws_1'));
      expect(direct).toEqual(await db.$queryRaw(sql('ws_1')));
      const row = (id: string, name: string, oneActiveRule: boolean) => ({
        id,
        name,
        oneActiveRule,
        createdAt: at,
        nothing: null,
        n: 2n,
        half: new Prisma.Decimal('2.5'),
        later: new Date(at.getTime() + 1),
        joined: `x${name}`,
        size: 3,
        doc: { a: [1, 'b'] },
        zoned: new Date('2026-12-05T09:30:00.500Z'),
        quarter: 0.25,
      });
      expect(direct).toEqual([row('ws_1', 'one', false), row('ws_2', 'two', true)]);
    }
  });

  it("bind dates in UTC whatever the time zone of the process, and count an UPDATE's rows", async () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Kolkata';
    try {
      const later = new Date(at.getTime() + 60_000);
      expect(await rawSql(writer.db).$executeRaw`UPDATE "Workspace" SET "createdAt" = ${later} WHERE "id" = ${'ws_1'}`).toBe(1);
      expect(await reader.db.workspace.findUnique({ where: { id: 'ws_1' }, select: { createdAt: true } })).toEqual({ createdAt: later });
      expect(
        await reader.db
          .$queryRaw`SELECT to_char("createdAt", 'YYYY-MM-DD HH24:MI:SS.MS') AS "text" FROM "Workspace" WHERE "id" = ${'ws_1'}`,
      ).toEqual([{ text: '2026-12-05 09:31:00.123' }]);
      expect(await rawSql(reader.db).$queryRaw`SELECT "id" FROM "Workspace" WHERE "createdAt" = ${later}`).toEqual([{ id: 'ws_1' }]);
      expect(await rawSql(writer.db).$executeRaw`UPDATE "Workspace" SET "name" = ${'none'} WHERE "id" = ${null}`).toBe(0);
      await rawSql(writer.db).$executeRaw`UPDATE "Workspace" SET "createdAt" = ${at} WHERE "id" = ${'ws_1'}`;
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it("refuse in Prisma's words for a raw query (P2010), with PostgreSQL's code in the cause", async () => {
    const refused = await rawSql(writer.db)
      .$executeRaw`INSERT INTO "Workspace" ("id", "name", "oneActiveRule", "createdAt") VALUES (${'ws_1'}, ${'dup'}, ${true}, ${at})`.catch(
      (error: unknown) => error,
    );
    expect((refused as Error).message).toBe(
      'Raw query failed. Code: `23505`. Message: `duplicate key value violates unique constraint "Workspace_pkey"`',
    );
    expect((refused as { cause?: { originalCode?: string } }).cause?.originalCode).toBe('23505');
    expect(isDatabaseBusy(refused)).toBe(false);
    expect(await names()).toEqual(['ws_1', 'ws_2']);
  });

  it('answer "busy" for a lock held past the lock timeout', async () => {
    if (!writer.transaction) throw new Error('the PostgreSQL writer runs its own transactions');
    // Another connection holds the row's lock; the writer's statement waits its 200 ms lock timeout, then fails.
    let release!: () => void;
    const holding = reader.db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT 1 FROM "Workspace" WHERE "id" = ${'ws_2'} FOR UPDATE`;
      await new Promise<void>((resolve) => (release = resolve));
    });
    await expect.poll(() => release !== undefined).toBe(true);
    const waited = await writer
      .transaction(() => rawSql(writer.db).$executeRaw`UPDATE "Workspace" SET "name" = ${'late'} WHERE "id" = ${'ws_2'}`)
      .catch((error: unknown) => error);
    release();
    await holding;
    expect((waited as Error).message).toMatch(/^Raw query failed\. Code: `55P03`\./);
    expect(isDatabaseBusy(waited)).toBe(true);
    expect(await reader.db.workspace.findUnique({ where: { id: 'ws_2' }, select: { name: true } })).toEqual({ name: 'two' });
  });
});

describe("the writer's own transaction on PostgreSQL", () => {
  const transaction = () => {
    if (!writer.transaction) throw new Error('the PostgreSQL writer runs its own transactions');
    return writer.transaction;
  };

  it("holds Prisma's queries and a nested create Prisma runs in a transaction of its own (a savepoint), unseen until COMMIT", async () => {
    await transaction()(async (tx) => {
      await tx.workspace.create({
        data: { id: 'ws_3', name: 'three', apiKeys: { create: [{ id: 'k_3', role: 'admin', name: 'k', tokenHash: 'h3' }] } },
      });
      await rawSql(tx).$executeRaw`UPDATE "Workspace" SET "name" = ${'three!'} WHERE "id" = ${'ws_3'}`;
      // The transaction sees its own writes; another connection does not, yet.
      expect(await tx.workspace.findUnique({ where: { id: 'ws_3' }, select: { name: true } })).toEqual({ name: 'three!' });
      expect(await reader.db.workspace.findUnique({ where: { id: 'ws_3' } })).toBeNull();
    });
    expect(
      await reader.db.workspace.findUnique({ where: { id: 'ws_3' }, select: { name: true, apiKeys: { select: { id: true } } } }),
    ).toEqual({ name: 'three!', apiKeys: [{ id: 'k_3' }] });
  });

  it('rolls back everything when its work throws, the nested create too, and lets the next one in', async () => {
    const before = await names();
    const failed = transaction()(async (tx) => {
      await tx.workspace.create({
        data: { id: 'ws_4', name: 'four', apiKeys: { create: [{ id: 'k_4', role: 'admin', name: 'k', tokenHash: 'h4' }] } },
      });
      await rawSql(tx)
        .$executeRaw`INSERT INTO "Workspace" ("id", "name", "oneActiveRule", "createdAt") VALUES (${'ws_5'}, ${'five'}, ${true}, ${at})`;
      throw new Error('refused');
    });
    await expect(failed).rejects.toThrow('refused');
    expect(await names()).toEqual(before);
    expect(await reader.db.apiKey.findUnique({ where: { id: 'k_4' } })).toBeNull();
    await transaction()((tx) => tx.workspace.create({ data: { id: 'ws_6', name: 'six' } }));
    expect(await names()).toEqual([...before, 'ws_6']);
  });

  it("runs Prisma's transactions one at a time when two start at once: each commits or rolls back only its own", async () => {
    const before = await names();
    const key = (id: string, tokenHash: string) => ({ apiKeys: { create: [{ id, role: 'admin' as const, name: 'k', tokenHash }] } });
    await transaction()(async (tx) => {
      const results = await Promise.allSettled([
        tx.workspace.create({ data: { id: 'ws_7', name: 'seven', ...key('k_7', 'h7') } }),
        tx.workspace.create({ data: { id: 'ws_8', name: 'eight', ...key('k_8', 'h7') } }), // the same token hash: refused
        tx.workspace.create({ data: { id: 'ws_9', name: 'nine', ...key('k_9', 'h9') } }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    });
    expect(await names()).toEqual([...before, 'ws_7', 'ws_9']);
    expect(
      (await reader.db.apiKey.findMany({ where: { id: { in: ['k_7', 'k_8', 'k_9'] } }, select: { id: true } })).map((k) => k.id),
    ).toEqual(['k_7', 'k_9']);
  });

  it('leaves the connection usable after a statement aborted the transaction', async () => {
    const before = await names();
    const failed = transaction()(async (tx) => {
      await rawSql(tx)
        .$executeRaw`INSERT INTO "Workspace" ("id", "name", "oneActiveRule", "createdAt") VALUES (${'ws_1'}, ${'dup'}, ${true}, ${at})`;
    });
    await expect(failed).rejects.toThrow(/Code: `23505`/);
    await transaction()((tx) => tx.workspace.create({ data: { id: 'ws_x', name: 'ten' } }));
    expect(await names()).toEqual([...before, 'ws_x']);
  });

  it.each([
    [
      'a Prisma query',
      (tx: Prisma.TransactionClient): PromiseLike<unknown> => tx.workspace.create({ data: { id: 'ws_stray', name: 'stray' } }),
    ],
    [
      'a raw statement',
      (tx: Prisma.TransactionClient): PromiseLike<unknown> =>
        rawSql(tx)
          .$executeRaw`INSERT INTO "Workspace" ("id", "name", "oneActiveRule", "createdAt") VALUES (${'ws_raw_late'}, ${'late'}, ${true}, ${at})`,
    ],
  ])('refuses %s its work sends after it ended, instead of running it on its own', async (_kind, send) => {
    const before = await names();
    let late: Promise<unknown> = Promise.resolve();
    const failed = transaction()(async (tx) => {
      late = new Promise((resolve) => setTimeout(resolve, 100)).then(() => send(tx));
      await Promise.all([new Promise((_, reject) => setTimeout(() => reject(new Error('refused')), 10)), late]);
    });
    await expect(failed).rejects.toThrow('refused');
    await expect(late).rejects.toThrow('the write transaction this statement belongs to has already ended');
    expect(await names()).toEqual(before);
  });

  it('waits for a call its work left running: the statement stays inside the transaction, undone with it, never in the next', async () => {
    const before = await names();
    let stray: Promise<string> = Promise.resolve('not sent');
    const failed = transaction()(async (tx) => {
      // Not awaited: Prisma reaches the connection only after work of its own, and by then the work has thrown.
      stray = tx.workspace.create({ data: { id: 'ws_stray_2', name: 'stray' } }).then(
        () => 'created',
        (error: unknown) => `refused: ${(error as Error).message}`,
      );
      throw new Error('refused');
    });
    await expect(failed).rejects.toThrow('refused');
    // The next transaction begins at once: the stray create would have gone into it and been committed.
    await transaction()((tx) => tx.workspace.create({ data: { id: 'ws_stray_next', name: 'next' } }));
    expect(await stray).toMatch(/^(created|refused: .*)$/);
    const after = await names();
    expect(after.filter((id) => !before.includes(id))).toEqual(['ws_stray_next']);
  });

  it('fails at COMMIT when a failed statement left the transaction aborted, and commits none of it', async () => {
    const before = await names();
    const failed = transaction()(async (tx) => {
      await tx.workspace.create({ data: { id: 'ws_y', name: 'lost' } });
      // Caught without a savepoint: PostgreSQL keeps the transaction aborted, and answers COMMIT with ROLLBACK.
      await rawSql(tx)
        .$executeRaw`INSERT INTO "Workspace" ("id", "name", "oneActiveRule", "createdAt") VALUES (${'ws_1'}, ${'dup'}, ${true}, ${at})`.catch(
        () => undefined,
      );
    });
    await expect(failed).rejects.toThrow('the write transaction was rolled back at COMMIT: a statement in it had failed');
    expect(await names()).toEqual(before);
  });

  it('survives its connection breaking between two statements: the write fails, the next one gets a new connection', async () => {
    const failed = transaction()(async (tx) => {
      const [row] = await rawSql(tx).$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS "pid"`;
      const pid = row?.pid ?? 0;
      await reader.db.$queryRaw`SELECT pg_terminate_backend(${pid}::int)`;
      // The broken connection's 'error' event comes while no statement runs (unhandled, it would end the process).
      await new Promise((resolve) => setTimeout(resolve, 300));
      await rawSql(tx).$queryRaw`SELECT 1 AS "one"`;
    });
    const error = await failed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(isDatabaseUnreachable(error)).toBe(true);
    await transaction()((tx) => tx.workspace.create({ data: { id: 'ws_z', name: 'after' } }));
    expect(await names()).toContain('ws_z');
  });

  it('answers "unreachable" when no PostgreSQL listens where the writer connects', async () => {
    const nowhere = await openPostgresDb('postgresql://nobody:secret@127.0.0.1:1/none', { max: 1 });
    try {
      if (!nowhere.transaction) throw new Error('the PostgreSQL writer runs its own transactions');
      const error = await nowhere.transaction(() => Promise.resolve(1)).catch((e: unknown) => e);
      expect(isDatabaseUnreachable(error)).toBe(true);
    } finally {
      await nowhere.db.$disconnect();
    }
  });

  it("runs Prisma's statements on the server's own pool, handed to an adapter that read it as a config; one that cannot take it refuses", async () => {
    const pool = new pg.Pool({ connectionString: database.url });
    try {
      const taken = new PrismaPg(pool);
      expect(adapterOn(pool, taken)).toBe(taken);
      // An adapter given what it does not know as a pool (another copy of pg's) reads it as a config, here one without
      // an address (localhost:5432, where nothing listens): it is handed the pool, and its queries go through it.
      const other = adapterOn(pool, new PrismaPg({}));
      expect((other as unknown as { externalPool: unknown }).externalPool).toBe(pool);
      const client = new PrismaClient({ adapter: other });
      try {
        expect(await client.workspace.count({ where: { id: 'ws_1' } })).toBe(1);
      } finally {
        await client.$disconnect();
      }
      // One that cannot take it refuses to start.
      const frozen = new PrismaPg({});
      Object.freeze(frozen);
      expect(() => adapterOn(pool, frozen)).toThrow(
        "the PostgreSQL adapter did not take the server's connection pool (two copies of pg loaded?)",
      );
    } finally {
      await pool.end();
    }
  });
});
