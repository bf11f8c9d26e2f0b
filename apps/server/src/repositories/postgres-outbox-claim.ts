// The outbox on PostgreSQL with several replicas: `due` claims what it answers. Claims take turns (an advisory
// transaction lock), so each sees the leases of the claims before it; FOR UPDATE SKIP LOCKED passes over messages a
// delivery is recording; the first of each channel is leased (its next attempt moved past the lease), so exactly
// one replica delivers it, and the channel's later messages wait behind it, in order.
import type { OutboxRecord } from '@agent-tasks/core';
import { Prisma } from '../generated/prisma/client.ts';
import type { Db } from '../db/client.ts';
import { fromJson } from './json-column.ts';
import type { Tx } from './tx.ts';

/** The advisory lock claims take turns on (any fixed 64-bit number). */
const OUTBOX_CLAIM_LOCK = 7_411_202_613;

type Row = Omit<OutboxRecord, 'kind' | 'payload'> & { kind: string; payload: string };

/** Claims the first due message of up to `limit` channels for `leaseMs` (a replica that dies lets them fall due again). */
export async function claimDue(
  db: Tx,
  now: Date,
  limit: number,
  skipChannels: readonly string[],
  leaseMs: number,
): Promise<OutboxRecord[]> {
  // Without turns, a claim running beside another would not see its uncommitted lease, pass over the locked first
  // message and take the channel's second: two replicas delivering one channel, out of order.
  const inTurn = async (tx: Tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${OUTBOX_CLAIM_LOCK}::bigint)`;
    return claimQuery(tx, now, limit, skipChannels, leaseMs);
  };
  const rows = '$transaction' in db ? await (db as Db).$transaction(inTurn) : await inTurn(db);
  return rows
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
    .map((row) => ({ ...row, kind: row.kind as OutboxRecord['kind'], payload: fromJson(row.payload) }));
}

function claimQuery(tx: Tx, now: Date, limit: number, skipChannels: readonly string[], leaseMs: number) {
  const skip = skipChannels.length ? Prisma.sql`AND m."channelId" NOT IN (${Prisma.join([...skipChannels])})` : Prisma.empty;
  return tx.$queryRaw<Row[]>`
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
}
