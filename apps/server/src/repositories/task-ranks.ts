// Task ranks: a topological order of each list kept in `Task.rank` (every edge runs from a lower rank to a higher).
// An edge that agrees with the order cannot close a cycle, so the check is one lookup; an edge against it walks only
// the tasks ranked between its ends, and is then made to agree by re-ranking just those (Pearce–Kelly). Portable SQL.
import { graph } from '@agent-tasks/core';
import { Prisma } from '../generated/prisma/client.ts';
import type { AfterCommit, Tx } from './tx.ts';
import { CHUNK } from './raw-sql.ts';
import { rawSql } from '../db/direct-sql.ts';

type Ranked = { id: string; rank: number };

/** Lists whose every task is known to carry a rank (tasks get one when inserted; older lists are ranked once). */
export type RankedLists = Set<string>;

async function setRanks(db: Tx, listId: string, ranks: Ranked[]) {
  for (let i = 0; i < ranks.length; i += CHUNK) {
    const chunk = ranks.slice(i, i + CHUNK);
    const cases = Prisma.join(
      // The cast: PostgreSQL types a bare parameter in THEN as text ("rank" is an integer); SQLite takes it as is.
      chunk.map((r) => Prisma.sql`WHEN ${r.id} THEN CAST(${r.rank} AS INTEGER)`),
      ' ',
    );
    await rawSql(db).$executeRaw`
      UPDATE "Task" SET "rank" = CASE "id" ${cases} END WHERE "listId" = ${listId} AND "id" IN (${Prisma.join(chunk.map((r) => r.id))})`;
  }
}

/**
 * Ranks a list made before ranks were kept: blockers before what they block (core's stable topological order);
 * true when it wrote ranks. Remembered once committed, so a ranked list is checked once per process.
 */
export async function ensureRanked(db: Tx, listId: string, ranked: RankedLists, afterCommit: AfterCommit): Promise<boolean> {
  if (ranked.has(listId)) return false;
  const [unranked] = await rawSql(db).$queryRaw<unknown[]>`SELECT 1 AS "x" FROM "Task" WHERE "listId" = ${listId} AND "rank" = 0 LIMIT 1`;
  if (unranked) {
    const tasks = await rawSql(db).$queryRaw<
      { id: string; seq: number }[]
    >`SELECT "id", "seq" FROM "Task" WHERE "listId" = ${listId} ORDER BY "seq"`;
    const edges = await rawSql(db).$queryRaw<{ blockerId: string; blockedId: string }[]>`
      SELECT "blockerId", "blockedId" FROM "TaskEdge" WHERE "listId" = ${listId}`;
    // Blockers first, otherwise in creation order (a list whose edges were all checked has no cycle).
    const sorted = graph.topologicalOrder(
      tasks.map((t) => t.id),
      edges.map((e) => [e.blockerId, e.blockedId] as const),
    );
    const order: Ranked[] = ('order' in sorted ? sorted.order : []).map((id, i) => ({ id, rank: i + 1 }));
    await setRanks(db, listId, order);
  }
  afterCommit(() => ranked.add(listId));
  return Boolean(unranked);
}

/**
 * Ranks the ends of a batch of new edges whose ends have no other edges (an import's tasks, inserted just before):
 * the ranks they already hold are dealt out again in a topological order of the batch (core's stable order: ready tasks by current rank),
 * so every edge runs from a lower rank to a higher and no other task's order changes. A handful of statements.
 */
export async function rankNewEdges(db: Tx, listId: string, edges: readonly { blockerId: string; blockedId: string }[]) {
  if (edges.length === 0) return;
  const ends = [...new Set(edges.flatMap((e) => [e.blockerId, e.blockedId]))];
  const held: Ranked[] = [];
  for (let i = 0; i < ends.length; i += CHUNK) {
    const chunk = Prisma.join(ends.slice(i, i + CHUNK));
    held.push(...(await rawSql(db).$queryRaw<Ranked[]>`SELECT "id", "rank" FROM "Task" WHERE "listId" = ${listId} AND "id" IN (${chunk})`));
  }
  held.sort((a, b) => a.rank - b.rank);
  // Core's stable order: ready tasks by current rank, so edges that already agree with the ranks move nothing.
  const sorted = graph.topologicalOrder(
    held.map((t) => t.id),
    edges.map((e) => [e.blockerId, e.blockedId] as const),
  );
  if (!('order' in sorted)) throw new Error('rankNewEdges: the edges close a cycle (they were to be checked before)');
  const order = sorted.order.map((id, i) => ({ id, rank: (held[i] as Ranked).rank }));
  const before = new Map(held.map((t) => [t.id, t.rank]));
  await setRanks(
    db,
    listId,
    order.filter((r) => before.get(r.id) !== r.rank),
  );
}

export interface RankContext {
  db: Tx;
  ranked: RankedLists;
  afterCommit: AfterCommit;
  /** Within one transaction: edges (`agreeingKey`) the cycle check already found in agreement with the order. */
  agreeing: Set<string>;
}

const agreeingKey = (listId: string, blockerId: string, blockedId: string) => `${listId}\u0000${blockerId}>${blockedId}`;

/** The ranks of two tasks of one list, ranking the list first if it was made before ranks were kept. */
async function ranksOf({ db, ranked, afterCommit }: RankContext, listId: string, a: string, b: string): Promise<[number, number] | null> {
  const read = async () => {
    const rows = await rawSql(db).$queryRaw<Ranked[]>`SELECT "id", "rank" FROM "Task" WHERE "listId" = ${listId} AND "id" IN (${a}, ${b})`;
    return [rows.find((r) => r.id === a), rows.find((r) => r.id === b)] as const;
  };
  let [ra, rb] = await read();
  if (!ra || !rb) return null;
  if (!ranked.has(listId) && (await ensureRanked(db, listId, ranked, afterCommit))) [ra, rb] = await read();
  return ra && rb ? [ra.rank, rb.rank] : null;
}

// The walks join with CROSS JOIN: SQLite then keeps the written order (walk, edge, task), each step an index search on
// (listId, end); without it, it may loop over the whole list's edges or tasks per step. PostgreSQL plans it as a join.

/** `from` and every task of the list reachable from it along "blocks" edges whose rank is below `below`. */
const forwardWithin = (db: Tx, listId: string, from: string, below: number) => rawSql(db).$queryRaw<Ranked[]>`
  WITH RECURSIVE "walk"("id") AS (
    SELECT ${from}
    UNION
    SELECT e."blockedId" FROM "walk" w CROSS JOIN "TaskEdge" e CROSS JOIN "Task" t
    WHERE e."listId" = ${listId} AND e."blockerId" = w."id" AND t."listId" = ${listId} AND t."id" = e."blockedId" AND t."rank" < ${below}
  )
  SELECT t."id", t."rank" FROM "walk" w CROSS JOIN "Task" t WHERE t."listId" = ${listId} AND t."id" = w."id"`;

/** `to` and every task of the list that reaches it along "blocks" edges whose rank is above `above`. */
const backwardWithin = (db: Tx, listId: string, to: string, above: number) => rawSql(db).$queryRaw<Ranked[]>`
  WITH RECURSIVE "walk"("id") AS (
    SELECT ${to}
    UNION
    SELECT e."blockerId" FROM "walk" w CROSS JOIN "TaskEdge" e CROSS JOIN "Task" t
    WHERE e."listId" = ${listId} AND e."blockedId" = w."id" AND t."listId" = ${listId} AND t."id" = e."blockerId" AND t."rank" > ${above}
  )
  SELECT t."id", t."rank" FROM "walk" w CROSS JOIN "Task" t WHERE t."listId" = ${listId} AND t."id" = w."id"`;

/** Whether `to` can be reached from `from`: never when `from` ranks after `to`; else a walk between their ranks. */
export async function reachesByRank(context: RankContext, listId: string, from: string, to: string): Promise<boolean> {
  const { db } = context;
  const ranks = await ranksOf(context, listId, from, to);
  if (!ranks) return false;
  const [rf, rt] = ranks;
  if (rf > rt) {
    // The edge to → from that is being checked agrees with the order: adding it needs no re-ranking.
    context.agreeing.add(agreeingKey(listId, to, from));
    return false;
  }
  return (await forwardWithin(db, listId, from, rt + 1)).some((r) => r.id === to);
}

/** Before adding blocker → blocked: when the edge runs against the order, re-ranks the tasks between its ends. */
export async function rankForEdge(context: RankContext, listId: string, blockerId: string, blockedId: string) {
  const { db } = context;
  if (context.agreeing.has(agreeingKey(listId, blockerId, blockedId))) return;
  const ranks = await ranksOf(context, listId, blockerId, blockedId);
  if (!ranks) return;
  const [upper, lower] = ranks;
  if (upper < lower) return;
  context.agreeing.clear();
  // What the blocked task leads to (ranked before the blocker), and what leads to the blocker (ranked after the
  // blocked task): the first must all come after the second. Their ranks, reused in that order, make it so.
  const after = await forwardWithin(db, listId, blockedId, upper);
  if (after.some((r) => r.id === blockerId)) throw new Error(`edge ${blockerId} -> ${blockedId} would close a cycle`);
  const before = await backwardWithin(db, listId, blockerId, lower);
  const byRank = (a: Ranked, b: Ranked) => a.rank - b.rank;
  const pool = [...before, ...after].map((r) => r.rank).sort((a, b) => a - b);
  const moved = [...before.sort(byRank), ...after.sort(byRank)].map((r, i) => ({ id: r.id, rank: pool[i] as number }));
  await setRanks(db, listId, moved);
}
