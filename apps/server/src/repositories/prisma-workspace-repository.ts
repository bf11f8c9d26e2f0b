// Prisma implementation of the domain's WorkspaceRepository.
import type { WorkspaceRecord, WorkspaceRepository } from '@agent-tasks/core';
import type { Tx } from './tx.ts';

const select = { id: true, name: true, oneActiveRule: true, createdAt: true } as const;

export const prismaWorkspaceRepository = (db: Tx): WorkspaceRepository => ({
  count: () => db.workspace.count(),
  async create(w: WorkspaceRecord) {
    await db.workspace.create({ data: w, select: { id: true } });
  },
  get: (id) => db.workspace.findUnique({ where: { id }, select }),
  update: (id, patch) => db.workspace.update({ where: { id }, data: patch, select }),
});
