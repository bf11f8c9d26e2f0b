// Prisma implementation of the domain's OutboxRepository: the durable queue of notifications to deliver.
import type { OutboxRecord, OutboxRepository } from '@agent-tasks/core';
import type { Tx } from './tx.ts';

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
} as const;

type Row = Omit<OutboxRecord, 'kind' | 'payload'> & { kind: string; payload: string };
const toRecord = (row: Row): OutboxRecord => ({ ...row, kind: row.kind as OutboxRecord['kind'], payload: JSON.parse(row.payload) });

export const prismaOutboxRepository = (db: Tx): OutboxRepository => ({
  async enqueue({ payload, ...rest }) {
    await db.outboxMessage.create({ data: { ...rest, payload: JSON.stringify(payload) }, select: { id: true } });
  },
  due: async (now, limit) =>
    (
      await db.outboxMessage.findMany({
        where: { deliveredAt: null, nextAttemptAt: { lte: now } },
        orderBy: [{ nextAttemptAt: 'asc' }, { id: 'asc' }],
        take: limit,
        select,
      })
    ).map(toRecord),
  async markDelivered(id, at, attempts) {
    await db.outboxMessage.update({ where: { id }, data: { deliveredAt: at, attempts, lastError: null }, select: { id: true } });
  },
  async markFailed(id, attempts, nextAttemptAt, error) {
    await db.outboxMessage.update({ where: { id }, data: { attempts, nextAttemptAt, lastError: error.slice(0, 500) }, select: { id: true } });
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
