// Prisma implementation of the domain's TodoRepository; items and changes are stored as JSON text. The write path's
// statements are raw SQL (portable), and the latest update of recently written sessions is served from memory.
import type { TodoRepository, TodoUpdateRecord } from '@agent-tasks/core';
import type { TodoCache } from './todo-cache.ts';
import type { AfterCommit, Tx } from './tx.ts';
import { fromJson } from './json-column.ts';
import { clampToIntColumn } from './int-column.ts';
import { rawSql } from '../db/direct-sql.ts';

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

export const prismaTodoRepository = (db: Tx, cache: TodoCache, afterCommit: AfterCommit): TodoRepository => ({
  async latest(sessionId) {
    // Every todos.get: a raw statement, without Prisma's query pipeline.
    const [row] = await rawSql(db).$queryRaw<Row[]>`
      SELECT "id", "sessionId", "revision", "turnNumber", "items", "changes", "pending", "inProgress", "completed", "createdAt"
      FROM "TodoUpdate" WHERE "sessionId" = ${sessionId} ORDER BY "revision" DESC LIMIT 1`;
    return row ? toRecord(row) : null;
  },
  async at(sessionId, revision) {
    const cached = cache.get(sessionId, revision);
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
  async insert(update) {
    const { id, sessionId, revision, turnNumber, items, changes, counts, createdAt } = update;
    await rawSql(db).$executeRaw`
      INSERT INTO "TodoUpdate" ("id", "sessionId", "revision", "turnNumber", "items", "changes", "pending", "inProgress", "completed", "createdAt")
      VALUES (${id}, ${sessionId}, ${revision}, ${turnNumber}, ${JSON.stringify(items)}, ${JSON.stringify(changes)},
              ${counts.pending}, ${counts.inProgress}, ${counts.completed}, ${createdAt})`;
    afterCommit(() => cache.remember(update));
  },
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
});
