import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { SqliteAdapterFactory } from '../src/db/sqlite-adapter.ts';
import { applyMigrations } from '../src/db/schema-engine.ts';
import { migrationsDir } from '../src/db/database-file.ts';
import Database from 'better-sqlite3';

const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'micro-')), 'm.db');
await applyMigrations({ databaseFile: file, migrationsDir });
const raw = new Database(file);
raw.pragma('journal_mode = WAL');
raw.exec(`INSERT INTO Workspace (id, name, createdAt) VALUES ('w1','w',0); INSERT INTO Session (id, workspaceId, tokenHash, openedByKey, createdAt) VALUES ('s1','w1','h1','k',0)`);

async function timed(label: string, n: number, f: () => unknown) {
  for (let i = 0; i < 300; i++) await f();
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < n; i++) await f();
  const wall = (performance.now() - t0) * 1000 / n; const c = process.cpuUsage(c0);
  console.log(`${label.padEnd(50)} ${wall.toFixed(1).padStart(7)} µs wall ${((c.user + c.system) / n).toFixed(1).padStart(7)} µs cpu`);
}
const clients = {
  stock: new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}` }, { timestampFormat: 'unixepoch-ms' }) }),
  ours: new PrismaClient({ adapter: new SqliteAdapterFactory(file, { busyTimeoutMs: 5000, pragmas: ['journal_mode = WAL', 'synchronous = NORMAL'] }) }),
};
const N = 3000;
for (const [name, db] of Object.entries(clients)) {
  await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL');
  let rev = 0;
  await timed(`${name}: model findUnique session`, N, () => db.session.findUnique({ where: { id: 's1' }, select: { id: true, todoRevision: true, turnNumber: true } }));
  await timed(`${name}: $queryRaw select session`, N, () => db.$queryRaw`SELECT id, todoRevision FROM Session WHERE id = ${'s1'}`);
  await timed(`${name}: $executeRaw update session`, N, () => db.$executeRaw`UPDATE Session SET todoRevision = todoRevision + 1 WHERE id = ${'s1'}`);
  await timed(`${name}: $queryRaw update returning`, N, () => db.$queryRaw`UPDATE Session SET todoRevision = todoRevision + 1 WHERE id = ${'s1'} RETURNING todoRevision, turnNumber`);
  await timed(`${name}: model updateMany`, N, () => db.session.updateMany({ where: { id: 's1' }, data: { turnNumber: { increment: 1 } } }));
  await timed(`${name}: model create todoUpdate`, N, () => db.todoUpdate.create({ data: { id: `t${name}${rev}`, sessionId: 's1', revision: 100000 * (name === 'ours' ? 2 : 1) + rev++, turnNumber: 0, items: '[]', changes: '[]', pending: 0, inProgress: 0, completed: 0 }, select: { id: true } }));
  await timed(`${name}: empty $transaction`, N, () => db.$transaction(async () => null));
  await timed(`${name}: $transaction with 1 raw update`, N, () => db.$transaction(async (tx) => tx.$executeRaw`UPDATE Session SET todoRevision = todoRevision + 1 WHERE id = ${'s1'}`));
}
const st = raw.prepare('SELECT id, todoRevision FROM Session WHERE id = ?');
await timed('raw better-sqlite3 get', N, () => st.get('s1'));
