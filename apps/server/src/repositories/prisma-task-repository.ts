// Prisma implementation of the domain's TaskRepository: tasks, their edges, and the change log.
import type { TaskChangeRecord, TaskListRecord, TaskRecord, TaskRepository } from '@agent-tasks/core';
import type { Priority, TaskStatus } from '@agent-tasks/schema';
import { Prisma } from '../generated/prisma/client.ts';
import { assignmentsOf, columnsOf, insertOf, insertsOf } from './raw-sql.ts';
import { type RankContext, type RankedLists, rankForEdge, rankNewEdges, reachesByRank } from './task-ranks.ts';
import type { AfterCommit, Tx } from './tx.ts';
import { fromJson } from './json-column.ts';
import { clampToIntColumn } from './int-column.ts';
import { indexNewTasks, reindexTask } from './prisma-task-texts.ts';

const taskSelect = {
  id: true,
  listId: true,
  seq: true,
  subject: true,
  description: true,
  status: true,
  activeForm: true,
  owner: true,
  metadata: true,
  threadId: true,
  repoUrl: true,
  parentId: true,
  fileKeyTail: true,
  priority: true,
  labels: true,
  version: true,
  createdAt: true,
  updatedAt: true,
} as const;
const edgeSelect = { id: true, blockerId: true, blockedId: true } as const;
const changeSelect = {
  listId: true,
  seq: true,
  taskId: true,
  kind: true,
  sessionId: true,
  keyId: true,
  at: true,
  changes: true,
  snapshot: true,
} as const;
const RESOLVED = ['completed', 'deleted'];

/** SQLite binds at most 999 values per statement: long id lists are queried in chunks. */
const CHUNK = 400;
async function inChunks<T>(ids: readonly string[], query: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  if (ids.length === 0) return [];
  if (ids.length <= CHUNK) return query([...ids]);
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) rows.push(...(await query(ids.slice(i, i + CHUNK))));
  return rows;
}
type EdgeRow = { id: number; blockerId: string; blockedId: string };
const byEdgeOrder = (rows: EdgeRow[]) => rows.sort((a, b) => a.id - b.id).map(({ blockerId, blockedId }) => ({ blockerId, blockedId }));

type TaskRow = Omit<TaskRecord, 'status' | 'metadata' | 'priority' | 'labels'> & {
  status: string;
  metadata: string;
  priority: number;
  labels: string;
};
/** A task without a priority is stored as 5: after P4 in the index's order (most urgent, then oldest). */
const NO_PRIORITY = 5;
const toTask = (row: TaskRow): TaskRecord => ({
  ...row,
  status: row.status as TaskStatus,
  metadata: fromJson(row.metadata),
  priority: row.priority >= NO_PRIORITY ? null : (`P${Number(row.priority)}` as Priority),
  labels: fromJson(row.labels),
});
const fromTask = ({ metadata, priority, labels, ...rest }: TaskRecord) => ({
  ...rest,
  metadata: JSON.stringify(metadata),
  priority: priority === null ? NO_PRIORITY : Number(priority.slice(1)),
  labels: JSON.stringify(labels),
});
/** `LIKE` pattern for a label inside the JSON array column (the quoted label, wildcards escaped). */
const labelPattern = (label: string) => `%${JSON.stringify(label).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

type ChangeRow = Omit<TaskChangeRecord, 'kind' | 'changes' | 'snapshot'> & { kind: string; changes: string; snapshot: string };
const toChange = (row: ChangeRow): TaskChangeRecord => ({
  ...row,
  kind: row.kind as TaskChangeRecord['kind'],
  changes: fromJson(row.changes),
  snapshot: fromJson(row.snapshot),
});

const TASK_COLUMNS = columnsOf(taskSelect);

/** Per store: lists by workspace and name (a list's id, name and workspace never change), and the ranked lists. */
export interface TaskRepositoryState {
  lists: Map<string, TaskListRecord>;
  ranked: RankedLists;
  /** PostgreSQL: a write takes its list's row lock first (SQLite's BEGIN IMMEDIATE already runs one write at a time). */
  lockLists: boolean;
}

export const taskRepositoryState = (lockLists = false): TaskRepositoryState => ({ lists: new Map(), ranked: new Set(), lockLists });

const refreshOpenBlockersSql = (listId: string, ids: string[]) => Prisma.sql`
  UPDATE "Task" SET "openBlockers" = (
    SELECT COUNT(*) FROM "TaskEdge" e JOIN "Task" b ON b."listId" = e."listId" AND b."id" = e."blockerId"
    WHERE e."listId" = "Task"."listId" AND e."blockedId" = "Task"."id" AND b."status" NOT IN ('completed', 'deleted')
  )
  WHERE "listId" = ${listId} AND "id" IN (${Prisma.join(ids)})`;

const isStaging = async (db: Tx, listId: string) => (await db.taskList.count({ where: { id: listId, staging: true } })) > 0;

export function prismaTaskRepository(db: Tx, state: TaskRepositoryState, afterCommit: AfterCommit): TaskRepository {
  const ranks: RankContext = { db, ranked: state.ranked, afterCommit, agreeing: new Set() };
  return {
    async findList(workspaceId, name) {
      const key = `${workspaceId}\u0000${name}`;
      const known = state.lists.get(key);
      if (known) return known;
      const found = await db.taskList.findUnique({
        where: { workspaceId_name: { workspaceId, name } },
        select: { id: true, workspaceId: true, name: true, createdAt: true, staging: true },
      });
      const list =
        found && !found.staging ? { id: found.id, workspaceId: found.workspaceId, name: found.name, createdAt: found.createdAt } : null;
      if (list) {
        afterCommit(() => {
          if (state.lists.size >= 10_000) state.lists.delete(state.lists.keys().next().value as string);
          state.lists.set(key, list);
        });
      }
      return list;
    },
    async lockList(listId) {
      if (state.lockLists) await db.$queryRaw`SELECT "id" FROM "TaskList" WHERE "id" = ${listId} FOR UPDATE`;
    },
    async createList(list) {
      await db.taskList.create({ data: list, select: { id: true } });
    },
    listNames: async (workspaceId) =>
      (await db.taskList.findMany({ where: { workspaceId, staging: false }, select: { name: true }, orderBy: { name: 'asc' } })).map(
        (l) => l.name,
      ),
    idOfSeq: async (listId, seq) =>
      (await db.task.findUnique({ where: { listId_seq: { listId, seq } }, select: { id: true } }))?.id ?? null,
    feedPosition: async (listId) => (await db.taskList.findUnique({ where: { id: listId }, select: { changeSeq: true } }))?.changeSeq ?? 0,
    nextTaskSeq: async (listId) =>
      (await db.taskList.update({ where: { id: listId }, data: { taskSeq: { increment: 1 } }, select: { taskSeq: true } })).taskSeq,
    async nextChangeSeq(listId) {
      const [row] = await db.$queryRaw<{ changeSeq: number }[]>`
        UPDATE "TaskList" SET "changeSeq" = "changeSeq" + 1 WHERE "id" = ${listId} RETURNING "changeSeq"`;
      if (!row) throw new Error(`task list ${listId} is gone`);
      return row.changeSeq;
    },
    reserveTaskSeqs: async (listId, count) =>
      (await db.taskList.update({ where: { id: listId }, data: { taskSeq: { increment: count } }, select: { taskSeq: true } })).taskSeq -
      count +
      1,
    reserveChangeSeqs: async (listId, count) =>
      (await db.taskList.update({ where: { id: listId }, data: { changeSeq: { increment: count } }, select: { changeSeq: true } }))
        .changeSeq -
      count +
      1,
    async insertMany(tasks) {
      // New tasks rank after every task of their list (by seq); orderNewEdges re-ranks where an import's edge needs it.
      for (const values of insertsOf(tasks.map((task) => ({ ...fromTask(task), rank: task.seq })))) {
        await db.$executeRaw`INSERT INTO "Task" ${values}`;
      }
      await indexNewTasks(db, tasks);
    },
    async addEdges(listId, edges) {
      for (const values of insertsOf(edges.map((e) => ({ listId, blockerId: e.blockerId, blockedId: e.blockedId })))) {
        await db.$executeRaw`INSERT INTO "TaskEdge" ${values}`;
      }
    },
    // The ends of an import's edges re-ranked among themselves (its edges join only its new tasks).
    orderNewEdges: (listId, edges) => rankNewEdges(db, listId, edges),
    taskSeqOf: async (listId) => (await db.taskList.findUnique({ where: { id: listId }, select: { taskSeq: true } }))?.taskSeq ?? 0,
    async createStagingList(list) {
      await db.taskList.create({ data: { ...list, staging: true }, select: { id: true } });
    },
    async publishStaged(stagingId, listId, { taskShift, changeShift }) {
      if (!(await isStaging(db, stagingId))) throw new Error(`task list ${stagingId} is not a staging list`);
      // Edges follow their tasks (ON UPDATE CASCADE on both ends, checked at the end of the statement).
      await db.$executeRaw`
        UPDATE "Task" SET "listId" = ${listId}, "seq" = "seq" + ${taskShift}, "rank" = "rank" + ${taskShift} WHERE "listId" = ${stagingId}`;
      await db.$executeRaw`UPDATE "TaskEdge" SET "listId" = ${listId} WHERE "listId" = ${stagingId}`;
      await db.$executeRaw`UPDATE "TaskChange" SET "listId" = ${listId}, "seq" = "seq" + ${changeShift} WHERE "listId" = ${stagingId}`;
      await db.taskList.delete({ where: { id: stagingId }, select: { id: true } });
    },
    async promoteStaging(stagingId, name, count, taskSeq = count) {
      const { count: promoted } = await db.taskList.updateMany({
        where: { id: stagingId, staging: true },
        data: { name, staging: false, taskSeq, changeSeq: count },
      });
      if (promoted !== 1) throw new Error(`task list ${stagingId} is not a staging list`);
    },
    async raiseTaskSeq(listId, atLeast) {
      await db.taskList.updateMany({ where: { id: listId, taskSeq: { lt: atLeast } }, data: { taskSeq: atLeast } });
    },
    async resetTaskSeq(listId, expected, value) {
      await db.taskList.updateMany({ where: { id: listId, taskSeq: expected }, data: { taskSeq: value } });
    },
    takenSeqs: async (listId, seqs) => {
      const rows: { seq: number }[] = [];
      for (let i = 0; i < seqs.length; i += CHUNK) {
        rows.push(...(await db.task.findMany({ where: { listId, seq: { in: seqs.slice(i, i + CHUNK) } }, select: { seq: true } })));
      }
      return rows.map((r) => r.seq).sort((a, b) => a - b);
    },
    async dropStagedChanges(stagingId) {
      if (await isStaging(db, stagingId)) await db.taskChange.deleteMany({ where: { listId: stagingId } });
    },
    async dropStaged(stagingId) {
      if (!(await isStaging(db, stagingId))) return;
      // Tasks go with their list, edges with their tasks; changes have no foreign key.
      await db.taskChange.deleteMany({ where: { listId: stagingId } });
      await db.taskList.delete({ where: { id: stagingId }, select: { id: true } });
    },
    async importInProgress(workspaceId) {
      if (state.lockLists) await db.$queryRaw`SELECT 1 AS "locked" FROM pg_advisory_xact_lock(hashtext(${workspaceId}))`;
      const newest = await db.taskList.findFirst({
        where: { workspaceId, staging: true },
        orderBy: { createdAt: 'desc' },
        select: { createdAt: true },
      });
      return newest?.createdAt ?? null;
    },
    async touchStaging(stagingId, at) {
      await db.taskList.updateMany({ where: { id: stagingId, staging: true }, data: { createdAt: at } });
    },
    async dropAbandonedStaging(workspaceId, before) {
      const lists = await db.taskList.findMany({ where: { workspaceId, staging: true, createdAt: { lt: before } }, select: { id: true } });
      const ids = lists.map((l) => l.id);
      if (ids.length === 0) return 0;
      await db.taskChange.deleteMany({ where: { listId: { in: ids } } });
      await db.taskList.deleteMany({ where: { id: { in: ids } } });
      return ids.length;
    },
    async appendChanges(changes) {
      const rows = changes.map(({ changes: c, snapshot, ...rest }) => ({
        ...rest,
        changes: JSON.stringify(c),
        snapshot: JSON.stringify(snapshot),
      }));
      for (const values of insertsOf(rows)) await db.$executeRaw`INSERT INTO "TaskChange" ${values}`;
    },
    takenIds: async (listId, ids) =>
      (await inChunks(ids, (chunk) => db.task.findMany({ where: { listId, id: { in: chunk } }, select: { id: true } }))).map((r) => r.id),
    async insert(task) {
      // A new task ranks after every task of its list (its seq is the list's highest), before any edge reaches it.
      await db.task.create({ data: { ...fromTask(task), rank: task.seq }, select: { id: true } });
      await indexNewTasks(db, [task]);
    },
    async get(listId, id) {
      const [row] = await db.$queryRaw<TaskRow[]>`SELECT ${TASK_COLUMNS} FROM "Task" WHERE "id" = ${id} AND "listId" = ${listId}`;
      return row ? toTask(row) : null;
    },
    getMany: async (listId, ids) =>
      (await inChunks(ids, (chunk) => db.task.findMany({ where: { listId, id: { in: chunk } }, select: taskSelect })))
        .map(toTask)
        .sort((a, b) => a.seq - b.seq),
    idTaken: async (listId, id) => (await db.task.count({ where: { listId, id } })) > 0,
    async update(task, fromVersion) {
      const { id, listId, seq, createdAt, ...fields } = fromTask(task);
      const updated =
        (await db.$executeRaw`
          UPDATE "Task" SET ${assignmentsOf(fields)} WHERE "listId" = ${listId} AND "id" = ${id} AND "version" = ${fromVersion}`) === 1;
      if (updated) await reindexTask(db, task);
      return updated;
    },
    async edgesOf(listId, ids) {
      const rows = await inChunks(ids, (chunk) => {
        const list = Prisma.join(chunk);
        // Two index searches, one per end (an OR would read every edge of the list).
        return db.$queryRaw<EdgeRow[]>`
          SELECT "id", "blockerId", "blockedId" FROM "TaskEdge" WHERE "listId" = ${listId} AND "blockerId" IN (${list})
          UNION
          SELECT "id", "blockerId", "blockedId" FROM "TaskEdge" WHERE "listId" = ${listId} AND "blockedId" IN (${list})`;
      });
      return byEdgeOrder([...new Map(rows.map((r) => [r.id, r])).values()]);
    },
    blocksOf: async (listId, ids) =>
      byEdgeOrder(
        await inChunks(ids, (chunk) => db.taskEdge.findMany({ where: { listId, blockerId: { in: chunk } }, select: edgeSelect })),
      ),
    // One or more steps: a task does not reach itself (there are no self-edges), as the port and the fake say.
    reaches: async (listId, from, to) => from !== to && (await reachesByRank(ranks, listId, from, to)),
    async refreshOpenBlockers(listId, ids) {
      if (ids.length === 0) return;
      await inChunks(ids, async (chunk) => {
        await db.$executeRaw(refreshOpenBlockersSql(listId, chunk));
        return [];
      });
    },
    async addEdge(listId, edge) {
      await rankForEdge(ranks, listId, edge.blockerId, edge.blockedId);
      await db.$executeRaw`INSERT INTO "TaskEdge" ("listId", "blockerId", "blockedId") VALUES (${listId}, ${edge.blockerId}, ${edge.blockedId})`;
    },
    async removeEdge(listId, edge) {
      await db.taskEdge.deleteMany({ where: { listId, blockerId: edge.blockerId, blockedId: edge.blockedId } });
    },
    unresolvedBlockers: async (listId, ids) =>
      byEdgeOrder(
        await inChunks(
          ids,
          (chunk) => db.$queryRaw<EdgeRow[]>`
            SELECT e."id", e."blockerId", e."blockedId" FROM "TaskEdge" e JOIN "Task" b ON b."listId" = e."listId" AND b."id" = e."blockerId"
            WHERE e."listId" = ${listId} AND e."blockedId" IN (${Prisma.join(chunk)}) AND b."status" NOT IN (${Prisma.join(RESOLVED)})`,
        ),
      ),
    async list(listId, filter) {
      if (filter.statuses.length === 0) return [];
      // Ready: an index search on (listId, status, openBlockers, seq).
      const rows = await db.$queryRaw<TaskRow[]>`
        SELECT ${TASK_COLUMNS} FROM "Task"
        WHERE "listId" = ${listId} AND "status" IN (${Prisma.join(filter.statuses)})
        ${filter.owner === undefined ? Prisma.empty : Prisma.sql`AND "owner" = ${filter.owner}`}
        ${
          filter.readyFor === undefined
            ? Prisma.empty
            : Prisma.sql`AND "status" = 'pending' AND "openBlockers" = 0 AND ("owner" IS NULL OR "owner" = ${filter.readyFor})`
        }
        ${filter.ready ? Prisma.sql`AND "status" = 'pending' AND "openBlockers" = 0` : Prisma.empty}
        ${
          filter.priorities === undefined
            ? Prisma.empty
            : Prisma.sql`AND "priority" IN (${Prisma.join(filter.priorities.length ? filter.priorities.map((p) => Number(p.slice(1))) : [-1])})`
        }
        ${filter.label === undefined ? Prisma.empty : Prisma.sql`AND "labels" LIKE ${labelPattern(filter.label)} ESCAPE '\\'`}
        ORDER BY "seq" LIMIT ${filter.limit}`;
      return rows.map(toTask);
    },
    async firstReady(listId, agent) {
      const [row] = await db.$queryRaw<TaskRow[]>`
        SELECT ${TASK_COLUMNS} FROM "Task"
        WHERE "listId" = ${listId} AND "status" = 'pending' AND "openBlockers" = 0 AND ("owner" IS NULL OR "owner" = ${agent})
        ORDER BY "priority", "seq" LIMIT 1`;
      return row ? toTask(row) : null;
    },
    async graph(listId, statuses) {
      const tasks = (
        await db.task.findMany({ where: { listId, status: { in: [...statuses] } }, orderBy: { seq: 'asc' }, select: taskSelect })
      ).map(toTask);
      const edges = await db.taskEdge.findMany({
        where: { listId, blocker: { status: { in: [...statuses] } }, blocked: { status: { in: [...statuses] } } },
        orderBy: { id: 'asc' },
        select: edgeSelect,
      });
      return { tasks, edges: byEdgeOrder(edges) };
    },
    async appendChange({ changes, snapshot, ...rest }) {
      await db.$executeRaw`INSERT INTO "TaskChange" ${insertOf({ ...rest, changes: JSON.stringify(changes), snapshot: JSON.stringify(snapshot) })}`;
    },
    changesOf: async (listId, taskId) =>
      (await db.taskChange.findMany({ where: { listId, taskId }, orderBy: { seq: 'asc' }, select: changeSelect })).map(toChange),
    changesAfter: async (listId, seq, limit) =>
      (
        await db.taskChange.findMany({
          where: { listId, seq: { gt: clampToIntColumn(seq) } },
          orderBy: { seq: 'asc' },
          take: limit,
          select: changeSelect,
        })
      ).map(toChange),
    async lists(workspaceId) {
      const lists = await db.taskList.findMany({
        where: { workspaceId, staging: false },
        orderBy: { name: 'asc' },
        select: { id: true, workspaceId: true, name: true, createdAt: true, changeSeq: true },
      });
      const groups = await db.task.groupBy({
        by: ['listId', 'status'],
        where: { listId: { in: lists.map((l) => l.id) } },
        _count: { _all: true },
      });
      return lists.map((list) => ({
        ...list,
        counts: Object.fromEntries(groups.filter((g) => g.listId === list.id).map((g) => [g.status, g._count._all])),
      }));
    },
  };
}
