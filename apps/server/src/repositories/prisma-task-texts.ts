// Prisma implementations of the comment and search ports, and the searchable text the task repository keeps beside
// each task (`TaskSearchText`): SQLite indexes it in FTS5 (its migration's triggers), PostgreSQL by a GIN tsvector index.
import type { TaskCommentRecord, TaskCommentRepository, TaskRecord, TaskSearchRepository } from '@agent-tasks/core';
import type { TaskStatus } from '@agent-tasks/schema';
import { Prisma } from '../generated/prisma/client.ts';
import { insertsOf } from './raw-sql.ts';
import type { Dialect, Tx } from './tx.ts';
import { rawSql } from '../db/direct-sql.ts';

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
export async function indexNewTasks(db: Tx, tasks: readonly Pick<TaskRecord, 'listId' | 'id' | 'subject' | 'description'>[]) {
  const rows = tasks.map((t) => ({ listId: t.listId, taskId: t.id, subject: t.subject, description: t.description, comments: '' }));
  for (const values of insertsOf(rows)) await rawSql(db).$executeRaw`INSERT INTO "TaskSearchText" ${values}`;
}

/**
 * A written task's subject and description into its searchable text, only when they changed (the index then too); a
 * deleted task's text is emptied, so no search finds it.
 */
export async function reindexTask(db: Tx, task: TaskRecord) {
  const [subject, description] = task.status === 'deleted' ? ['', ''] : [task.subject, task.description];
  await rawSql(db).$executeRaw`
    UPDATE "TaskSearchText" SET "subject" = ${subject}, "description" = ${description}${task.status === 'deleted' ? Prisma.sql`, "comments" = ''` : Prisma.empty}
    WHERE "listId" = ${task.listId} AND "taskId" = ${task.id}
      AND ("subject" <> ${subject} OR "description" <> ${description}${task.status === 'deleted' ? Prisma.sql` OR "comments" <> ''` : Prisma.empty})`;
}

export function prismaCommentRepository(db: Tx): TaskCommentRepository {
  return {
    async add(comment) {
      const row = await db.taskComment.create({ data: comment, select: commentSelect });
      // The body joins the task's searchable text in the same transaction.
      await rawSql(db).$executeRaw`
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

/**
 * FTS5: the list's rows (its id as a phrase in the `listId` column) and every word as a quoted prefix term in the text
 * columns, so nothing in a query is read as syntax.
 */
const ftsQuery = (listId: string, words: readonly string[]) =>
  `"listId" : "${listId.replaceAll('"', '""')}" AND {"subject" "description" "comments"} : (${words
    .map((w) => `"${w.replaceAll('"', '""')}"*`)
    .join(' AND ')})`;
/** PostgreSQL: every word as a prefix lexeme; the words hold only letters and digits (searchWords). */
const tsQuery = (words: readonly string[]) => words.map((w) => `'${w.replaceAll("'", "''")}':*`).join(' & ');

const DOCUMENT = Prisma.raw(
  `(setweight(to_tsvector('simple', s."subject"), 'A') || setweight(to_tsvector('simple', s."description"), 'B') || setweight(to_tsvector('simple', s."comments"), 'C'))`,
);

type TaskFields = { taskId: string; seq: number; subject: string; status: string };
type HitRow = TaskFields & { rank: number; snippet: string };
const fieldsOf = (row: TaskFields) => ({
  taskId: row.taskId,
  seq: Number(row.seq),
  subject: row.subject,
  status: row.status as TaskStatus,
});

export function prismaSearchRepository(db: Tx, dialect: Dialect): TaskSearchRepository {
  return {
    async search(listId, words, limit) {
      if (words.length === 0) return [];
      if (dialect === 'sqlite') {
        // The best rows first (bm25 is FTS5's own, per matching row), then the snippets of only those.
        const match = ftsQuery(listId, words);
        const best = await rawSql(db).$queryRaw<{ id: number; rank: number }[]>`
          SELECT "rowid" AS "id", -bm25("TaskSearch", 0.0, 10.0, 4.0, 2.0) AS "rank" FROM "TaskSearch"
          WHERE "TaskSearch" MATCH ${match} ORDER BY "rank" DESC, "rowid" ASC LIMIT ${limit}`;
        if (best.length === 0) return [];
        // One snippet per text column; the first with a match is shown (the subject before the description and comments).
        const shown = await rawSql(db).$queryRaw<(TaskFields & { id: number; s1: string; s2: string; s3: string })[]>`
          SELECT "TaskSearch"."rowid" AS "id", s."taskId" AS "taskId", t."seq" AS "seq", t."subject" AS "subject", t."status" AS "status",
                 snippet("TaskSearch", 1, '[', ']', '…', 16) AS "s1", snippet("TaskSearch", 2, '[', ']', '…', 16) AS "s2",
                 snippet("TaskSearch", 3, '[', ']', '…', 16) AS "s3"
          FROM "TaskSearch" JOIN "TaskSearchText" s ON s."id" = "TaskSearch"."rowid"
          JOIN "Task" t ON t."listId" = s."listId" AND t."id" = s."taskId"
          WHERE "TaskSearch" MATCH ${match} AND "TaskSearch"."rowid" IN (${Prisma.join(best.map((b) => b.id))})`;
        const byId = new Map(shown.map((r) => [Number(r.id), r]));
        return best.flatMap((b) => {
          const row = byId.get(Number(b.id));
          const snippet = [row?.s1, row?.s2, row?.s3].find((text) => text?.includes('[')) ?? row?.s1 ?? '';
          return row ? [{ ...fieldsOf(row), rank: Number(b.rank), snippet }] : [];
        });
      }
      const rows = await rawSql(db).$queryRaw<HitRow[]>`
              WITH q AS (SELECT to_tsquery('simple', ${tsQuery(words)}) AS query),
              hits AS (
                SELECT s."taskId", s."subject", s."description", s."comments", s."id", t."seq", t."status", t."subject" AS "taskSubject",
                       ts_rank_cd(${DOCUMENT}, q.query)::float8 AS "rank", q.query
                FROM "TaskSearchText" s CROSS JOIN q
                JOIN "Task" t ON t."listId" = s."listId" AND t."id" = s."taskId"
                WHERE s."listId" = ${listId} AND ${DOCUMENT} @@ q.query
                ORDER BY "rank" DESC, s."id" ASC LIMIT ${limit}
              )
              SELECT "taskId", "seq", "status", "taskSubject" AS "subject", "rank",
                     ts_headline('simple', "subject" || ' — ' || "description" || ' ' || "comments", query,
                                 'StartSel=[, StopSel=], MaxWords=24, MinWords=8, MaxFragments=1, FragmentDelimiter=" … "') AS "snippet"
              FROM hits ORDER BY "rank" DESC, "id" ASC`;
      return rows.map((r) => ({ ...fieldsOf(r), rank: Number(r.rank), snippet: r.snippet }));
    },
  };
}
