// The outbox on PostgreSQL with several replicas: `due` claims what it answers. FOR UPDATE SKIP LOCKED picks due
// messages no other replica is claiming, and the first of each channel is leased (its next attempt moved past the
// lease), so exactly one replica delivers it; the channel's later messages wait behind it, in order.
import type { OutboxRecord } from '@agent-tasks/core';
import { Prisma } from '../generated/prisma/client.ts';
import { fromJson } from './json-column.ts';
import type { Tx } from './tx.ts';

type Row = Omit<OutboxRecord, 'kind' | 'payload'> & { kind: string; payload: string };

/** Claims the first due message of up to `limit` channels for `leaseMs` (a replica that dies lets them fall due again). */
export async function claimDue(
  db: Tx,
  now: Date,
  limit: number,
  skipChannels: readonly string[],
  leaseMs: number,
): Promise<OutboxRecord[]> {
  const skip = skipChannels.length ? Prisma.sql`AND m."channelId" NOT IN (${Prisma.join([...skipChannels])})` : Prisma.empty;
  const rows = await db.$queryRaw<Row[]>`
    WITH "picked" AS (
      SELECT m."id", m."channelId", m."createdAt" FROM "OutboxMessage" m
      WHERE m."deliveredAt" IS NULL AND m."deadAt" IS NULL AND m."nextAttemptAt" <= ${now} ${skip}
        AND NOT EXISTS (
          SELECT 1 FROM "OutboxMessage" e
          WHERE e."channelId" = m."channelId" AND e."deliveredAt" IS NULL AND e."deadAt" IS NULL
            AND e."nextAttemptAt" > ${now} AND (e."createdAt", e."id") < (m."createdAt", m."id"))
      ORDER BY m."nextAttemptAt", m."createdAt", m."id"
      LIMIT ${limit}
      FOR UPDATE OF m SKIP LOCKED
    ), "first" AS (
      SELECT DISTINCT ON ("channelId") "id" FROM "picked" ORDER BY "channelId", "createdAt", "id"
    )
    UPDATE "OutboxMessage" o SET "nextAttemptAt" = ${new Date(now.getTime() + leaseMs)}
    FROM "first" WHERE o."id" = "first"."id"
    RETURNING o."id", o."workspaceId", o."channelId", o."url", o."runId", o."kind", o."payload", o."idempotencyKey",
      o."attempts", o."nextAttemptAt", o."deliveredAt", o."lastError", o."createdAt", o."deadAt", o."retriedAt"`;
  return rows
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
    .map((row) => ({ ...row, kind: row.kind as OutboxRecord['kind'], payload: fromJson(row.payload) }));
}
