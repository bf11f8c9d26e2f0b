// Who may read a session (its todo list, cards, view and live feed): the session itself and the sessions above it (its
// parent chain), viewer and admin keys of its workspace, and the agent key that opened its tree. Nothing is shared
// between sibling chats (seed 000). Who may drive a checklist run: the agent (API key) that started it.
import type { Actor } from './actor.ts';
import type { Deps } from './ports.ts';
import type { SessionRecord } from './records.ts';

/** How far up a parent chain is followed (subagents of subagents…); deeper chains are cut there. */
export const MAX_SESSION_DEPTH = 64;

/** Whether `actor` may read `session`, given a way to look up parents (by id, in the actor's workspace). */
export async function canReadSession(
  actor: Actor,
  session: SessionRecord,
  parentOf: (id: string) => Promise<SessionRecord | null>,
): Promise<boolean> {
  if (session.workspaceId !== actor.workspaceId) return false;
  if (actor.sessionId === null) return actor.role !== 'agent' || session.openedByKey === actor.keyId;
  let at: SessionRecord | null = session;
  for (let depth = 0; at && depth <= MAX_SESSION_DEPTH; depth++) {
    if (at.id === actor.sessionId) return true;
    at = at.parentId ? await parentOf(at.parentId) : null;
  }
  return false;
}

/** The sessions of a workspace `actor` may read, in the given order (one pass over the whole list, no lookups). */
export function readableSessions(actor: Actor, sessions: readonly SessionRecord[]): SessionRecord[] {
  if (actor.sessionId === null) return actor.role === 'agent' ? sessions.filter((s) => s.openedByKey === actor.keyId) : [...sessions];
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const readable = (s: SessionRecord) => {
    let at: SessionRecord | undefined = s;
    for (let depth = 0; at && depth <= MAX_SESSION_DEPTH; depth++) {
      if (at.id === actor.sessionId) return true;
      at = at.parentId ? byId.get(at.parentId) : undefined;
    }
    return false;
  };
  return sessions.filter(readable);
}

/** Whether `actor` may read the session with this id (false when it is unknown). */
export async function sessionReadable(deps: Deps, actor: Actor, sessionId: string): Promise<boolean> {
  const session = await deps.store.sessions.get(actor.workspaceId, sessionId);
  return session !== null && (await canReadSession(actor, session, (id) => deps.store.sessions.get(actor.workspaceId, id)));
}

/**
 * Whether `actor` may drive (write to) a checklist run, or execute a start attempt, that the agent session `owner`
 * started. A run belongs to the agent that started it, not to one connection: the API key behind that session (for a
 * session token, the key that opened its tree). The key's own agent sessions (`caller` opened by the key itself: a
 * restarted agent's new MCP connection or session) drive it; a subagent's session drives what its own tree started,
 * as it reads (never its parent's runs). Another key of the workspace never does.
 */
export async function canDriveRun(
  actor: Actor,
  owner: SessionRecord | null,
  caller: SessionRecord | null,
  parentOf: (id: string) => Promise<SessionRecord | null>,
): Promise<boolean> {
  if (!owner || !caller || owner.workspaceId !== actor.workspaceId || owner.openedByKey !== actor.keyId) return false;
  if (caller.parentId === null) return true;
  return canReadSession(actor, owner, parentOf);
}
