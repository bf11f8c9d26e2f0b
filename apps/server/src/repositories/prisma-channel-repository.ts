// Prisma implementation of the domain's ChannelRepository.
import type { ChannelRepository } from '@agent-tasks/core';
import type { Tx } from './tx.ts';

const select = { id: true, workspaceId: true, name: true, url: true, createdAt: true } as const;

export const prismaChannelRepository = (db: Tx): ChannelRepository => ({
  async create(channel) {
    await db.notificationChannel.create({ data: channel, select: { id: true } });
  },
  list: (workspaceId) => db.notificationChannel.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select }),
  delete: async (workspaceId, id) => (await db.notificationChannel.deleteMany({ where: { workspaceId, id } })).count === 1,
});
