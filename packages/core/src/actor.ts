// Who is calling: resolved from a bearer token; role checks and session ownership rules.
import type { Role } from '@agent-tasks/schema';
import { DomainError } from './errors.ts';
import type { Deps } from './ports.ts';
import type { SessionRecord } from './records.ts';

export interface Actor {
  workspaceId: string;
  role: Role;
  /** The API key behind the call (for a session token, the key that opened the session tree). */
  keyId: string;
  /** Set when the call is made with a session token. */
  sessionId: string | null;
  /** The session's agent name (its id when it has none); null for an API key. */
  agentName: string | null;
}

/** Prefix of every session token (`ats_…`); API keys minted here start with `atk_`. */
export const SESSION_TOKEN_PREFIX = 'ats_';

/** The caller a session acts as: an agent, under the key that opened it (or opened it for an MCP session). */
export const sessionActor = (session: SessionRecord, keyId: string): Actor => ({
  workspaceId: session.workspaceId,
  role: 'agent',
  keyId,
  sessionId: session.id,
  agentName: session.agentName ?? session.id,
});

const rank: Record<Role, number> = { viewer: 0, member: 1, agent: 2, admin: 3 };

/** Refuses a role below `needed` (viewer < member < agent < admin); see `permissions.ts` for what each role may do. */
export function requireRole(actor: Actor, needed: Role): void {
  if (rank[actor.role] < rank[needed]) {
    const what = actor.role === 'viewer' ? 'viewer keys are read-only' : `this call needs an ${needed} key`;
    throw new DomainError('FORBIDDEN', `Error: forbidden: ${what} (this key is ${actor.role}).`);
  }
}

export async function resolveActor(deps: Deps, token: string | null | undefined): Promise<Actor> {
  if (!token) {
    throw new DomainError('UNAUTHENTICATED', 'Error: unauthorized: send an API key or session token as `Authorization: Bearer <token>`.');
  }
  // Session tokens are always minted with this prefix, so one lookup decides (API keys may be operator-chosen).
  return resolveActorByHash(deps, deps.hasher.hash(token), token.startsWith(SESSION_TOKEN_PREFIX));
}

/** The caller behind a token known only by its hash (a stream ticket keeps the hash, never the token). */
export async function resolveActorByHash(deps: Deps, hash: string, sessionToken: boolean): Promise<Actor> {
  if (!sessionToken) {
    const key = await deps.store.keys.findByHash(hash);
    if (key) {
      if (key.revokedAt) throw new DomainError('UNAUTHENTICATED', 'Error: unauthorized: this API key has been revoked.');
      return { workspaceId: key.workspaceId, role: key.role, keyId: key.id, sessionId: null, agentName: null };
    }
  } else {
    const session = await deps.store.sessions.findByHash(hash);
    if (session) {
      const opener = await deps.store.keys.get(session.workspaceId, session.openedByKey);
      if (!opener || opener.revokedAt) {
        throw new DomainError('UNAUTHENTICATED', 'Error: unauthorized: the API key that opened this session has been revoked.');
      }
      return sessionActor(session, opener.id);
    }
  }
  throw new DomainError('UNAUTHENTICATED', 'Error: unauthorized: unknown API key or session token.');
}
