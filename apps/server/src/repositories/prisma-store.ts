// The domain's Store port over Prisma: repositories bound to the client, and one transaction per write.
import type { Repositories, Store } from '@agent-tasks/core';
import { whileBusy } from '../db/busy.ts';
import type { Db } from '../db/client.ts';
import { prismaChannelRepository } from './prisma-channel-repository.ts';
import { prismaKeyRepository } from './prisma-key-repository.ts';
import { prismaOutboxRepository } from './prisma-outbox-repository.ts';
import { prismaRunRepository } from './prisma-run-repository.ts';
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
  channels: prismaChannelRepository(db),
  runs: prismaRunRepository(db),
  outbox: prismaOutboxRepository(db),
});

/**
 * Reads outside a transaction go through their own connection, so they see only committed data and never queue
 * behind a write; every write runs in one transaction on the writer connection.
 */
export function prismaStore(writer: Db, reader: Db, options: { busyTimeoutMs?: number } = {}): Store {
  return {
    ...repositories(reader),
    // Another process holding the write lock: the whole transaction is tried again until the busy timeout.
    transaction: (work) =>
      whileBusy(options.busyTimeoutMs ?? 5_000, () => writer.$transaction((tx) => work(repositories(tx)), { maxWait: 10_000, timeout: 30_000 })),
  };
}
