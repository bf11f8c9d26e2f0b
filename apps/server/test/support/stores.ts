// The Store implementations under one contract: core's in-memory fake, the Prisma store on a fresh, migrated SQLite file
// and on a fresh, migrated PostgreSQL database; each with a whole-state snapshot (to show a rollback left nothing) and
// its way of refusing a write.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '@agent-tasks/core';
import Database from 'better-sqlite3';
import pg from 'pg';
import { expect } from 'vitest';
import { ConstraintError, MemoryStore } from '../../../../packages/core/test/memory-store.ts';
import { sessionRecord, workspaceRecord } from '../../../../packages/core/test/record-builders.ts';
import { type Db, openDb } from '../../src/db/client.ts';
import { migrationsDir } from '../../src/db/database-file.ts';
import { openPostgresDb } from '../../src/db/postgres-client.ts';
import { applyPostgresMigrations } from '../../src/db/postgres-migrations.ts';
import { postgresMigrationsDir } from '../../src/db/postgres-schema.ts';
import { applyMigrations } from '../../src/db/schema-engine.ts';
import { prismaStore } from '../../src/repositories/prisma-store.ts';
import { type TestDatabase, createTestDatabase, stopTestPostgres } from '../../../../tests/support/postgres.ts';

export interface StoreUnderTest {
  store: Store;
  /** Everything stored, to compare before and after work that failed. */
  snapshot(): Promise<unknown>;
  /** Asserts the write is refused by a constraint; `memoryText` is what the in-memory fake says. */
  refuses(write: Promise<unknown>, memoryText: string): Promise<void>;
  /** A second store on the same database, as another process or replica opens it (the Prisma kinds; closed with this). */
  another?(): Promise<Store>;
  close(): Promise<void>;
}

export interface StoreKind {
  name: string;
  /** The outbox's `due` claims what it answers, one message a channel, leased (PostgreSQL, where replicas share the
   * outbox: tests/replicas.test.ts); the contract's single-server `due` orderings do not apply. */
  claimsDue?: boolean;
  /** Once per file (the Prisma kind migrates a template database here). */
  setup(): Promise<void>;
  teardown(): void | Promise<void>;
  open(): Promise<StoreUnderTest>;
}

export const memoryKind: StoreKind = {
  name: 'in-memory store',
  setup: async () => {},
  teardown: () => {},
  async open() {
    const store = new MemoryStore();
    return {
      store,
      snapshot: async () => store.snapshot(),
      async refuses(write, memoryText) {
        const error = await write.then(
          () => expect.fail('expected the write to be refused'),
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ConstraintError);
        expect((error as Error).message).toContain(memoryText);
      },
      close: async () => {},
    };
  },
};

/** A unique, foreign-key or missing-row refusal from SQLite through Prisma (never some other failure). */
const constraintFailure =
  /Unique constraint failed|Foreign key constraint violated|UNIQUE constraint failed|FOREIGN KEY constraint failed|No record was found|does not exist|Record to update not found/;

export function prismaKind(): StoreKind {
  let dir = '';
  let template = '';
  let count = 0;
  return {
    name: 'Prisma store on SQLite',
    async setup() {
      dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-store-contract-'));
      template = path.join(dir, 'template.db');
      await applyMigrations({ databaseFile: template, migrationsDir });
    },
    teardown: () => rmSync(dir, { recursive: true, force: true }),
    async open() {
      const file = path.join(dir, `store-${++count}.db`);
      copyFileSync(template, file);
      const writer = await openDb(file);
      const reader = await openDb(file);
      const store = prismaStore(writer, reader.db);
      const others: Db[] = [];
      return {
        store,
        async another() {
          const [otherWriter, otherReader] = [await openDb(file), await openDb(file)];
          others.push(otherWriter.db, otherReader.db);
          return prismaStore(otherWriter, otherReader.db);
        },
        async snapshot() {
          const db = new Database(file, { readonly: true });
          try {
            const tables = db
              .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' AND name <> 'TaskSearch' AND name NOT LIKE 'TaskSearch\\_%' ESCAPE '\\' ORDER BY name",
              )
              .pluck()
              .all() as string[];
            return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all()]));
          } finally {
            db.close();
          }
        },
        async refuses(write) {
          const error = await write.then(
            () => expect.fail('expected the write to be refused'),
            (e: unknown) => e,
          );
          expect(String((error as Error)?.message ?? error)).toMatch(constraintFailure);
        },
        async close() {
          await Promise.all([writer.db, reader.db, ...others].map((db) => db.$disconnect()));
        },
      };
    },
  };
}

/** PostgreSQL's unique and foreign-key violations (SQLSTATE 23505, 23503) as Prisma's raw queries report them. */
const postgresConstraintFailure =
  /Code: `2350[35]`|Unique constraint failed|Foreign key constraint violated|No record was found|Record to update not found/;

/** A value of a row as a sortable, comparable text (PostgreSQL answers bigints and dates). */
const cell = (value: unknown) => (typeof value === 'bigint' ? `${value}n` : value instanceof Date ? value.toISOString() : value);

/** Runs one statement on the server of `databaseUrl`, connected to its `postgres` database. */
async function onServer(databaseUrl: string, sql: string) {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The Prisma store on PostgreSQL as the server runs it there: writes that queue share a transaction (group commit with
 * savepoints, at most 32), task lists locked per write, the tsvector search. One database migrated once, as the template of a fresh one per test; the
 * cluster is the suite's or this file's.
 */
export function postgresKind(): StoreKind {
  let template: TestDatabase | null = null;
  let count = 0;
  return {
    name: 'Prisma store on PostgreSQL',
    claimsDue: true,
    async setup() {
      template = await createTestDatabase();
      await applyPostgresMigrations({ url: template.url, migrationsDir: postgresMigrationsDir });
    },
    async teardown() {
      await template?.drop();
      await stopTestPostgres();
    },
    async open() {
      if (!template) throw new Error('postgresKind: setup() first');
      const templateName = new URL(template.url).pathname.slice(1);
      const name = `${templateName}_${++count}`;
      await onServer(template.url, `CREATE DATABASE "${name}" TEMPLATE "${templateName}"`);
      const url = new URL(template.url);
      url.pathname = `/${name}`;
      const writer = await openPostgresDb(url.toString(), { max: 1 });
      const reader = await openPostgresDb(url.toString(), { max: 2 });
      const store = prismaStore(writer, reader.db, { replicas: { claimLeaseMs: 60_000 } });
      const others: Db[] = [];
      return {
        store,
        async another() {
          const [otherWriter, otherReader] = [
            await openPostgresDb(url.toString(), { max: 1 }),
            await openPostgresDb(url.toString(), { max: 2 }),
          ];
          others.push(otherWriter.db, otherReader.db);
          return prismaStore(otherWriter, otherReader.db, { replicas: { claimLeaseMs: 60_000 } });
        },
        async snapshot() {
          const tables = await reader.db.$queryRawUnsafe<{ name: string }[]>(
            "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_%' ORDER BY table_name",
          );
          const entries = await Promise.all(
            tables.map(async ({ name }) => {
              const rows = await reader.db.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT * FROM "${name}"`);
              const texts = rows.map((row) => JSON.stringify(Object.entries(row).map(([k, v]) => [k, cell(v)]))).sort();
              return [name, texts] as const;
            }),
          );
          return Object.fromEntries(entries);
        },
        async refuses(write) {
          const error = await write.then(
            () => expect.fail('expected the write to be refused'),
            (e: unknown) => e,
          );
          expect(String((error as Error)?.message ?? error)).toMatch(postgresConstraintFailure);
        },
        async close() {
          await Promise.all([writer.db, reader.db, ...others].map((db) => db.$disconnect()));
          await onServer(url.toString(), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        },
      };
    },
  };
}

/** `work` on a store of `kind` holding workspace ws_1 and session ses_1; the store closed and removed after. */
export async function withSeededStore(kind: StoreKind, work: (under: StoreUnderTest) => Promise<void>) {
  await kind.setup();
  const under = await kind.open();
  try {
    await under.store.transaction(async (repos) => {
      await repos.workspaces.create(workspaceRecord('ws_1'));
      await repos.sessions.create(sessionRecord('ses_1'));
    });
    await work(under);
  } finally {
    await under.close();
    await kind.teardown();
  }
}
