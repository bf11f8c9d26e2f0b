// Prisma implementation of the domain's OutboxRepository: the durable queue of notifications to deliver.
import { type OutboxRecord, type OutboxRepository, channels } from '@agent-tasks/core';
import type { Tx } from './tx.ts';
import { fromJson } from './json-column.ts';
import { claimDue } from './postgres-outbox-claim.ts';

const select = {
  id: true,
  workspaceId: true,
  channelId: true,
  url: true,
  runId: true,
  kind: true,
  payload: true,
  idempotencyKey: true,
  attempts: true,
  nextAttemptAt: true,
  deliveredAt: true,
  lastError: true,
  createdAt: true,
  deadAt: true,
  retriedAt: true,
} as const;

type Row = Omit<OutboxRecord, 'kind' | 'payload'> & { kind: string; payload: string };
const toRecord = (row: Row): OutboxRecord => ({ ...row, kind: row.kind as OutboxRecord['kind'], payload: fromJson(row.payload) });

/** `claimLeaseMs` (PostgreSQL): `due` claims the first due message of each channel for that long (postgres-outbox-claim.ts). */
export const prismaOutboxRepository = (db: Tx, claimLeaseMs?: number): OutboxRepository => ({
  async enqueue({ payload, ...rest }) {
    await db.outboxMessage.create({ data: { ...rest, payload: JSON.stringify(payload) }, select: { id: true } });
  },
  async due(now, limit, skip = {}) {
    if (claimLeaseMs !== undefined) return claimDue(db, now, limit, skip, claimLeaseMs);
    const skipChannels = skip.channels ?? [];
    const full = skip.share ? channels.workspacesAtShare(skip.share) : [];
    return (
      await db.outboxMessage.findMany({
        where: {
          deliveredAt: null,
          deadAt: null,
          nextAttemptAt: { lte: now },
          ...(skipChannels.length ? { channelId: { notIn: [...skipChannels] } } : {}),
          ...(full.length ? { workspaceId: { notIn: full } } : {}),
        },
        orderBy: [{ nextAttemptAt: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
        take: limit,
        select,
      })
    ).map(toRecord);
  },
  async markDelivered(id, at, attempts) {
    await db.outboxMessage.update({ where: { id }, data: { deliveredAt: at, attempts, lastError: null }, select: { id: true } });
  },
  async markFailed(id, attempts, nextAttemptAt, error) {
    const { channelId } = await db.outboxMessage.update({
      where: { id },
      data: { attempts, nextAttemptAt, lastError: error.slice(0, 500) },
      select: { channelId: true },
    });
    // The channel's other waiting messages wait as long: a failing receiver gets one attempt per backoff, not one per message.
    await db.outboxMessage.updateMany({
      where: { channelId, deliveredAt: null, deadAt: null, nextAttemptAt: { lt: nextAttemptAt } },
      data: { nextAttemptAt },
    });
  },
  async markDead(id, attempts, at, error) {
    await db.outboxMessage.update({ where: { id }, data: { attempts, deadAt: at, lastError: error.slice(0, 500) }, select: { id: true } });
  },
  get: async (workspaceId, id) => {
    const row = await db.outboxMessage.findFirst({ where: { workspaceId, id }, select });
    return row ? toRecord(row) : null;
  },
  async retry(id, at) {
    await db.outboxMessage.update({ where: { id }, data: { deadAt: null, retriedAt: at, nextAttemptAt: at }, select: { id: true } });
  },
  async release(id, at) {
    await db.outboxMessage.updateMany({ where: { id, deliveredAt: null, deadAt: null }, data: { nextAttemptAt: at } });
  },
  forRun: async (runId) =>
    (await db.outboxMessage.findMany({ where: { runId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select })).map(toRecord),
  async dropPending(channelId) {
    await db.outboxMessage.deleteMany({ where: { channelId, deliveredAt: null } });
  },
  recent: async (workspaceId, limit) =>
    (
      await db.outboxMessage.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit, select })
    ).map(toRecord),
});
