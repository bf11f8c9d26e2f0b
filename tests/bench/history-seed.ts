// Gives a session thousands of prior todo updates by inserting them straight into the app's SQLite file.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { countsOf, diffLists, listAt } from './todo-lists.ts';

/** Inserts revisions 1..count for a session that has none yet, and moves its revision to `count`. */
export function seedHistory(databaseFile: string, sessionId: string, count: number): void {
  const db = new Database(databaseFile);
  try {
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare(
      'INSERT INTO "TodoUpdate" ("id", "sessionId", "revision", "turnNumber", "items", "changes", "pending", "inProgress", "completed", "createdAt") ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      const moved = db.prepare('UPDATE "Session" SET "todoRevision" = ? WHERE "id" = ? AND "todoRevision" = 0').run(count, sessionId);
      if (moved.changes !== 1) throw new Error(`session ${sessionId} is missing or already has updates`);
      const start = Date.now() - count * 1000;
      for (let revision = 1; revision <= count; revision++) {
        const items = listAt(revision - 1);
        const counts = countsOf(items);
        insert.run(
          `tdu_${randomUUID().replaceAll('-', '')}`,
          sessionId,
          revision,
          0,
          JSON.stringify(items),
          JSON.stringify(diffLists(revision === 1 ? [] : listAt(revision - 2), items)),
          counts.pending,
          counts.inProgress,
          counts.completed,
          start + revision * 1000, // the server stores DateTime as unix epoch milliseconds
        );
      }
    })();
  } finally {
    db.close();
  }
}
