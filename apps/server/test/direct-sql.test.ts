// The store's own path to SQLite: raw statements straight to the connection answer what Prisma's $queryRaw answers, and
// the store's own write transaction holds Prisma's queries, a query Prisma runs in a transaction of its own included.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/db/client.ts';
import { rawSql } from '../src/db/direct-sql.ts';
import { openMigrated } from '../src/db/local-database.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-direct-sql-'));
let handle: DbHandle;
const at = new Date('2026-12-05T09:30:00.123Z');

beforeAll(async () => {
  handle = (await openMigrated({ databaseFile: path.join(dir, 'db.sqlite') })).handle;
  await handle.db.workspace.create({ data: { id: 'ws_1', name: 'one', oneActiveRule: false, createdAt: at } });
  await handle.db.workspace.create({ data: { id: 'ws_2', name: 'two', oneActiveRule: true, createdAt: at } });
});
afterAll(async () => {
  await handle.db.$disconnect();
  rmSync(dir, { recursive: true, force: true });
});

describe('raw statements on our SQLite connection', () => {
  it("answer as Prisma's $queryRaw does: dates, booleans, integers, nulls, text, and untyped expressions", async () => {
    const { db } = handle;
    expect(rawSql(db)).not.toBe(db);
    const statement = (id: string) => db.$queryRaw`
      SELECT "id", "name", "oneActiveRule", "createdAt", NULL AS "nothing", COUNT(*) OVER () AS "n", 2.5 AS "half",
             "createdAt" + 1 AS "later", 'x' || "name" AS "joined"
      FROM "Workspace" WHERE "id" >= ${id} ORDER BY "id"`;
    const direct = await rawSql(db).$queryRaw`
      SELECT "id", "name", "oneActiveRule", "createdAt", NULL AS "nothing", COUNT(*) OVER () AS "n", 2.5 AS "half",
             "createdAt" + 1 AS "later", 'x' || "name" AS "joined"
      FROM "Workspace" WHERE "id" >= ${'ws_1'} ORDER BY "id"`;
    expect(direct).toEqual(await statement('ws_1'));
    expect(direct).toEqual([
      {
        id: 'ws_1',
        name: 'one',
        oneActiveRule: false,
        createdAt: at,
        nothing: null,
        n: 2,
        half: 2.5,
        later: at.getTime() + 1,
        joined: 'xone',
      },
      {
        id: 'ws_2',
        name: 'two',
        oneActiveRule: true,
        createdAt: at,
        nothing: null,
        n: 2,
        half: 2.5,
        later: at.getTime() + 1,
        joined: 'xtwo',
      },
    ]);
  });

  it("bind dates, booleans and nulls as Prisma does, and count an UPDATE's rows", async () => {
    const { db } = handle;
    const later = new Date(at.getTime() + 60_000);
    expect(
      await rawSql(db).$executeRaw`UPDATE "Workspace" SET "createdAt" = ${later}, "oneActiveRule" = ${true} WHERE "id" = ${'ws_1'}`,
    ).toBe(1);
    expect(await db.workspace.findUnique({ where: { id: 'ws_1' }, select: { createdAt: true, oneActiveRule: true } })).toEqual({
      createdAt: later,
      oneActiveRule: true,
    });
    expect(await rawSql(db).$queryRaw`SELECT "id" FROM "Workspace" WHERE "createdAt" = ${later} AND "oneActiveRule" = ${true}`).toEqual([
      { id: 'ws_1' },
    ]);
    expect(await rawSql(db).$executeRaw`UPDATE "Workspace" SET "name" = ${'none'} WHERE "id" = ${null}`).toBe(0);
  });

  it("refuse in SQLite's own words, with the adapter's error (its kind) as the cause", async () => {
    const { db } = handle;
    const refused = await rawSql(db)
      .$executeRaw`INSERT INTO "Workspace" ("id", "name", "oneActiveRule", "createdAt") VALUES (${'ws_1'}, ${'dup'}, ${true}, ${at})`.catch(
      (error: unknown) => error,
    );
    expect(String((refused as Error).message)).toBe('UNIQUE constraint failed: Workspace.id');
    expect((refused as { cause?: { cause?: { kind?: string } } }).cause?.cause?.kind).toBe('UniqueConstraintViolation');
  });
});

describe("the store's own write transaction", () => {
  const transaction = () => {
    if (!handle.transaction) throw new Error('SQLite handles run their own transactions');
    return handle.transaction;
  };
  const names = async () => (await handle.db.workspace.findMany({ orderBy: { id: 'asc' }, select: { id: true } })).map((w) => w.id);

  it('holds a nested create Prisma runs in a transaction of its own (a savepoint), committed with it', async () => {
    await transaction()(async (tx) => {
      await tx.workspace.create({
        data: {
          id: 'ws_3',
          name: 'three',
          sessions: { create: [] },
          apiKeys: { create: [{ id: 'k_3', role: 'admin', name: 'k', tokenHash: 'h3' }] },
        },
      });
      await rawSql(tx).$executeRaw`UPDATE "Workspace" SET "name" = ${'three!'} WHERE "id" = ${'ws_3'}`;
    });
    expect(
      await handle.db.workspace.findUnique({ where: { id: 'ws_3' }, select: { name: true, apiKeys: { select: { id: true } } } }),
    ).toEqual({
      name: 'three!',
      apiKeys: [{ id: 'k_3' }],
    });
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
    expect(await handle.db.apiKey.findUnique({ where: { id: 'k_4' } })).toBeNull();
    await transaction()((tx) => tx.workspace.create({ data: { id: 'ws_6', name: 'six' } }));
    expect(await names()).toEqual([...before, 'ws_6']);
  });

  it("runs Prisma's transactions one at a time when two start at once: each commits or rolls back only its own", async () => {
    const before = await names();
    const key = (id: string, tokenHash: string) => ({ apiKeys: { create: [{ id, role: 'admin', name: 'k', tokenHash }] } });
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
      (await handle.db.apiKey.findMany({ where: { id: { in: ['k_7', 'k_8', 'k_9'] } }, select: { id: true } })).map((k) => k.id),
    ).toEqual(['k_7', 'k_9']);
  });
});
