// Prisma implementation of the domain's TaskRepository: tasks, their edges, and the change log.
import {
  type TaskChangeRecord,
  type TaskEdge,
  type TaskListRecord,
  type TaskRecord,
  type TaskSummaryRecord,
  type TaskWrite,
  type TaskRepository,
  cycleClosedBy,
} from '@agent-tasks/core';
import type { Priority, TaskStatus } from '@agent-tasks/schema';
import { Prisma } from '../generated/prisma/client.ts';
import { CHUNK, assignmentsOf, columnsOf, inChunks, insertsOf } from './raw-sql.ts';
import { type RankContext, type RankedLists, rankForEdge, rankNewEdges, reachesByRank } from './task-ranks.ts';
import type { Dialect, Tx, WriteTurn } from './tx.ts';
import { fromJson } from './json-column.ts';
import { clampToIntColumn } from './int-column.ts';
import { indexNewTasks, reindexTask } from './prisma-task-texts.ts';
import { rawSql } from '../db/direct-sql.ts';
import { CHANGES_IN_ROWS } from '../db/savepoints.ts';
import { AROUND_COLUMNS, type AroundColumns, type EdgeRow, type TaskPrefetch } from './task-prefetch.ts';

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
  sessionId: true,
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
type SummaryRow = Pick<TaskRow, keyof TaskSummaryRecord>;
const toSummary = (row: SummaryRow): TaskSummaryRecord => ({
  id: row.id,
  seq: row.seq,
  subject: row.subject,
  status: row.status as TaskStatus,
  activeForm: row.activeForm,
  owner: row.owner,
  priority: row.priority >= NO_PRIORITY ? null : (`P${Number(row.priority)}` as Priority),
  labels: fromJson(row.labels),
  version: row.version,
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
/** A list page's columns: the description, metadata and dates stay unread (half the cost of a 50-task page's read). */
const SUMMARY_COLUMNS = columnsOf({
  id: true,
  seq: true,
  subject: true,
  status: true,
  activeForm: true,
  owner: true,
  priority: true,
  labels: true,
  version: true,
});

/** Per store: lists by workspace and name (a list's id, name and workspace never change), and the ranked lists. */
export interface TaskRepositoryState {
  lists: Map<string, TaskListRecord>;
  ranked: RankedLists;
  /** PostgreSQL: a write takes its list's row lock first (SQLite's BEGIN IMMEDIATE already runs one write at a time). */
  lockLists: boolean;
  /**
   * The lists whose lock a transaction holds: the writes after the one that took it skip it (a lock is released only
   * with the savepoint or transaction it was taken in; see `lockList` for when a write notes it).
   */
  heldLists: WeakMap<object, Set<string>>;
  /** PostgreSQL: a one-task write is one data-modifying `WITH`. */
  dialect: Dialect;
}

export const taskRepositoryState = (dialect: Dialect = 'sqlite'): TaskRepositoryState => ({
  lists: new Map(),
  ranked: new Set(),
  lockLists: dialect === 'postgres',
  heldLists: new WeakMap(),
  dialect,
});

const refreshOpenBlockersSql = (listId: string, ids: string[]) => Prisma.sql`
  UPDATE "Task" SET "openBlockers" = (
    SELECT COUNT(*) FROM "TaskEdge" e JOIN "Task" b ON b."listId" = e."listId" AND b."id" = e."blockerId"
    WHERE e."listId" = "Task"."listId" AND e."blockedId" = "Task"."id" AND b."status" NOT IN ('completed', 'deleted')
  )
  WHERE "listId" = ${listId} AND "id" IN (${Prisma.join(ids)})`;

const isStaging = async (db: Tx, listId: string) => (await db.taskList.count({ where: { id: listId, staging: true } })) > 0;

/** Recounts the open (neither completed nor deleted) blockers of these tasks, which the readiness queries use. */
async function refreshOpenBlockers(db: Tx, listId: string, ids: readonly string[]) {
  await inChunks(ids, async (chunk) => {
    await rawSql(db).$executeRaw(refreshOpenBlockersSql(listId, chunk));
    return [];
  });
}

/** Removes a staging list with its rows: tasks go with their list, edges with their tasks; changes have no foreign key. */
async function dropStaged(db: Tx, ids: readonly string[]) {
  if (ids.length === 0) return;
  await db.taskChange.deleteMany({ where: { listId: { in: [...ids] } } });
  await db.taskList.deleteMany({ where: { id: { in: [...ids] } } });
}

const insertChanges = async (db: Tx, changes: readonly TaskChangeRecord[]) => {
  const rows = changes.map(({ changes: c, snapshot, ...rest }) => ({
    ...rest,
    changes: JSON.stringify(c),
    snapshot: JSON.stringify(snapshot),
  }));
  for (const values of insertsOf(rows)) await rawSql(db).$executeRaw`INSERT INTO "TaskChange" ${values}`;
};

const insertTasks = async (db: Tx, tasks: readonly TaskRecord[]) => {
  // New tasks rank after every task of their list (by seq); a staged import's graph re-ranks where its edges need it.
  for (const values of insertsOf(tasks.map((task) => ({ ...fromTask(task), rank: task.seq })))) {
    await rawSql(db).$executeRaw`INSERT INTO "Task" ${values}`;
  }
};

const insertEdges = async (db: Tx, listId: string, edges: readonly TaskEdge[]) => {
  for (const values of insertsOf(edges.map((e) => ({ listId, blockerId: e.blockerId, blockedId: e.blockedId })))) {
    await rawSql(db).$executeRaw`INSERT INTO "TaskEdge" ${values}`;
  }
};

/**
 * PostgreSQL: one task's compare-and-set, the list's next feed positions and the write's change records in one
 * statement (one round trip for three). It answers a row only if the task was still at `fromVersion`: otherwise it
 * changed nothing, and the answer is null.
 */
async function commitOneTask(
  db: Tx,
  listId: string,
  { task, fromVersion }: TaskWrite['tasks'][number],
  changes: TaskWrite['changes'],
): Promise<TaskChangeRecord[] | null> {
  const { id, listId: _list, seq, createdAt, ...fields } = fromTask(task);
  const rows = changes.map(
    (c, i) => Prisma.sql`(CAST(${c.taskId} AS TEXT), CAST(${c.kind} AS TEXT), CAST(${c.sessionId} AS TEXT), CAST(${c.keyId} AS TEXT),
      CAST(${c.at} AS TIMESTAMP(3)), CAST(${JSON.stringify(c.changes)} AS TEXT), CAST(${JSON.stringify(c.snapshot)} AS TEXT), ${Prisma.raw(String(i))})`,
  );
  const [row] = await rawSql(db).$queryRaw<{ last: number | bigint | null }[]>`
    WITH "written" AS (
      UPDATE "Task" SET ${assignmentsOf(fields)} WHERE "listId" = ${listId} AND "id" = ${id} AND "version" = ${fromVersion} RETURNING 1
    ), "reserved" AS (
      UPDATE "TaskList" SET "changeSeq" = "changeSeq" + ${Prisma.raw(String(changes.length))}
      WHERE "id" = ${listId} AND EXISTS (SELECT 1 FROM "written") RETURNING "changeSeq" AS "last"
    ), "recorded" AS (
      INSERT INTO "TaskChange" ("listId", "taskId", "kind", "sessionId", "keyId", "at", "changes", "snapshot", "seq")
      SELECT CAST(${listId} AS TEXT), c."taskId", c."kind", c."sessionId", c."keyId", c."at", c."changes", c."snapshot",
             r."last" - ${Prisma.raw(String(changes.length - 1))} + c."i"
      FROM "reserved" r, (VALUES ${Prisma.join(rows)}) AS c("taskId", "kind", "sessionId", "keyId", "at", "changes", "snapshot", "i")
    )
    SELECT r."last" FROM "written" LEFT JOIN "reserved" r ON TRUE
    ${Prisma.raw(CHANGES_IN_ROWS)}`;
  if (!row) return null;
  if (row.last === null) throw new Error(`task list ${listId} not found while reserving its changeSeq`);
  const first = Number(row.last) - changes.length + 1;
  return changes.map((change, i) => ({ ...change, listId, seq: first + i }));
}

/** Reserves `count` of a list counter at once: the first of them (raw SQL: it runs on every task write). */
async function reserve(db: Tx, listId: string, counter: 'taskSeq' | 'changeSeq', count: number): Promise<number> {
  const column = Prisma.raw(`"${counter}"`);
  const [row] = await rawSql(db).$queryRaw<{ last: number | bigint }[]>`
    UPDATE "TaskList" SET ${column} = ${column} + ${count} WHERE "id" = ${listId} RETURNING ${column} AS "last"`;
  if (!row) throw new Error(`task list ${listId} not found while reserving its ${counter}`);
  return Number(row.last) - count + 1;
}

export function prismaTaskRepository(db: Tx, state: TaskRepositoryState, turn: WriteTurn, prefetch?: TaskPrefetch): TaskRepository {
  const { afterCommit, transaction } = turn;
  /**
   * PostgreSQL: the list's row lock, unless its transaction holds it already. Noted as it is sent where a refusal rolls
   * back the whole transaction or nothing (a write side by side with others sends its statements after the lock's);
   * once kept where the write has a savepoint of its own (rolled back to, the savepoint releases the lock).
   */
  const lockList = async (listId: string) => {
    const held = transaction ? state.heldLists.get(transaction) : undefined;
    if (held?.has(listId)) return;
    const locked = rawSql(db).$queryRaw`SELECT "id" FROM "TaskList" WHERE "id" = ${listId} FOR UPDATE`;
    if (transaction) {
      const note = () => state.heldLists.set(transaction, (state.heldLists.get(transaction) ?? new Set<string>()).add(listId));
      if (turn.undoneAlone) turn.afterKept(note);
      else note();
    }
    await locked;
  };
  const ranks: RankContext = { db, ranked: state.ranked, afterCommit, agreeing: new Set() };
  const blocksOf = async (listId: string, ids: readonly string[]) =>
    byEdgeOrder(await inChunks(ids, (chunk) => db.taskEdge.findMany({ where: { listId, blockerId: { in: chunk } }, select: edgeSelect })));
  return {
    async findList(workspaceId, name, options) {
      const key = `${workspaceId}\u0000${name}`;
      let list = state.lists.get(key) ?? null;
      if (!list) {
        const found = await db.taskList.findUnique({
          where: { workspaceId_name: { workspaceId, name } },
          select: { id: true, workspaceId: true, name: true, createdAt: true, staging: true },
        });
        list =
          found && !found.staging ? { id: found.id, workspaceId: found.workspaceId, name: found.name, createdAt: found.createdAt } : null;
        const known = list;
        if (known) {
          afterCommit(() => {
            if (state.lists.size >= 10_000) state.lists.delete(state.lists.keys().next().value as string);
            state.lists.set(key, known);
          });
        }
      }
      // PostgreSQL: the list's row lock (SQLite's BEGIN IMMEDIATE already runs one write at a time).
      if (list && options?.hold && state.lockLists) await lockList(list.id);
      return list;
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
    // Raw SQL: a cached task list page reads it on every request (core's ReadCache).
    async feedPosition(listId) {
      const [row] = await rawSql(db).$queryRaw<{ changeSeq: number | bigint }[]>`
        SELECT "changeSeq" FROM "TaskList" WHERE "id" = ${listId}`;
      return row ? Number(row.changeSeq) : 0;
    },
    taskSeqOf: async (listId) => (await db.taskList.findUnique({ where: { id: listId }, select: { taskSeq: true } }))?.taskSeq ?? 0,
    async raiseTaskSeq(listId, atLeast) {
      await db.taskList.updateMany({ where: { id: listId, taskSeq: { lt: atLeast } }, data: { taskSeq: atLeast } });
    },
    async insert(fresh) {
      const seq = fresh.seq ?? (await reserve(db, fresh.listId, 'taskSeq', 1));
      // A new task ranks after every task of its list (its seq is the list's highest), before any edge reaches it.
      await db.task.create({ data: { ...fromTask({ ...fresh, seq }), rank: seq }, select: { id: true } });
      await indexNewTasks(db, [fresh]);
      return seq;
    },
    getMany: async (listId, ids) =>
      (await inChunks(ids, (chunk) => db.task.findMany({ where: { listId, id: { in: chunk } }, select: taskSelect })))
        .map(toTask)
        .sort((a, b) => a.seq - b.seq),
    async get(listId, id) {
      if (prefetch) {
        const [row] = await rawSql(db).$queryRaw<(TaskRow & AroundColumns)[]>`
          SELECT ${TASK_COLUMNS}, ${AROUND_COLUMNS} FROM "Task" t WHERE t."id" = ${id} AND t."listId" = ${listId}`;
        if (!row) return null;
        const { aroundEdges, aroundEvidence, aroundLeases, aroundRequirements, ...task } = row;
        prefetch.put(listId, id, { aroundEdges, aroundEvidence, aroundLeases, aroundRequirements });
        return toTask(task);
      }
      const [row] = await rawSql(db).$queryRaw<TaskRow[]>`SELECT ${TASK_COLUMNS} FROM "Task" WHERE "id" = ${id} AND "listId" = ${listId}`;
      return row ? toTask(row) : null;
    },
    async addEdge(listId, { blockerId, blockedId }) {
      const there = await db.taskEdge.count({ where: { listId, blockerId, blockedId } });
      if (there > 0) return { added: false };
      // One ranked reachability query settles the common case; only a refusal walks the graph to name the cycle.
      if (blockerId !== blockedId && (await reachesByRank(ranks, listId, blockedId, blockerId))) {
        const cycle = await cycleClosedBy(blockerId, blockedId, (ids) => blocksOf(listId, ids));
        if (cycle) return { added: false, cycle };
      }
      await rankForEdge(ranks, listId, blockerId, blockedId);
      prefetch?.edgesWritten();
      await rawSql(db)
        .$executeRaw`INSERT INTO "TaskEdge" ("listId", "blockerId", "blockedId") VALUES (${listId}, ${blockerId}, ${blockedId})`;
      return { added: true };
    },
    async removeEdges(listId, edges) {
      if (edges.length === 0) return [];
      const wanted = new Set(edges.map((e) => `${e.blockerId}\n${e.blockedId}`));
      const ends = [...new Set(edges.map((e) => e.blockedId))];
      const rows = await inChunks(
        ends,
        (chunk) => rawSql(db).$queryRaw<EdgeRow[]>`
          SELECT "id", "blockerId", "blockedId" FROM "TaskEdge" WHERE "listId" = ${listId} AND "blockedId" IN (${Prisma.join(chunk)})`,
      );
      const gone = rows.filter((r) => wanted.has(`${r.blockerId}\n${r.blockedId}`));
      if (gone.length) prefetch?.edgesWritten();
      for (let i = 0; i < gone.length; i += CHUNK) {
        const chunk = gone.slice(i, i + CHUNK).map((r) => r.id);
        await rawSql(db).$executeRaw`DELETE FROM "TaskEdge" WHERE "listId" = ${listId} AND "id" IN (${Prisma.join(chunk)})`;
      }
      return byEdgeOrder(gone);
    },
    async commit(listId, write) {
      const [only, ...others] = write.tasks;
      if (state.dialect === 'postgres' && only && others.length === 0 && write.changes.length > 0) {
        const records = await commitOneTask(db, listId, only, write.changes);
        if (!records) return null;
        if (!write.texts || write.texts.includes(only.task.id)) await reindexTask(db, only.task);
        if (write.readiness.length) await refreshOpenBlockers(db, listId, write.readiness);
        return records;
      }
      for (const { task, fromVersion } of write.tasks) {
        const { id, listId: _list, seq, createdAt, ...fields } = fromTask(task);
        const updated = await rawSql(db).$executeRaw`
          UPDATE "Task" SET ${assignmentsOf(fields)} WHERE "listId" = ${listId} AND "id" = ${id} AND "version" = ${fromVersion}`;
        if (updated !== 1) return null;
        if (!write.texts || write.texts.includes(task.id)) await reindexTask(db, task);
      }
      let records: TaskChangeRecord[] = [];
      if (write.changes.length) {
        const first = await reserve(db, listId, 'changeSeq', write.changes.length);
        records = write.changes.map((change, i) => ({ ...change, listId, seq: first + i }));
        await insertChanges(db, records);
      }
      if (write.readiness.length) await refreshOpenBlockers(db, listId, write.readiness);
      return records;
    },
    async importInProgress(workspaceId, abandonedBefore) {
      if (state.lockLists) await rawSql(db).$queryRaw`SELECT 1 AS "locked" FROM pg_advisory_xact_lock(hashtext(${workspaceId}))`;
      if (abandonedBefore) {
        const lists = await db.taskList.findMany({
          where: { workspaceId, staging: true, createdAt: { lt: abandonedBefore } },
          select: { id: true },
        });
        await dropStaged(
          db,
          lists.map((l) => l.id),
        );
        // Their tasks and edges go with them (by cascade).
        if (lists.length) prefetch?.edgesWritten();
      }
      const newest = await db.taskList.findFirst({
        where: { workspaceId, staging: true },
        orderBy: { createdAt: 'desc' },
        select: { createdAt: true },
      });
      return newest?.createdAt ?? null;
    },
    async taken(listId, asked) {
      const ids = await inChunks(asked.ids ?? [], (chunk) =>
        db.task.findMany({ where: { listId, id: { in: chunk } }, select: { id: true } }),
      );
      const seqs: { seq: number }[] = [];
      const wanted = asked.seqs ?? [];
      for (let i = 0; i < wanted.length; i += CHUNK) {
        seqs.push(...(await db.task.findMany({ where: { listId, seq: { in: wanted.slice(i, i + CHUNK) } }, select: { seq: true } })));
      }
      return { ids: ids.map((r) => r.id), seqs: seqs.map((r) => r.seq).sort((a, b) => a - b) };
    },
    async stageImport(staging, at, rows) {
      // The heartbeat: the staging list's createdAt, renewed by each staging write; the list is made on first use.
      const { count } = await db.taskList.updateMany({ where: { id: staging.id, staging: true }, data: { createdAt: at } });
      if (count === 0) await db.taskList.create({ data: { ...staging, createdAt: at, staging: true }, select: { id: true } });
      if (rows.tasks?.length) {
        const tasks = rows.tasks.map((t) => ({ ...t, listId: staging.id }));
        await insertTasks(db, tasks);
        await indexNewTasks(db, tasks);
      }
      if (rows.edges?.length) {
        await insertEdges(db, staging.id, rows.edges);
        prefetch?.edgesWritten();
        // A recount is a full count: a task blocked in several slices is right after the last of them.
        await refreshOpenBlockers(db, staging.id, [...new Set(rows.edges.map((e) => e.blockedId))]);
      }
      if (rows.changes?.length)
        await insertChanges(
          db,
          rows.changes.map((c) => ({ ...c, listId: staging.id })),
        );
      // The ends of an import's edges re-ranked among themselves (its edges join only its new tasks).
      if (rows.graph?.length) await rankNewEdges(db, staging.id, rows.graph);
    },
    async publishImport(stagingId, target, count) {
      if ('name' in target) {
        const { count: promoted } = await db.taskList.updateMany({
          where: { id: stagingId, staging: true },
          data: { name: target.name, staging: false, taskSeq: target.taskSeq, changeSeq: count },
        });
        if (promoted !== 1) throw new Error(`task list ${stagingId} is not a staging list`);
        return { taskShift: 0, firstChange: 1 };
      }
      if (!(await isStaging(db, stagingId))) throw new Error(`task list ${stagingId} is not a staging list`);
      const { listId } = target;
      let taskShift = 0;
      if (target.keepNumbers !== undefined) {
        await db.taskList.updateMany({ where: { id: listId, taskSeq: { lt: target.keepNumbers } }, data: { taskSeq: target.keepNumbers } });
      } else taskShift = (await reserve(db, listId, 'taskSeq', count)) - target.stagedFrom;
      // Moved change records keep their order after the list's; when the numbers moved, they name the wrong #n: dropped.
      const firstChange = taskShift === 0 ? await reserve(db, listId, 'changeSeq', count) : 0;
      if (taskShift !== 0) await db.taskChange.deleteMany({ where: { listId: stagingId } });
      // Edges follow their tasks (ON UPDATE CASCADE on both ends, checked at the end of the statement).
      await rawSql(db).$executeRaw`
        UPDATE "Task" SET "listId" = ${listId}, "seq" = "seq" + ${taskShift}, "rank" = "rank" + ${taskShift} WHERE "listId" = ${stagingId}`;
      await rawSql(db).$executeRaw`UPDATE "TaskEdge" SET "listId" = ${listId} WHERE "listId" = ${stagingId}`;
      prefetch?.edgesWritten();
      await rawSql(db)
        .$executeRaw`UPDATE "TaskChange" SET "listId" = ${listId}, "seq" = "seq" + ${firstChange - 1} WHERE "listId" = ${stagingId}`;
      await db.taskList.delete({ where: { id: stagingId }, select: { id: true } });
      return { taskShift, firstChange };
    },
    async abandonImport(stagingId, counter) {
      if (await isStaging(db, stagingId)) {
        await dropStaged(db, [stagingId]);
        prefetch?.edgesWritten();
      }
      if (counter) {
        await db.taskList.updateMany({ where: { id: counter.listId, taskSeq: counter.to }, data: { taskSeq: counter.from } });
      }
    },
    async edgesOf(listId, ids) {
      const kept = prefetch?.edges(listId, ids);
      if (kept) return byEdgeOrder(kept);
      const rows = await inChunks(ids, (chunk) => {
        const list = Prisma.join(chunk);
        // Two index searches, one per end (an OR would read every edge of the list).
        return rawSql(db).$queryRaw<EdgeRow[]>`
          SELECT "id", "blockerId", "blockedId" FROM "TaskEdge" WHERE "listId" = ${listId} AND "blockerId" IN (${list})
          UNION
          SELECT "id", "blockerId", "blockedId" FROM "TaskEdge" WHERE "listId" = ${listId} AND "blockedId" IN (${list})`;
      });
      return byEdgeOrder([...new Map(rows.map((r) => [r.id, r])).values()]);
    },
    unresolvedBlockers: async (listId, ids) =>
      byEdgeOrder(
        await inChunks(
          ids,
          (chunk) => rawSql(db).$queryRaw<EdgeRow[]>`
            SELECT e."id", e."blockerId", e."blockedId" FROM "TaskEdge" e JOIN "Task" b ON b."listId" = e."listId" AND b."id" = e."blockerId"
            WHERE e."listId" = ${listId} AND e."blockedId" IN (${Prisma.join(chunk)}) AND b."status" NOT IN (${Prisma.join(RESOLVED)})`,
        ),
      ),
    async list(listId, filter) {
      if (filter.statuses.length === 0) return [];
      // Ready: an index search on (listId, status, openBlockers, seq).
      const rows = await rawSql(db).$queryRaw<SummaryRow[]>`
        SELECT ${SUMMARY_COLUMNS} FROM "Task"
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
      return rows.map(toSummary);
    },
    async firstReady(listId, agent) {
      const [row] = await rawSql(db).$queryRaw<TaskRow[]>`
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
