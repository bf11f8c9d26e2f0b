// Prisma implementation of the domain's ApiKeyRepository.
import type { ApiKeyRecord, ApiKeyRepository } from '@agent-tasks/core';
import type { Role } from '@agent-tasks/schema';
import type { AfterCommit, Tx } from './tx.ts';
import { rawSql } from '../db/direct-sql.ts';

const select = {
  id: true,
  workspaceId: true,
  role: true,
  name: true,
  tokenHash: true,
  createdAt: true,
  revokedAt: true,
} as const;

const toRecord = <T extends { role: string } | null>(row: T) =>
  (row ? { ...row, role: row.role as Role } : null) as T extends null ? null : ApiKeyRecord;

/** Changes whenever a key is revoked anywhere in the file: how many are revoked, and the latest revocation time. */
export async function revocationStamp(db: Tx): Promise<string> {
  const [row] = await rawSql(db).$queryRaw<{ n: number; last: number | null }[]>`
    SELECT COUNT(*) AS n, MAX("revokedAt") AS last FROM "ApiKey" WHERE "revokedAt" IS NOT NULL`;
  return `${row?.n ?? 0}:${row?.last ?? ''}`;
}

export const prismaKeyRepository = (db: Tx, afterCommit: AfterCommit, revoked: () => void): ApiKeyRepository => ({
  async create(key) {
    await db.apiKey.create({ data: key, select: { id: true } });
  },
  findByHash: async (tokenHash) => toRecord(await db.apiKey.findUnique({ where: { tokenHash }, select })),
  get: async (workspaceId, id) => toRecord(await db.apiKey.findFirst({ where: { id, workspaceId }, select })),
  list: async (workspaceId) =>
    (await db.apiKey.findMany({ where: { workspaceId }, orderBy: { createdAt: 'asc' }, select })).flatMap((row) => toRecord(row) ?? []),
  async revoke(id, at) {
    await db.apiKey.update({ where: { id }, data: { revokedAt: at }, select: { id: true } });
    afterCommit(() => revoked());
  },
  countActiveAdmins: (workspaceId) => db.apiKey.count({ where: { workspaceId, role: 'admin', revokedAt: null } }),
});
