// The todo_write use case, the mirror of another tool's list, and the reads of a session's list, its update cards and their live feed.
import type { TodoDisplayItem } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { publishSessionActivity, todoTopic } from './live-topics.ts';
import { DomainError } from './errors.ts';
import { mirroredTodos } from './mirror-rules.ts';
import type { Deps } from './ports.ts';
import { presentCard, presentList } from './present.ts';
import type { TodoUpdateRecord } from './records.ts';
import { latestOf, targetSession } from './session-service.ts';
import {
  NO_OWNING_SESSION_ERROR,
  activeCount,
  checkOneActive,
  countTodos,
  diffTodos,
  normalizeTodos,
  staleRevisionError,
  todoAnswer,
} from './todo-rules.ts';

/**
 * Records a whole new list for the caller's session, in one transaction, or refuses and records nothing (todo_write,
 * seed 000's rules). The revision moves on in one compare-and-set statement (against `baseRevision` when given), so
 * concurrent writers are ordered by the store and none is lost.
 */
export async function write(deps: Deps, actor: Actor, input: { todos: readonly TodoDisplayItem[]; baseRevision?: number | undefined }) {
  const sessionId = owningSession(actor);
  const items = normalizeTodos(input.todos);
  return recordTodos(deps, actor, sessionId, items, input.baseRevision, true);
}

/**
 * Records a list kept by another agent tool (Claude Code's TodoWrite) as that tool holds it (`mirroredTodos`): never
 * refused for its content, never held to the one-active rule. With `forkOf` (the external id of the session this one
 * was forked from, opened with the same key) a session that has no list yet starts with that session's current list;
 * otherwise nothing is recorded and the answer says why.
 */
export async function mirror(
  deps: Deps,
  actor: Actor,
  input: { todos?: readonly TodoDisplayItem[] | undefined; forkOf?: string | undefined },
) {
  const sessionId = owningSession(actor);
  if (input.todos !== undefined) return recordTodos(deps, actor, sessionId, mirroredTodos(input.todos), undefined, false);
  const parent = input.forkOf === undefined ? null : await deps.store.sessions.findByExternalId(actor.workspaceId, input.forkOf);
  const own = await targetSession(deps.store, actor, sessionId);
  const kept = (why: string) => ({ message: `Nothing copied: ${why}.`, revision: own.todoRevision, counts: countTodos([]) });
  // Another key's session is as unknown here as anywhere.
  if (!parent || parent.openedByKey !== actor.keyId) return kept(`no session with external id ${JSON.stringify(input.forkOf)}`);
  const list = await latestOf(deps, parent);
  if (!list?.items.length) return kept('the session it was forked from has no list');
  if (own.todoRevision !== 0) return kept('this session has a list already');
  try {
    return await recordTodos(deps, actor, sessionId, list.items, 0, false);
  } catch (error) {
    // A list recorded meanwhile is newer than the one forked from: it stays.
    if (error instanceof DomainError && error.code === 'STALE_REVISION') return kept('this session has a list already');
    throw error;
  }
}

function owningSession(actor: Actor): string {
  requireRole(actor, 'agent');
  if (!actor.sessionId) throw new DomainError('NO_OWNING_SESSION', NO_OWNING_SESSION_ERROR);
  return actor.sessionId;
}

async function recordTodos(
  deps: Deps,
  actor: Actor,
  sessionId: string,
  items: TodoDisplayItem[],
  baseRevision: number | undefined,
  oneActive: boolean,
) {
  const update = await deps.store.transaction(
    async (repos): Promise<TodoUpdateRecord> => {
      // The workspace's one-active rule matters only to a list with more than one task in progress.
      if (oneActive && activeCount(items) > 1) {
        checkOneActive(items, (await repos.workspaces.get(actor.workspaceId))?.oneActiveRule ?? true);
      }
      // The list before is known without a read when this server wrote it: the new update is then drafted against it,
      // and recorded in the same statement as the compare-and-set. If the revision moved elsewhere meanwhile, it is
      // recorded again against the list actually before it.
      const known =
        baseRevision === undefined
          ? await repos.todos.latestKnown(sessionId)
          : baseRevision === 0
            ? null
            : await repos.todos.at(sessionId, baseRevision);
      const counts = countTodos(items);
      const draft = {
        id: deps.ids.ordered('tdu'),
        sessionId,
        revision: (known?.revision ?? baseRevision ?? 0) + 1,
        items,
        changes: diffTodos(known?.items ?? [], items),
        counts,
        createdAt: deps.clock.now(),
      };
      const moved = await repos.todos.advance(actor.workspaceId, baseRevision, draft);
      if (!moved) {
        const session = await targetSession(repos, actor, sessionId); // not in the workspace: NOT_FOUND
        if (baseRevision === undefined) throw new Error(`session ${sessionId}: the todo revision did not move`);
        throw staleRevisionError(baseRevision, session.todoRevision);
      }
      const { todoRevision: revision, turnNumber } = moved;
      if (moved.recorded) return { ...draft, turnNumber };
      const previous = revision === 1 ? null : await repos.todos.at(sessionId, revision - 1);
      const record: TodoUpdateRecord = { ...draft, revision, turnNumber, changes: diffTodos(previous?.items ?? [], items) };
      await repos.todos.insert(record);
      return record;
    },
    { footprint: `session:${sessionId}` },
  );

  deps.events.publish({ topic: todoTopic(sessionId), id: String(update.revision), data: presentCard(update) });
  publishSessionActivity(deps.events, { id: sessionId, workspaceId: actor.workspaceId }, 'todo', update.createdAt);
  return { message: todoAnswer(update.counts), revision: update.revision, counts: update.counts };
}

export async function get(deps: Deps, actor: Actor, input: { sessionId?: string | undefined }) {
  const session = await targetSession(deps.store, actor, input.sessionId);
  return presentList(session.id, await latestOf(deps, session));
}

export async function history(
  deps: Deps,
  actor: Actor,
  input: { sessionId?: string | undefined; limit: number; before?: number | undefined },
) {
  const session = await targetSession(deps.store, actor, input.sessionId);
  const rows = await deps.store.todos.page(session.id, input.before ?? null, input.limit + 1);
  const cards = rows.slice(0, input.limit).map(presentCard);
  const last = cards.at(-1);
  return { cards, nextBefore: rows.length > input.limit && last ? last.revision : null };
}

/** One page of the cards recorded after `afterRevision`, oldest first: the replay part of a resumed live feed. */
export async function cardsAfter(
  deps: Deps,
  actor: Actor,
  input: { sessionId?: string | undefined; afterRevision: number; limit?: number },
) {
  const session = await targetSession(deps.store, actor, input.sessionId);
  const limit = input.limit ?? 500;
  const rows = await deps.store.todos.after(session.id, input.afterRevision, limit + 1);
  return { sessionId: session.id, cards: rows.slice(0, limit).map(presentCard), more: rows.length > limit };
}
