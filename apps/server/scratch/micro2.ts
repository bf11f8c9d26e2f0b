import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { SqliteAdapterFactory } from '../src/db/sqlite-adapter.ts';
import { applyMigrations } from '../src/db/schema-engine.ts';
import { migrationsDir } from '../src/db/database-file.ts';
import Database from 'better-sqlite3';
const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'micro-')), 'm.db');
await applyMigrations({ databaseFile: file, migrationsDir });
const raw = new Database(file);
raw.exec(`INSERT INTO Workspace (id, name, createdAt) VALUES ('w1','w',0); INSERT INTO Session (id, workspaceId, tokenHash, openedByKey, createdAt) VALUES ('s1','w1','h1','k',0)`);
const db = new PrismaClient({ adapter: new SqliteAdapterFactory(file, { busyTimeoutMs: 5000, pragmas: ['journal_mode = WAL', 'synchronous = NORMAL'] }) });
const mode = process.argv[2];
for (let i = 0; i < 30000; i++) {
  if (mode === 'raw') await db.$queryRaw`UPDATE Session SET todoRevision = todoRevision + 1 WHERE id = ${'s1'} RETURNING todoRevision, turnNumber`;
  else if (mode === 'unsafe') await db.$queryRawUnsafe('UPDATE Session SET todoRevision = todoRevision + 1 WHERE id = ? RETURNING todoRevision, turnNumber', 's1');
  else await db.$transaction(async () => null);
}
