// Sessions: open one (or a subagent session), list them, run turns, and read a session's view.
import { type Actor, SESSION_TOKEN_PREFIX, requireRole } from './actor.ts';
import { publishSessionActivity, revocationsTopic } from './live-topics.ts';
import { DomainError } from './errors.ts';
import type { Revocation } from './key-service.ts';
import { canReadSession, readableSessions } from './session-access.ts';
import type { Deps, Repositories } from './ports.ts';
import { presentList, presentSession } from './present.ts';
import type { SessionRecord } from './records.ts';
import { nextTurnOnEnd, nextTurnOnStart, standingPlan } from './session-rules.ts';

/** The session a call addresses: the named one in the caller's workspace (if the caller may read it), else the caller's own. */
export async function targetSession(repos: Repositories, actor: Actor, sessionId?: string): Promise<SessionRecord> {
  const id = sessionId ?? actor.sessionId;
  if (!id) {
    throw new DomainError('INVALID_INPUT', 'Error: invalid input: name a `sessionId`, or call with a session token.');
  }
  const session = await repos.sessions.get(actor.workspaceId, id);
  // Another chat's session is as unknown as another workspace's: its existence is not told either.
  if (!session || !(await canReadSession(actor, session, (parent) => repos.sessions.get(actor.workspaceId, parent)))) {
    throw new DomainError('NOT_FOUND', `Error: session ${id} not found.`);
  }
  return session;
}

/** The session's current list: the update at the revision its row names (none before the first write). */
export async function latestOf(deps: Deps, session: SessionRecord) {
  if (session.todoRevision === 0) return null;
  return (await deps.store.todos.at(session.id, session.todoRevision)) ?? deps.store.todos.latest(session.id);
}

/** Further tokens kept for a session reopened by its external id: each reopen adds one, older ones stop working. */
export const REOPEN_TOKENS_KEPT = 20;

export async function open(
  deps: Deps,
  actor: Actor,
  input: { title?: string | undefined; agentName?: string | undefined; externalId?: string | undefined },
) {
  requireRole(actor, 'agent');
  if (input.externalId !== undefined) return openByExternalId(deps, actor, input.externalId, input);
  const { session, token } = newSession(deps, actor, input, null);
  await deps.store.transaction((repos) => repos.sessions.create(session));
  publishSessionActivity(deps.events, session, 'opened', session.createdAt);
  return { session: presentSession(session), token };
}

function newSession(
  deps: Deps,
  actor: Actor,
  input: { title?: string | undefined; agentName?: string | undefined },
  externalId: string | null,
): { session: SessionRecord; token: string } {
  const token = deps.ids.secret(SESSION_TOKEN_PREFIX.slice(0, -1));
  const session: SessionRecord = {
    id: deps.ids.id('ses'),
    workspaceId: actor.workspaceId,
    parentId: actor.sessionId,
    title: input.title ?? null,
    agentName: input.agentName ?? null,
    tokenHash: deps.hasher.hash(token),
    openedByKey: actor.keyId,
    externalId,
    turnNumber: 0,
    turnState: 'none',
    todoRevision: 0,
    createdAt: deps.clock.now(),
  };
  return { session, token };
}

/**
 * Find-or-open by a key another tool knows the session by: the first open creates the session (title and agent
 * name apply then only); a later one returns the same session with a further token. Only the API key that opened
 * it (directly or through a session token) may reopen it.
 */
async function openByExternalId(
  deps: Deps,
  actor: Actor,
  externalId: string,
  input: { title?: string | undefined; agentName?: string | undefined },
) {
  const found = await deps.store.sessions.findByExternalId(actor.workspaceId, externalId);
  if (found) return reopen(deps, actor, found);
  const { session, token } = newSession(deps, actor, input, externalId);
  try {
    await deps.store.transaction((repos) => repos.sessions.create(session));
  } catch (error) {
    // A concurrent first open with the same key won the insert (the key is unique in the workspace): reopen that one.
    const winner = await deps.store.sessions.findByExternalId(actor.workspaceId, externalId);
    if (!winner) throw error;
    return reopen(deps, actor, winner);
  }
  publishSessionActivity(deps.events, session, 'opened', session.createdAt);
  return { session: presentSession(session), token };
}

async function reopen(deps: Deps, actor: Actor, session: SessionRecord) {
  if (session.openedByKey !== actor.keyId) {
    throw new DomainError(
      'FORBIDDEN',
      `Error: forbidden: the session with external id ${JSON.stringify(session.externalId)} was opened with another key.`,
    );
  }
  const token = deps.ids.secret(SESSION_TOKEN_PREFIX.slice(0, -1));
  const hash = deps.hasher.hash(token);
  const dropped = await deps.store.transaction((repos) => repos.sessions.addToken(session.id, hash, deps.clock.now(), REOPEN_TOKENS_KEPT));
  // A dropped token stops working everywhere at once: its calls are refused, and its open live streams are told to end.
  if (dropped > 0) {
    const data: Revocation = { sessionId: session.id, tokensDropped: true };
    deps.events.publish({ topic: revocationsTopic(session.workspaceId), id: String(deps.clock.now().getTime()), data });
  }
  return { session: presentSession(session), token };
}

export async function list(deps: Deps, actor: Actor) {
  const sessions = readableSessions(actor, await deps.store.sessions.list(actor.workspaceId));
  return { sessions: sessions.map(presentSession) };
}

function ownSession(actor: Actor): string {
  requireRole(actor, 'agent');
  if (!actor.sessionId) {
    throw new DomainError('NO_OWNING_SESSION', 'Error: turns belong to a session: call with a session token.');
  }
  return actor.sessionId;
}

async function changeTurn(deps: Deps, actor: Actor, next: typeof nextTurnOnStart) {
  const id = ownSession(actor);
  const session = await deps.store.transaction(async (repos) => {
    const current = await targetSession(repos, actor, id);
    const turn = next(current);
    await repos.sessions.setTurn(id, turn.turnNumber, turn.turnState);
    return { ...current, ...turn };
  });
  publishSessionActivity(deps.events, session, 'turn', deps.clock.now());
  return { session: presentSession(session) };
}

export const startTurn = (deps: Deps, actor: Actor) => changeTurn(deps, actor, nextTurnOnStart);
export const endTurn = (deps: Deps, actor: Actor) => changeTurn(deps, actor, nextTurnOnEnd);

export async function get(deps: Deps, actor: Actor, input: { sessionId?: string | undefined }) {
  const session = await targetSession(deps.store, actor, input.sessionId);
  const latest = await latestOf(deps, session);
  return {
    session: presentSession(session),
    todo: presentList(session.id, latest),
    standingPlan: standingPlan(session, latest),
  };
}

/**
 * Ends a session opened for a client that went away (an idle MCP session): removed when it recorded nothing, and its
 * live streams told to end either way. Answers whether the row was removed.
 */
export async function removeUnusedSession(deps: Deps, session: { workspaceId: string; id: string }) {
  const removed = await deps.store.transaction((repos) => repos.sessions.deleteIfUnused(session.workspaceId, session.id));
  const data: Revocation = { sessionId: session.id };
  deps.events.publish({ topic: revocationsTopic(session.workspaceId), id: String(deps.clock.now().getTime()), data });
  return removed;
}
