// The domain's Store port over Prisma: repositories bound to the client, and one transaction per write.
import type { Repositories, Store } from '@agent-tasks/core';
import type { Db } from '../db/client.ts';
import { prismaKeyRepository } from './prisma-key-repository.ts';
import { prismaSessionRepository } from './prisma-session-repository.ts';
import { prismaTaskRepository } from './prisma-task-repository.ts';
import { prismaTodoRepository } from './prisma-todo-repository.ts';
import { prismaWorkspaceRepository } from './prisma-workspace-repository.ts';
import type { Tx } from './tx.ts';

const repositories = (db: Tx): Repositories => ({
  workspaces: prismaWorkspaceRepository(db),
  keys: prismaKeyRepository(db),
  sessions: prismaSessionRepository(db),
  todos: prismaTodoRepository(db),
  tasks: prismaTaskRepository(db),
});

export function prismaStore(db: Db): Store {
  return {
    ...repositories(db),
    transaction: (work) => db.$transaction((tx) => work(repositories(tx))),
  };
}
