// Prisma implementation of the domain's TodoRepository; items and changes are stored as JSON text. The write path's
// statements are raw SQL (one data-modifying WITH for a write on PostgreSQL), and the latest update of recently written
// sessions is served from memory.
import type { TodoRepository, TodoUpdateRecord } from '@agent-tasks/core';
import type { TodoCache } from './todo-cache.ts';
import type { Dialect, Tx, WriteTurn } from './tx.ts';
import { fromJson } from './json-column.ts';
import { INT_COLUMN_MAX, clampToIntColumn } from './int-column.ts';
import { rawSql } from '../db/direct-sql.ts';
import { CHANGES_IN_ROWS } from '../db/savepoints.ts';
import { Prisma } from '../generated/prisma/client.ts';

const select = {
  id: true,
  sessionId: true,
  revision: true,
  turnNumber: true,
  items: true,
  changes: true,
  pending: true,
  inProgress: true,
  completed: true,
  createdAt: true,
} as const;

type Row = { items: string; changes: string; pending: number; inProgress: number; completed: number } & Omit<
  TodoUpdateRecord,
  'items' | 'changes' | 'counts'
>;

const toRecord = ({ items, changes, pending, inProgress, completed, ...rest }: Row): TodoUpdateRecord => ({
  ...rest,
  items: fromJson(items),
  changes: fromJson(changes),
  counts: { pending, inProgress, completed },
});

type Moved = { todoRevision: number; turnNumber: number };

/** The session's compare-and-set: its revision on by one, only while it is still `expected` when given. */
const movedWhere = (workspaceId: string, sessionId: string, expected: number | undefined) =>
  expected === undefined
    ? Prisma.sql`"id" = ${sessionId} AND "workspaceId" = ${workspaceId}`
    : Prisma.sql`"id" = ${sessionId} AND "workspaceId" = ${workspaceId} AND "todoRevision" = ${expected}`;

export function prismaTodoRepository(db: Tx, cache: TodoCache, turn: WriteTurn, dialect: Dialect): TodoRepository {
  const { afterCommit, transaction } = turn;
  /** A card this write recorded: the writes after it in the transaction know it, and everyone once it committed. */
  const recorded = (update: TodoUpdateRecord) => {
    if (transaction) turn.afterKept(() => cache.keep(transaction, update));
    afterCommit(() => cache.remember(update));
  };
  async function insert(update: TodoUpdateRecord) {
    const { id, sessionId, revision, turnNumber, items, changes, counts, createdAt } = update;
    await rawSql(db).$executeRaw`
      INSERT INTO "TodoUpdate" ("id", "sessionId", "revision", "turnNumber", "items", "changes", "pending", "inProgress", "completed", "createdAt")
      VALUES (${id}, ${sessionId}, ${revision}, ${turnNumber}, ${JSON.stringify(items)}, ${JSON.stringify(changes)},
              ${counts.pending}, ${counts.inProgress}, ${counts.completed}, ${createdAt})`;
    recorded(update);
  }
  return {
    latestKnown: (sessionId) => Promise.resolve(cache.latest(sessionId, transaction)),
    async advance(workspaceId, expected, draft) {
      // A base at or past what the column holds matches no list it could move on from (stale), as on SQLite; PostgreSQL
      // would refuse the operand.
      if (expected !== undefined && expected >= INT_COLUMN_MAX) return null;
      const { id, sessionId, revision, items, changes, counts, createdAt } = draft;
      const where = movedWhere(workspaceId, sessionId, expected);
      if (dialect === 'sqlite') {
        // SQLite has no data-modifying WITH; its statements are calls in this process, not round trips.
        const [moved] = await rawSql(db).$queryRaw<Moved[]>`
          UPDATE "Session" SET "todoRevision" = "todoRevision" + 1 WHERE ${where} RETURNING "todoRevision", "turnNumber"`;
        if (!moved) return null;
        if (moved.todoRevision !== revision) return { ...moved, recorded: false };
        await insert({ ...draft, turnNumber: moved.turnNumber });
        return { ...moved, recorded: true };
      }
      // PostgreSQL: one statement, one round trip. The update is recorded only at the revision it was drafted for.
      const [moved] = await rawSql(db).$queryRaw<(Moved & { recorded: boolean })[]>`
        WITH "moved" AS (
          UPDATE "Session" SET "todoRevision" = "todoRevision" + 1 WHERE ${where} RETURNING "todoRevision", "turnNumber"
        ), "recorded" AS (
          INSERT INTO "TodoUpdate" ("id", "sessionId", "revision", "turnNumber", "items", "changes", "pending", "inProgress", "completed", "createdAt")
          SELECT CAST(${id} AS TEXT), CAST(${sessionId} AS TEXT), "todoRevision", "turnNumber", CAST(${JSON.stringify(items)} AS TEXT),
                 CAST(${JSON.stringify(changes)} AS TEXT), CAST(${counts.pending} AS INTEGER), CAST(${counts.inProgress} AS INTEGER),
                 CAST(${counts.completed} AS INTEGER), CAST(${createdAt} AS TIMESTAMP(3))
          FROM "moved" WHERE "todoRevision" = CAST(${revision > INT_COLUMN_MAX ? -1 : revision} AS INTEGER)
          RETURNING "revision"
        )
        SELECT "todoRevision", "turnNumber", EXISTS (SELECT 1 FROM "recorded") AS "recorded" FROM "moved"
        ${Prisma.raw(CHANGES_IN_ROWS)}`;
      if (!moved) return null;
      if (moved.recorded) recorded({ ...draft, turnNumber: moved.turnNumber });
      return moved;
    },
    async latest(sessionId) {
      // Every todos.get: a raw statement, without Prisma's query pipeline.
      const [row] = await rawSql(db).$queryRaw<Row[]>`
      SELECT "id", "sessionId", "revision", "turnNumber", "items", "changes", "pending", "inProgress", "completed", "createdAt"
      FROM "TodoUpdate" WHERE "sessionId" = ${sessionId} ORDER BY "revision" DESC LIMIT 1`;
      return row ? toRecord(row) : null;
    },
    async at(sessionId, revision) {
      // None is past what the column holds (PostgreSQL would refuse the operand): a stale base is drafted against.
      if (revision > INT_COLUMN_MAX) return null;
      const cached = cache.get(sessionId, revision, transaction);
      if (cached) return cached;
      const [row] = await rawSql(db).$queryRaw<Row[]>`
      SELECT "id", "sessionId", "revision", "turnNumber", "items", "changes", "pending", "inProgress", "completed", "createdAt"
      FROM "TodoUpdate" WHERE "sessionId" = ${sessionId} AND "revision" = ${revision}`;
      if (!row) return null;
      const record = toRecord(row);
      // Inside a write it may be a row this very transaction wrote: remembered only once that is committed.
      afterCommit(() => cache.remember(record));
      return record;
    },
    insert,
    page: async (sessionId, before, limit) =>
      (
        await db.todoUpdate.findMany({
          where: { sessionId, ...(before === null ? {} : { revision: { lt: clampToIntColumn(before) } }) },
          orderBy: { revision: 'desc' },
          take: limit,
          select,
        })
      ).map(toRecord),
    after: async (sessionId, after, limit) =>
      (
        await db.todoUpdate.findMany({
          where: { sessionId, revision: { gt: clampToIntColumn(after) } },
          orderBy: { revision: 'asc' },
          take: limit,
          select,
        })
      ).map(toRecord),
    async atRevisions(refs) {
      const rows = [];
      // Each pair is one lookup on the (sessionId, revision) index; chunked to stay under SQLite's variable limit.
      for (let i = 0; i < refs.length; i += 400) {
        const chunk = refs.slice(i, i + 400).map(({ sessionId, revision }) => ({ sessionId, revision }));
        rows.push(...(await db.todoUpdate.findMany({ where: { OR: chunk }, select })));
      }
      return rows.map(toRecord);
    },
  };
}
