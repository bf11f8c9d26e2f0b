// Workspaces and their settings: the first-run bootstrap and the admin operations (API keys: key-service.ts).
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import { MIN_KEY_LENGTH, keyWeakness } from './key-strength.ts';
import type { Deps, Repositories } from './ports.ts';
import { presentWorkspace } from './present.ts';
import type { WorkspaceRecord } from './records.ts';

export const MIN_ADMIN_KEY_LENGTH = MIN_KEY_LENGTH;

async function createWorkspaceWithAdmin(deps: Deps, repos: Repositories, name: string, token: string) {
  const now = deps.clock.now();
  const workspace: WorkspaceRecord = { id: deps.ids.id('ws'), name, oneActiveRule: true, createdAt: now };
  await repos.workspaces.create(workspace);
  await repos.keys.create({
    id: deps.ids.id('key'),
    workspaceId: workspace.id,
    role: 'admin',
    name: 'first admin key',
    tokenHash: deps.hasher.hash(token),
    createdAt: now,
    revokedAt: null,
  });
  return workspace;
}

/**
 * On an empty store, creates the first workspace and its admin key (given, or generated and returned once). A given
 * key that is too weak stops the start whether or not this is the first one, so the operator hears of it.
 */
export async function bootstrap(deps: Deps, given?: string): Promise<{ workspaceId: string; adminKey: string; generated: boolean } | null> {
  if (given !== undefined && given.length < MIN_ADMIN_KEY_LENGTH) {
    throw new DomainError('INVALID_INPUT', `Error: AGENT_TASKS_ADMIN_KEY must be at least ${MIN_ADMIN_KEY_LENGTH} characters.`);
  }
  const weakness = given === undefined ? null : keyWeakness(given);
  if (weakness) throw new DomainError('INVALID_INPUT', `Error: AGENT_TASKS_ADMIN_KEY is too weak: ${weakness}.`);
  return deps.store.transaction(async (repos) => {
    if ((await repos.workspaces.count()) > 0) return null;
    const adminKey = given ?? deps.ids.secret('atk');
    const workspace = await createWorkspaceWithAdmin(deps, repos, 'default', adminKey);
    return { workspaceId: workspace.id, adminKey, generated: given === undefined };
  });
}

async function getWorkspace(repos: Repositories, id: string): Promise<WorkspaceRecord> {
  const workspace = await repos.workspaces.get(id);
  if (!workspace) throw new DomainError('NOT_FOUND', `Error: workspace ${id} not found.`);
  return workspace;
}

export async function whoami(deps: Deps, actor: Actor) {
  const workspace = await getWorkspace(deps.store, actor.workspaceId);
  return { workspace: presentWorkspace(workspace), role: actor.role, keyId: actor.keyId, sessionId: actor.sessionId };
}

/** A new, separate workspace; the caller gets its first admin key and no access to it otherwise. */
export async function createWorkspace(deps: Deps, actor: Actor, input: { name: string }) {
  requireRole(actor, 'admin');
  const adminKey = deps.ids.secret('atk');
  const workspace = await deps.store.transaction((repos) => createWorkspaceWithAdmin(deps, repos, input.name, adminKey));
  return { workspace: presentWorkspace(workspace), adminKey };
}

export async function getSettings(deps: Deps, actor: Actor) {
  const workspace = await getWorkspace(deps.store, actor.workspaceId);
  return { oneActiveRule: workspace.oneActiveRule };
}

export async function updateSettings(deps: Deps, actor: Actor, patch: { oneActiveRule?: boolean | undefined }) {
  requireRole(actor, 'admin');
  const next = patch.oneActiveRule === undefined ? {} : { oneActiveRule: patch.oneActiveRule };
  const workspace = await deps.store.transaction((repos) => repos.workspaces.update(actor.workspaceId, next));
  return { oneActiveRule: workspace.oneActiveRule };
}
