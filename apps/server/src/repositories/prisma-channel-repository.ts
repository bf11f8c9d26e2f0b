// Prisma implementation of the domain's ChannelRepository.
import type { ChannelRecord, ChannelRepository } from '@agent-tasks/core';
import type { Tx } from './tx.ts';

const select = { id: true, workspaceId: true, name: true, kind: true, url: true, createdAt: true } as const;

export const prismaChannelRepository = (db: Tx): ChannelRepository => ({
  async create(channel) {
    await db.notificationChannel.create({ data: channel, select: { id: true } });
  },
  list: async (workspaceId) =>
    (await db.notificationChannel.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select })).map(
      (row) => ({ ...row, kind: row.kind as ChannelRecord['kind'] }),
    ),
  delete: async (workspaceId, id) => (await db.notificationChannel.deleteMany({ where: { workspaceId, id } })).count === 1,
});
