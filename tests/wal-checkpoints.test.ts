// The server's SQLite WAL is checkpointed off the event loop (db/wal-checkpointer.ts): a write reaches the database
// file itself soon after it is answered, though far fewer pages than SQLite's own threshold went through the WAL.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqliteOnly } from './support/database.ts';
import { sessionClient, todo } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { guardMs } from './support/time-guard.ts';

/** The session's todo list writes in the database file alone (a copy without its WAL): what checkpoints put there. */
function writesInFile(file: string, sessionId: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-wal-copy-'));
  const copy = path.join(dir, 'copy.db');
  copyFileSync(file, copy);
  let db: Database.Database | undefined;
  try {
    db = new Database(copy, { readonly: true });
    return (db.prepare('SELECT count(*) AS n FROM "TodoUpdate" WHERE "sessionId" = ?').get(sessionId) as { n: number }).n;
  } catch {
    return 0; // copied while a checkpoint was writing to it: look again
  } finally {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

sqliteOnly('WAL checkpoints', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ process: true });
  });
  afterAll(() => server.stop());

  it('a write reaches the database file itself soon after it is answered, not only its WAL', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({ todos: [todo('Checkpointed')] });
    await s.client.todos.write({ todos: [todo('Checkpointed', 'in_progress')] });
    const until = Date.now() + guardMs(10_000);
    let found = writesInFile(server.databaseFile, s.session.id);
    while (found < 2 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      found = writesInFile(server.databaseFile, s.session.id);
    }
    expect(found).toBe(2);
  });
});
