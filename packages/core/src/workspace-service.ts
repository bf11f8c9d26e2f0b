// Workspaces, their settings and API keys: the first-run bootstrap and the admin operations.
import { revocationsTopic } from './live-topics.ts';
import type { Role } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import { MIN_KEY_LENGTH, keyWeakness } from './key-strength.ts';
import type { Deps, Repositories } from './ports.ts';
import { presentKey, presentWorkspace } from './present.ts';
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

export async function createKey(deps: Deps, actor: Actor, input: { name: string; role: Role }) {
  requireRole(actor, 'admin');
  const token = deps.ids.secret('atk');
  const key = {
    id: deps.ids.id('key'),
    workspaceId: actor.workspaceId,
    role: input.role,
    name: input.name,
    tokenHash: deps.hasher.hash(token),
    createdAt: deps.clock.now(),
    revokedAt: null,
  };
  await deps.store.transaction((repos) => repos.keys.create(key));
  return { key: presentKey(key), token };
}

export async function listKeys(deps: Deps, actor: Actor) {
  requireRole(actor, 'admin');
  const keys = await deps.store.keys.list(actor.workspaceId);
  return { keys: keys.map(presentKey) };
}

export interface Revocation {
  /** The revoked key: streams of the key and of every session it opened end. */
  keyId?: string;
  /** A session that ended: its streams end. */
  sessionId?: string;
  /** With `sessionId`: the session goes on, but some of its tokens were dropped; the streams opened with one of those end. */
  tokensDropped?: boolean;
}

export async function revokeKey(deps: Deps, actor: Actor, input: { id: string }) {
  requireRole(actor, 'admin');
  const revoked = await revokeKeyNow(deps, actor, input);
  const data: Revocation = { keyId: input.id };
  deps.events.publish({ topic: revocationsTopic(actor.workspaceId), id: String(deps.clock.now().getTime()), data });
  return revoked;
}

async function revokeKeyNow(deps: Deps, actor: Actor, input: { id: string }) {
  return deps.store.transaction(async (repos) => {
    const key = await repos.keys.get(actor.workspaceId, input.id);
    if (!key) throw new DomainError('NOT_FOUND', `Error: API key ${input.id} not found.`);
    if (key.revokedAt) throw new DomainError('CONFLICT', `Error: API key ${input.id} is already revoked.`);
    if (key.role === 'admin' && (await repos.keys.countActiveAdmins(actor.workspaceId)) <= 1) {
      throw new DomainError('CONFLICT', 'Error: cannot revoke the last admin key of a workspace; create another admin key first.');
    }
    const revokedAt = deps.clock.now();
    await repos.keys.revoke(key.id, revokedAt);
    return { key: presentKey({ ...key, revokedAt }) };
  });
}
