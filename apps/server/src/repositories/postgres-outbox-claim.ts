// The outbox on PostgreSQL with several replicas: `due` claims what it answers. Claims take turns (an advisory
// transaction lock), so each sees the leases of the claims before it; FOR UPDATE SKIP LOCKED passes over messages a
// delivery is recording; the first of each channel is leased (its next attempt moved past the lease), so exactly
// one replica delivers it, and the channel's later messages wait behind it, in order.
import { type DueFilter, type OutboxRecord, channels } from '@agent-tasks/core';
import { Prisma } from '../generated/prisma/client.ts';
import type { Db } from '../db/client.ts';
import { fromJson } from './json-column.ts';
import type { Tx } from './tx.ts';

/** The advisory lock claims take turns on (any fixed 64-bit number). */
const OUTBOX_CLAIM_LOCK = 7_411_202_613;
/** How long a claim may wait for a pool connection, and run once it has one. */
const CLAIM_TRANSACTION = { maxWait: 60_000, timeout: 30_000 };

type Row = Omit<OutboxRecord, 'kind' | 'payload'> & { kind: string; payload: string };

/**
 * Claims the first due message of up to `limit` channels for `leaseMs` (a replica that dies lets them fall due again).
 * With `skip.share`, no workspace gets more channels than its share of this replica's lanes has room for, the
 * workspaces taking turns (each one's first channel, then each one's second…), so nothing is leased that is not sent.
 */
export async function claimDue(db: Tx, now: Date, limit: number, skip: DueFilter, leaseMs: number): Promise<OutboxRecord[]> {
  // Without turns, a claim running beside another would not see its uncommitted lease, pass over the locked first
  // message and take the channel's second: two replicas delivering one channel, out of order.
  const inTurn = async (tx: Tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${OUTBOX_CLAIM_LOCK}::bigint)`;
    return claimQuery(tx, now, limit, skip, leaseMs);
  };
  // A claim waits its turn for a connection as long as a busy replica may take (Prisma's default is 2 s), as group
  // commit does: 32 claims at once under load otherwise failed P2028 before their turn.
  const rows = '$transaction' in db ? await (db as Db).$transaction(inTurn, CLAIM_TRANSACTION) : await inTurn(db);
  return rows
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
    .map((row) => ({ ...row, kind: row.kind as OutboxRecord['kind'], payload: fromJson(row.payload) }));
}

/** Messages looked at per claim: enough that one workspace's backlog does not hide the others' (50 channels' worth). */
const LOOK_AT = 50;

function claimQuery(tx: Tx, now: Date, limit: number, skip: DueFilter, leaseMs: number) {
  const skipChannels = skip.channels ?? [];
  const skipped = skipChannels.length ? Prisma.sql`AND m."channelId" NOT IN (${Prisma.join([...skipChannels])})` : Prisma.empty;
  const full = skip.share ? channels.workspacesAtShare(skip.share) : [];
  const fullSkipped = full.length ? Prisma.sql`AND m."workspaceId" NOT IN (${Prisma.join(full)})` : Prisma.empty;
  // Each workspace's free share: its lanes' room left (the ones it runs counted); a workspace running none has all of it.
  const perWorkspace = skip.share ? Math.max(0, skip.share.perWorkspace) : limit;
  const running = skip.share ? [...skip.share.running].filter(([, n]) => n > 0) : [];
  const room = running.length
    ? Prisma.sql`COALESCE((SELECT r."free" FROM (VALUES ${Prisma.join(
        running.map(([workspaceId, n]) => Prisma.sql`(${workspaceId}, ${perWorkspace - n}::int)`),
      )}) AS r("workspaceId", "free") WHERE r."workspaceId" = f."workspaceId"), ${perWorkspace}::int)`
    : Prisma.sql`${perWorkspace}::int`;
  return tx.$queryRaw<Row[]>`
    WITH "picked" AS (
      SELECT m."id", m."channelId", m."workspaceId", m."nextAttemptAt", m."createdAt" FROM "OutboxMessage" m
      WHERE m."deliveredAt" IS NULL AND m."deadAt" IS NULL AND m."nextAttemptAt" <= ${now} ${skipped} ${fullSkipped}
        AND NOT EXISTS (
          SELECT 1 FROM "OutboxMessage" e
          WHERE e."channelId" = m."channelId" AND e."deliveredAt" IS NULL AND e."deadAt" IS NULL
            AND e."nextAttemptAt" > ${now} AND (e."createdAt", e."id") < (m."createdAt", m."id"))
      ORDER BY m."nextAttemptAt", m."createdAt", m."id"
      LIMIT ${Math.max(limit, LOOK_AT)}
      FOR UPDATE OF m SKIP LOCKED
    ), "first" AS (
      SELECT DISTINCT ON ("channelId") "id", "workspaceId", "nextAttemptAt", "createdAt" FROM "picked"
      ORDER BY "channelId", "createdAt", "id"
    ), "turns" AS (
      SELECT f."id", f."nextAttemptAt", f."createdAt",
        ROW_NUMBER() OVER (PARTITION BY f."workspaceId" ORDER BY f."nextAttemptAt", f."createdAt", f."id") AS "turn",
        ${room} AS "room"
      FROM "first" f
    ), "fair" AS (
      SELECT "id" FROM "turns" WHERE "turn" <= "room"
      ORDER BY "turn", "nextAttemptAt", "createdAt", "id"
      LIMIT ${limit}
    )
    UPDATE "OutboxMessage" o SET "nextAttemptAt" = ${new Date(now.getTime() + leaseMs)}
    FROM "fair" WHERE o."id" = "fair"."id"
    RETURNING o."id", o."workspaceId", o."channelId", o."url", o."runId", o."kind", o."payload", o."idempotencyKey",
      o."attempts", o."nextAttemptAt", o."deliveredAt", o."lastError", o."createdAt", o."deadAt", o."retriedAt"`;
}
