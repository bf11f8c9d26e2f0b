// Prisma implementations of the comment and search ports, and the searchable text the task repository keeps beside
// each task (`TaskSearchText`): SQLite indexes it in FTS5 (its migration's triggers), PostgreSQL by a GIN tsvector index.
import type { TaskCommentRecord, TaskCommentRepository, TaskRecord, TaskSearchRepository } from '@agent-tasks/core';
import { Prisma } from '../generated/prisma/client.ts';
import { insertsOf } from './raw-sql.ts';
import type { Tx } from './tx.ts';

export type SearchDialect = 'sqlite' | 'postgres';

const commentSelect = {
  id: true,
  listId: true,
  taskId: true,
  body: true,
  author: true,
  byPerson: true,
  keyId: true,
  sessionId: true,
  createdAt: true,
} as const;

/** New tasks' searchable text (no comments yet), in few statements. */
export async function indexNewTasks(db: Tx, tasks: readonly TaskRecord[]) {
  const rows = tasks.map((t) => ({ listId: t.listId, taskId: t.id, subject: t.subject, description: t.description, comments: '' }));
  for (const values of insertsOf(rows)) await db.$executeRaw`INSERT INTO "TaskSearchText" ${values}`;
}

/** A written task's subject and description into its searchable text, only when they changed (the index then too). */
export async function reindexTask(db: Tx, task: TaskRecord) {
  await db.$executeRaw`
    UPDATE "TaskSearchText" SET "subject" = ${task.subject}, "description" = ${task.description}
    WHERE "listId" = ${task.listId} AND "taskId" = ${task.id} AND ("subject" <> ${task.subject} OR "description" <> ${task.description})`;
}

export function prismaCommentRepository(db: Tx): TaskCommentRepository {
  return {
    async add(comment) {
      const row = await db.taskComment.create({ data: comment, select: commentSelect });
      // The body joins the task's searchable text in the same transaction.
      await db.$executeRaw`
        UPDATE "TaskSearchText" SET "comments" = "comments" || ${`${comment.body}\n`}
        WHERE "listId" = ${comment.listId} AND "taskId" = ${comment.taskId}`;
      return row;
    },
    newest: (listId, taskId, limit) =>
      db.taskComment.findMany({ where: { listId, taskId }, orderBy: { id: 'desc' }, take: limit, select: commentSelect }),
    count: (listId, taskId) => db.taskComment.count({ where: { listId, taskId } }),
    after: (listId, afterId, limit) =>
      db.taskComment.findMany({ where: { listId, id: { gt: afterId } }, orderBy: { id: 'asc' }, take: limit, select: commentSelect }),
    newestFromPeople: (listId, afterId, limit): Promise<TaskCommentRecord[]> =>
      db.taskComment.findMany({
        where: { listId, byPerson: true, id: { gt: afterId } },
        orderBy: { id: 'desc' },
        take: limit,
        select: commentSelect,
      }),
    lastId: async (listId) =>
      (await db.taskComment.findFirst({ where: { listId }, orderBy: { id: 'desc' }, select: { id: true } }))?.id ?? 0,
    readMark: async (sessionId, listId) =>
      (await db.taskNoteRead.findUnique({ where: { sessionId_listId: { sessionId, listId } }, select: { lastCommentId: true } }))
        ?.lastCommentId ?? 0,
    async setReadMark(sessionId, listId, commentId) {
      await db.taskNoteRead.upsert({
        where: { sessionId_listId: { sessionId, listId } },
        create: { sessionId, listId, lastCommentId: commentId },
        update: { lastCommentId: commentId },
        select: { sessionId: true },
      });
    },
  };
}

/** FTS5: every word as a quoted prefix term, so nothing in a query is read as syntax. */
const ftsQuery = (words: readonly string[]) => words.map((w) => `"${w.replaceAll('"', '""')}"*`).join(' ');
/** PostgreSQL: every word as a prefix lexeme; the words hold only letters and digits (searchWords). */
const tsQuery = (words: readonly string[]) => words.map((w) => `'${w.replaceAll("'", "''")}':*`).join(' & ');

const DOCUMENT = Prisma.raw(
  `(setweight(to_tsvector('simple', s."subject"), 'A') || setweight(to_tsvector('simple', s."description"), 'B') || setweight(to_tsvector('simple', s."comments"), 'C'))`,
);

type HitRow = { taskId: string; rank: number; snippet: string };

export function prismaSearchRepository(db: Tx, dialect: SearchDialect): TaskSearchRepository {
  return {
    async search(listId, words, limit) {
      if (words.length === 0) return [];
      const rows =
        dialect === 'sqlite'
          ? await db.$queryRaw<HitRow[]>`
              SELECT s."taskId" AS "taskId", -bm25("TaskSearch", 10.0, 4.0, 2.0) AS "rank",
                     snippet("TaskSearch", -1, '[', ']', '…', 16) AS "snippet"
              FROM "TaskSearch" JOIN "TaskSearchText" s ON s."id" = "TaskSearch"."rowid"
              JOIN "Task" t ON t."listId" = s."listId" AND t."id" = s."taskId"
              WHERE "TaskSearch" MATCH ${ftsQuery(words)} AND s."listId" = ${listId} AND t."status" <> 'deleted'
              ORDER BY "rank" DESC, t."seq" ASC LIMIT ${limit}`
          : await db.$queryRaw<HitRow[]>`
              WITH q AS (SELECT to_tsquery('simple', ${tsQuery(words)}) AS query),
              hits AS (
                SELECT s."taskId", s."subject", s."description", s."comments", t."seq",
                       ts_rank_cd(${DOCUMENT}, q.query)::float8 AS "rank", q.query
                FROM "TaskSearchText" s CROSS JOIN q
                JOIN "Task" t ON t."listId" = s."listId" AND t."id" = s."taskId"
                WHERE s."listId" = ${listId} AND ${DOCUMENT} @@ q.query AND t."status" <> 'deleted'
                ORDER BY "rank" DESC, t."seq" ASC LIMIT ${limit}
              )
              SELECT "taskId", "rank",
                     ts_headline('simple', "subject" || ' — ' || "description" || ' ' || "comments", query,
                                 'StartSel=[, StopSel=], MaxWords=24, MinWords=8, MaxFragments=1, FragmentDelimiter=" … "') AS "snippet"
              FROM hits ORDER BY "rank" DESC, "seq" ASC`;
      return rows.map((r) => ({ taskId: r.taskId, rank: Number(r.rank), snippet: r.snippet }));
    },
  };
}
