import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openDb } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/schema-engine.ts';
import { migrationsDir } from '../src/db/database-file.ts';
const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'busy-')), 'b.db');
await applyMigrations({ databaseFile: file, migrationsDir });
const { db } = await openDb(file, { busyTimeoutMs: 300 });
const other = new Database(file);
other.exec('BEGIN IMMEDIATE');
const t = performance.now();
try { await db.$transaction(async (tx) => tx.$executeRaw`INSERT INTO Workspace (id, name, createdAt) VALUES ('a','b',0)`); } catch (e: any) { console.log(performance.now() - t, e.constructor.name, e.code, e.message, e.meta); }
try { await db.$executeRaw`INSERT INTO Workspace (id, name, createdAt) VALUES ('a','b',0)`; } catch (e: any) { console.log(performance.now() - t, e.constructor.name, e.code, JSON.stringify(e.message), e.meta); }
other.exec('COMMIT');
