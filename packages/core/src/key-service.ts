// API keys of a workspace (the wire's `keys.*`): create (the token shown once), list, revoke (live streams told).
import type { Role } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import { revocationsTopic } from './live-topics.ts';
import type { Deps } from './ports.ts';
import { presentKey } from './present.ts';

export async function create(deps: Deps, actor: Actor, input: { name: string; role: Role }) {
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

export async function list(deps: Deps, actor: Actor) {
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

export async function revoke(deps: Deps, actor: Actor, input: { id: string }) {
  requireRole(actor, 'admin');
  const revoked = await revokeNow(deps, actor, input);
  const data: Revocation = { keyId: input.id };
  deps.events.publish({ topic: revocationsTopic(actor.workspaceId), id: String(deps.clock.now().getTime()), data });
  return revoked;
}

async function revokeNow(deps: Deps, actor: Actor, input: { id: string }) {
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
