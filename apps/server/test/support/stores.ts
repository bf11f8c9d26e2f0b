// The two Store implementations under one contract: core's in-memory fake and the Prisma store on a fresh, migrated
// SQLite file; each with a whole-state snapshot (to show a rollback left nothing) and its way of refusing a write.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '@agent-tasks/core';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { ConstraintError, MemoryStore } from '../../../../packages/core/test/memory-store.ts';
import { openDb } from '../../src/db/client.ts';
import { migrationsDir } from '../../src/db/database-file.ts';
import { applyMigrations } from '../../src/db/schema-engine.ts';
import { prismaStore } from '../../src/repositories/prisma-store.ts';

export interface StoreUnderTest {
  store: Store;
  /** Everything stored, to compare before and after work that failed. */
  snapshot(): unknown;
  /** Asserts the write is refused by a constraint; `memoryText` is what the in-memory fake says. */
  refuses(write: Promise<unknown>, memoryText: string): Promise<void>;
  close(): Promise<void>;
}

export interface StoreKind {
  name: string;
  /** Once per file (the Prisma kind migrates a template database here). */
  setup(): Promise<void>;
  teardown(): void;
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
      snapshot: () => store.snapshot(),
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
      return {
        store,
        snapshot() {
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
          await Promise.all([writer.db.$disconnect(), reader.db.$disconnect()]);
        },
      };
    },
  };
}
