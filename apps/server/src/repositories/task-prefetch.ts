// Within one write on PostgreSQL: a task read with its edges, evidence, lease and requirements in the same statement,
// so the write's later reads of them are answered here instead of by a round trip each.
import { Prisma } from '../generated/prisma/client.ts';

export type EdgeRow = { id: number; blockerId: string; blockedId: string };
export type EvidenceRow = { id: number; listId: string; taskId: string; provenance: string; success: boolean; body: string; at: number };
export type LeaseRow = { listId: string; taskId: string; owner: string; leaseMs: number; expiresAt: number };

/** What one task's read brought along; a part set to undefined was written since (read it from the database). */
interface Around {
  edges: EdgeRow[] | undefined;
  evidence: EvidenceRow[] | undefined;
  leases: LeaseRow[] | undefined;
  requirements: string[] | undefined;
}

/**
 * The columns a task's read adds for what surrounds it (`FROM "Task" t`), as JSON: its edges (either end), evidence,
 * lease and requirements, times as epoch milliseconds. Each is an index search of a few rows; a tasks.update on
 * PostgreSQL reads them in its one statement instead of three more round trips.
 */
export const AROUND_COLUMNS = Prisma.raw(`
  (SELECT COALESCE(json_agg(json_build_array(e."id", e."blockerId", e."blockedId")), '[]'::json) FROM (
     SELECT "id", "blockerId", "blockedId" FROM "TaskEdge" WHERE "listId" = t."listId" AND "blockerId" = t."id"
     UNION
     SELECT "id", "blockerId", "blockedId" FROM "TaskEdge" WHERE "listId" = t."listId" AND "blockedId" = t."id") e) AS "aroundEdges",
  (SELECT COALESCE(json_agg(json_build_array(v."id", v."provenance", v."success", v."body",
     round(EXTRACT(EPOCH FROM v."at") * 1000)::float8)), '[]'::json)
   FROM "TaskEvidence" v WHERE v."listId" = t."listId" AND v."taskId" = t."id") AS "aroundEvidence",
  (SELECT COALESCE(json_agg(json_build_array(l."owner", l."leaseMs", round(EXTRACT(EPOCH FROM l."expiresAt") * 1000)::float8)), '[]'::json)
   FROM "TaskLease" l WHERE l."listId" = t."listId" AND l."taskId" = t."id") AS "aroundLeases",
  (SELECT COALESCE(json_agg(r."capability" ORDER BY r."capability"), '[]'::json)
   FROM "TaskRequirement" r WHERE r."listId" = t."listId" AND r."taskId" = t."id") AS "aroundRequirements"`);

/** The JSON columns AROUND_COLUMNS adds to a task's row. */
export interface AroundColumns {
  aroundEdges: [number, string, string][];
  aroundEvidence: [number, string, boolean, string, number][];
  aroundLeases: [string, number, number][];
  aroundRequirements: string[];
}

const key = (listId: string, taskId: string) => `${listId}\n${taskId}`;

/** What the reads of one write brought along, by task; each part forgotten once the write changes it. */
export class TaskPrefetch {
  readonly #around = new Map<string, Around>();

  /** Keeps what a task's row brought along (AROUND_COLUMNS). */
  put(listId: string, taskId: string, row: AroundColumns) {
    this.#around.set(key(listId, taskId), {
      edges: row.aroundEdges.map(([id, blockerId, blockedId]) => ({ id: Number(id), blockerId, blockedId })),
      evidence: row.aroundEvidence.map(([id, provenance, success, body, at]) => ({
        id: Number(id),
        listId,
        taskId,
        provenance,
        success,
        body,
        at,
      })),
      leases: row.aroundLeases.map(([owner, leaseMs, expiresAt]) => ({ listId, taskId, owner, leaseMs: Number(leaseMs), expiresAt })),
      requirements: row.aroundRequirements,
    });
  }

  /** One part for each of `taskIds`, all kept: joined in their order; else undefined (read them from the database). */
  #all<P extends keyof Around>(listId: string, taskIds: readonly string[], part: P): NonNullable<Around[P]>[] | undefined {
    const parts: NonNullable<Around[P]>[] = [];
    for (const taskId of taskIds) {
      const value = this.#around.get(key(listId, taskId))?.[part];
      if (value === undefined) return undefined;
      parts.push(value);
    }
    return parts;
  }

  /** The edges at either end of these tasks (each once), when kept for all of them. */
  edges(listId: string, taskIds: readonly string[]): EdgeRow[] | undefined {
    const parts = this.#all(listId, taskIds, 'edges');
    return parts && [...new Map(parts.flat().map((e) => [e.id, e])).values()];
  }

  /** Evidence of these tasks by id (as the statements order it), when kept for all of them. */
  evidence = (listId: string, taskIds: readonly string[]) =>
    this.#all(listId, taskIds, 'evidence')
      ?.flat()
      .sort((a, b) => a.id - b.id);

  /**
   * One task's lease and requirements (these in the database's own order of their names): answered for one task at a
   * time, as several tasks' would have to be merged in the database's collation (trustOf orders leases by owner too).
   */
  leases = (listId: string, taskIds: readonly string[]) =>
    taskIds.length === 1 ? this.#all(listId, taskIds, 'leases')?.flat() : undefined;
  requirements = (listId: string, taskIds: readonly string[]) =>
    taskIds.length === 1
      ? this.#all(listId, taskIds, 'requirements')?.flatMap((names) =>
          names.map((capability) => ({ taskId: taskIds[0] as string, capability })),
        )
      : undefined;

  /** Edges were written: every task's kept edges are forgotten (an edge has two ends, an import moves many). */
  edgesWritten() {
    for (const around of this.#around.values()) around.edges = undefined;
  }

  /** Evidence was added to these tasks. */
  evidenceWritten(listId: string, taskIds: readonly string[]) {
    for (const taskId of taskIds) {
      const around = this.#around.get(key(listId, taskId));
      if (around) around.evidence = undefined;
    }
  }

  /** The task's lease is now `lease` (null: dropped). */
  leaseIs(listId: string, taskId: string, lease: LeaseRow | null) {
    const around = this.#around.get(key(listId, taskId));
    if (around) around.leases = lease ? [lease] : [];
  }

  /** The task's requirements were replaced. */
  requirementsWritten(listId: string, taskId: string) {
    const around = this.#around.get(key(listId, taskId));
    if (around) around.requirements = undefined;
  }
}
