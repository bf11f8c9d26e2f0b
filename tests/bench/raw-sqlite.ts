// Baseline: what one todo_write records (session revision + one update row), written with raw better-sqlite3.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { TodoItem } from '@agent-tasks/schema';
import { schemaSql } from './schema-sql.ts';
import { countsOf, diffLists } from './todo-lists.ts';

export interface RawStore {
  /** Records one update for session `index` in one transaction: CAS on the revision, then the insert. */
  write(index: number, items: TodoItem[]): void;
  pragmas(): string;
  close(): void;
}

/**
 * A fresh database file with the app's schema, one workspace and `sessions` sessions. By default the connection keeps
 * SQLite's defaults, as the server's Prisma adapter does (rollback journal, synchronous=FULL); `wal` switches to
 * WAL + synchronous=NORMAL.
 */
export function openRawStore(file: string, sessions: number, options: { wal?: boolean } = {}): RawStore {
  const db = new Database(file);
  if (options.wal) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.exec(schemaSql());
  const workspaceId = `ws_${randomUUID().replaceAll('-', '')}`;
  db.prepare('INSERT INTO "Workspace" ("id", "name", "createdAt") VALUES (?, ?, ?)').run(workspaceId, 'bench', Date.now());
  const addSession = db.prepare(
    'INSERT INTO "Session" ("id", "workspaceId", "tokenHash", "openedByKey", "createdAt") VALUES (?, ?, ?, ?, ?)',
  );
  const state = Array.from({ length: sessions }, () => {
    const id = `ses_${randomUUID().replaceAll('-', '')}`;
    addSession.run(id, workspaceId, randomUUID(), 'key_bench', Date.now());
    return { id, revision: 0, items: [] as TodoItem[] };
  });

  const advance = db.prepare('UPDATE "Session" SET "todoRevision" = ? WHERE "id" = ? AND "todoRevision" = ?');
  const insert = db.prepare(
    'INSERT INTO "TodoUpdate" ("id", "sessionId", "revision", "turnNumber", "items", "changes", "pending", "inProgress", "completed", "createdAt") ' +
      'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const record = db.transaction((session: (typeof state)[number], items: TodoItem[]) => {
    const revision = session.revision + 1;
    if (advance.run(revision, session.id, session.revision).changes !== 1) throw new Error('stale revision');
    const counts = countsOf(items);
    insert.run(
      `tdu_${randomUUID().replaceAll('-', '')}`,
      session.id,
      revision,
      0,
      JSON.stringify(items),
      JSON.stringify(diffLists(session.items, items)),
      counts.pending,
      counts.inProgress,
      counts.completed,
      Date.now(),
    );
    session.revision = revision;
    session.items = items;
  });

  return {
    write(index, items) {
      const session = state[index];
      if (!session) throw new Error(`no session ${index}`);
      record(session, items);
    },
    pragmas: () =>
      `journal_mode=${String(db.pragma('journal_mode', { simple: true }))}, synchronous=${String(db.pragma('synchronous', { simple: true }))}`,
    close: () => db.close(),
  };
}
