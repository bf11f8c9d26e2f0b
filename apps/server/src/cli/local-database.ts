// Operator commands on the server's own database (keys, migrations): migrated, with the core's dependencies.
import { type Actor, type Deps, DomainError } from '@agent-tasks/core';
import { nodeIds } from '../adapters/node-ids.ts';
import { sha256Hasher } from '../adapters/sha256-hasher.ts';
import { systemClock } from '../adapters/system-clock.ts';
import { type DatabaseTarget, openMigrated } from '../db/local-database.ts';
import { runPageUrl } from '../http/run-page-url.ts';
import { prismaStore } from '../repositories/prisma-store.ts';
import { opening } from './options.ts';

/** Opens the database (applying pending migrations), runs `work` with core dependencies, and closes it. */
export async function withLocalDatabase<T>(
  target: DatabaseTarget,
  work: (deps: Deps, workspaceIds: () => Promise<string[]>) => Promise<T>,
) {
  const { handle } = await opening(target, () => openMigrated(target));
  const db = handle.db;
  try {
    const deps: Deps = {
      store: prismaStore(handle, db),
      clock: systemClock,
      ids: nodeIds,
      hasher: sha256Hasher,
      events: { publish: () => {} },
      runPage: (runId) => runPageUrl('', runId),
    };
    const workspaceIds = async () =>
      (await db.workspace.findMany({ select: { id: true }, orderBy: { createdAt: 'asc' } })).map((w) => w.id);
    return await work(deps, workspaceIds);
  } finally {
    await db.$disconnect();
  }
}

/** The operator acts as an admin of one workspace: the one named, or the only one there is. */
export async function operatorOf(workspaceIds: () => Promise<string[]>, named: string | undefined): Promise<Actor> {
  const ids = await workspaceIds();
  if (named && !ids.includes(named)) throw new DomainError('NOT_FOUND', `Error: workspace ${named} not found.`);
  if (!named && ids.length === 0) {
    throw new DomainError(
      'NOT_FOUND',
      'Error: this database has no workspace yet; start the server once (agent-tasks serve) to create it.',
    );
  }
  if (!named && ids.length > 1) {
    throw new DomainError(
      'INVALID_INPUT',
      `Error: this database has ${ids.length} workspaces; name one with --workspace (${ids.join(', ')}).`,
    );
  }
  return { workspaceId: named ?? (ids[0] as string), role: 'admin', keyId: 'operator', sessionId: null, agentName: null };
}
