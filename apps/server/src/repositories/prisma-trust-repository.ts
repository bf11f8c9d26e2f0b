// Prisma implementation of the domain's TrustRepository: list settings, evidence, leases, requirements, capabilities, GitHub.
import type { EvidenceRecord, LeaseRecord, TrustRepository } from '@agent-tasks/core';
import type { EvidenceInput, EvidenceProvenance } from '@agent-tasks/schema';
import { Prisma } from '../generated/prisma/client.ts';
import { fromJson } from './json-column.ts';
import { chunkFor, columnsOf, inChunks, insertOf } from './raw-sql.ts';
import type { Tx } from './tx.ts';
import type { TaskPrefetch } from './task-prefetch.ts';
import { rawSql } from '../db/direct-sql.ts';

const OFF = { requireEvidence: false, requireVerified: false, leaseMs: null };

type EvidenceRow = {
  listId: string;
  taskId: string;
  provenance: string;
  success: boolean | number;
  body: string;
  at: Date | number | string;
};
/** Raw rows come back as the driver gives them: SQLite's booleans as 0/1, a date possibly as its epoch number. */
const dateOf = (value: Date | number | string) => (value instanceof Date ? value : new Date(value));
const toEvidence = (r: EvidenceRow): EvidenceRecord => ({
  listId: r.listId,
  taskId: r.taskId,
  provenance: r.provenance as EvidenceProvenance,
  success: Boolean(r.success),
  body: fromJson<EvidenceInput>(r.body),
  at: dateOf(r.at),
});
const toLease = (r: Omit<LeaseRecord, 'expiresAt'> & { expiresAt: Date | number | string }): LeaseRecord => ({
  ...r,
  leaseMs: Number(r.leaseMs),
  expiresAt: dateOf(r.expiresAt),
});
type TrustRow = {
  kind: 'evidence' | 'lease' | 'requirement';
  id: number | bigint | null;
  taskId: string;
  name: string;
  success: boolean | number | null;
  body: string | null;
  at: Date | number | string | null;
  leaseMs: number | bigint | null;
};
const leaseSelect = { listId: true, taskId: true, owner: true, leaseMs: true, expiresAt: true } as const;

export function prismaTrustRepository(db: Tx, prefetch?: TaskPrefetch): TrustRepository {
  return {
    async listOf(listId) {
      const found = await db.taskList.findUnique({
        where: { id: listId },
        select: { id: true, workspaceId: true, name: true, createdAt: true, staging: true },
      });
      return found && !found.staging
        ? { id: found.id, workspaceId: found.workspaceId, name: found.name, createdAt: found.createdAt }
        : null;
    },
    async settings(listId) {
      const row = await db.taskListSettings.findUnique({
        where: { listId },
        select: { requireEvidence: true, requireVerified: true, leaseMs: true },
      });
      return row ?? { ...OFF };
    },
    async saveSettings(listId, settings) {
      await db.taskListSettings.upsert({ where: { listId }, create: { listId, ...settings }, update: settings, select: { listId: true } });
    },
    async evidenceOf(listId, taskIds) {
      const kept = prefetch?.evidence(listId, taskIds);
      if (kept) return kept.map(toEvidence);
      // Raw SQL: read on every task write, where Prisma's query compiler costs several times the statement itself.
      const rows = await inChunks(
        taskIds,
        (chunk) => rawSql(db).$queryRaw<(EvidenceRow & { id: number })[]>`
          SELECT "id", "listId", "taskId", "provenance", "success", "body", "at" FROM "TaskEvidence"
          WHERE "listId" = ${listId} AND "taskId" IN (${Prisma.join(chunk)}) ORDER BY "id"`,
      );
      return rows.sort((a, b) => Number(a.id) - Number(b.id)).map(toEvidence);
    },
    async addEvidence(rows) {
      if (!rows.length) return;
      for (const r of rows) prefetch?.evidenceWritten(r.listId, [r.taskId]);
      await db.taskEvidence.createMany({
        data: rows.map((r) => ({
          listId: r.listId,
          taskId: r.taskId,
          kind: r.body.kind,
          provenance: r.provenance,
          success: r.success,
          body: JSON.stringify(r.body),
          at: r.at,
        })),
      });
    },
    leasesOf: async (listId, taskIds) =>
      (
        prefetch?.leases(listId, taskIds) ??
        (await inChunks(
          taskIds,
          (chunk) => rawSql(db).$queryRaw<Parameters<typeof toLease>[0][]>`
            SELECT ${columnsOf(leaseSelect)} FROM "TaskLease" WHERE "listId" = ${listId} AND "taskId" IN (${Prisma.join(chunk)})`,
        ))
      ).map(toLease),
    async putLease(lease: LeaseRecord) {
      const { listId, taskId, ...rest } = lease;
      prefetch?.leaseIs(listId, taskId, {
        listId,
        taskId,
        owner: lease.owner,
        leaseMs: lease.leaseMs,
        expiresAt: lease.expiresAt.getTime(),
      });
      await db.taskLease.upsert({
        where: { listId_taskId: { listId, taskId } },
        create: lease,
        update: rest,
        select: { listId: true },
      });
    },
    async dropLease(listId, taskId) {
      prefetch?.leaseIs(listId, taskId, null);
      await db.taskLease.deleteMany({ where: { listId, taskId } });
    },
    dueLeases: (now, limit) =>
      db.taskLease.findMany({ where: { expiresAt: { lte: now } }, orderBy: { expiresAt: 'asc' }, take: limit, select: leaseSelect }),
    nextLeaseExpiry: async () =>
      (await db.taskLease.findFirst({ orderBy: { expiresAt: 'asc' }, select: { expiresAt: true } }))?.expiresAt ?? null,
    requirementsOf: async (listId, taskIds) =>
      prefetch?.requirements(listId, taskIds) ??
      inChunks(
        taskIds,
        (chunk) => rawSql(db).$queryRaw<{ taskId: string; capability: string }[]>`
          SELECT "taskId", "capability" FROM "TaskRequirement" WHERE "listId" = ${listId} AND "taskId" IN (${Prisma.join(chunk)})
          ORDER BY "capability"`,
      ),
    async trustOf(listId, taskIds) {
      const keptEvidence = prefetch?.evidence(listId, taskIds);
      const keptLeases = prefetch?.leases(listId, taskIds);
      const keptRequirements = prefetch?.requirements(listId, taskIds);
      if (keptEvidence && keptLeases && keptRequirements) {
        return { evidence: keptEvidence.map(toEvidence), leases: keptLeases.map(toLease), requirements: keptRequirements };
      }
      // One statement for the three (each read through Prisma costs far more than its SQL): a row per evidence, lease
      // and requirement, told apart by `kind` (evidence by id, requirements by name, as the reads of each). `name` is
      // the provenance, the lease's owner or the capability; `at` is the evidence's time or the lease's expiry. The
      // statement binds its chunk of ids three times. For a page of tasks, each part first asks (once, as a constant
      // subquery) whether the list has any row of its kind: most lists have none, and then its 50 index probes are
      // skipped (a 50-task page of a list with none: 38 → 21 µs in SQLite).
      const guard = (table: string) =>
        taskIds.length > 1 ? Prisma.sql`EXISTS (SELECT 1 FROM ${Prisma.raw(`"${table}"`)} WHERE "listId" = ${listId}) AND` : Prisma.empty;
      const rows = await inChunks(
        taskIds,
        (chunk) => {
          const ids = Prisma.join(chunk);
          return rawSql(db).$queryRaw<TrustRow[]>`
          SELECT 'evidence' AS "kind", "id", "taskId", "provenance" AS "name", "success", "body", "at", CAST(NULL AS INTEGER) AS "leaseMs"
          FROM "TaskEvidence" WHERE ${guard('TaskEvidence')} "listId" = ${listId} AND "taskId" IN (${ids})
          UNION ALL
          SELECT 'lease', CAST(NULL AS INTEGER), "taskId", "owner", CAST(NULL AS BOOLEAN), CAST(NULL AS TEXT), "expiresAt", "leaseMs"
          FROM "TaskLease" WHERE ${guard('TaskLease')} "listId" = ${listId} AND "taskId" IN (${ids})
          UNION ALL
          SELECT 'requirement', CAST(NULL AS INTEGER), "taskId", "capability", CAST(NULL AS BOOLEAN), CAST(NULL AS TEXT), NULL, CAST(NULL AS INTEGER)
          FROM "TaskRequirement" WHERE ${guard('TaskRequirement')} "listId" = ${listId} AND "taskId" IN (${ids})
          ORDER BY "kind", "id", "name"`;
        },
        chunkFor(3),
      );
      const evidence = rows.filter((r) => r.kind === 'evidence').sort((a, b) => Number(a.id) - Number(b.id));
      return {
        evidence: evidence.map((r) =>
          toEvidence({ listId, taskId: r.taskId, provenance: r.name, success: r.success ?? false, body: r.body ?? '', at: r.at ?? 0 }),
        ),
        leases: rows
          .filter((r) => r.kind === 'lease')
          .map((r) => toLease({ listId, taskId: r.taskId, owner: r.name, leaseMs: Number(r.leaseMs), expiresAt: r.at ?? 0 })),
        requirements: rows.filter((r) => r.kind === 'requirement').map((r) => ({ taskId: r.taskId, capability: r.name })),
      };
    },
    async setRequirements(listId, taskId, capabilities) {
      prefetch?.requirementsWritten(listId, taskId);
      await db.taskRequirement.deleteMany({ where: { listId, taskId } });
      if (capabilities.length)
        await db.taskRequirement.createMany({ data: capabilities.map((capability) => ({ listId, taskId, capability })) });
    },
    async firstReadyFor(listId, agent, capabilities) {
      // The ready index search (most urgent, then oldest), skipping tasks that require something the session did not declare.
      const unmet = capabilities.length ? Prisma.sql`AND r."capability" NOT IN (${Prisma.join([...capabilities])})` : Prisma.empty;
      const [row] = await rawSql(db).$queryRaw<{ id: string }[]>`
        SELECT t."id" FROM "Task" t
        WHERE t."listId" = ${listId} AND t."status" = 'pending' AND t."openBlockers" = 0 AND (t."owner" IS NULL OR t."owner" = ${agent})
          AND NOT EXISTS (SELECT 1 FROM "TaskRequirement" r WHERE r."listId" = t."listId" AND r."taskId" = t."id" ${unmet})
        ORDER BY t."priority", t."seq" LIMIT 1`;
      return row?.id ?? null;
    },
    capabilitiesOf: async (sessionId) =>
      (await db.sessionCapability.findMany({ where: { sessionId }, orderBy: { capability: 'asc' }, select: { capability: true } })).map(
        (r) => r.capability,
      ),
    async setCapabilities(sessionId, capabilities) {
      await db.sessionCapability.deleteMany({ where: { sessionId } });
      if (capabilities.length)
        await db.sessionCapability.createMany({ data: capabilities.map((capability) => ({ sessionId, capability })) });
    },
    githubSecret: async (workspaceId) =>
      (await db.githubHookSecret.findUnique({ where: { workspaceId }, select: { secret: true } }))?.secret ?? null,
    async setGithubSecret(workspaceId, secret, at) {
      await db.githubHookSecret.upsert({
        where: { workspaceId },
        create: { workspaceId, secret, createdAt: at },
        update: { secret, createdAt: at },
        select: { workspaceId: true },
      });
    },
    async recordDelivery(workspaceId, deliveryId, event, at) {
      // ON CONFLICT DO NOTHING (SQLite and PostgreSQL alike): a replay inserts nothing, and a PostgreSQL transaction
      // is not aborted by a unique violation.
      const inserted = await rawSql(db).$executeRaw`
        INSERT INTO "GithubDelivery" ${insertOf({ workspaceId, deliveryId, event, at })} ON CONFLICT DO NOTHING`;
      return inserted === 1;
    },
    async tasksMentioning(workspaceId, text) {
      // A portable LIKE on the metadata's and the labels' JSON text narrows the search; the caller checks the fields.
      const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const rows = await rawSql(db).$queryRaw<{ listId: string; id: string; metadata: string; labels: string }[]>`
        SELECT t."listId", t."id", t."metadata", t."labels" FROM "Task" t JOIN "TaskList" l ON l."id" = t."listId"
        WHERE l."workspaceId" = ${workspaceId} AND l."staging" = ${false} AND t."status" <> 'deleted'
          AND (t."metadata" LIKE ${pattern} ESCAPE '\\' OR t."labels" LIKE ${pattern} ESCAPE '\\')
        ORDER BY t."listId", t."seq" LIMIT 200`;
      return rows.map((r) => ({
        listId: r.listId,
        taskId: r.id,
        metadata: fromJson(r.metadata),
        labels: fromJson<string[]>(r.labels),
      }));
    },
  };
}
