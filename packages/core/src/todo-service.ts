// The todo_write use case and the reads of a session's list, its update cards and their live feed.
import type { TodoDisplayItem } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { publishSessionActivity } from './dashboard-service.ts';
import { DomainError } from './errors.ts';
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

export const todoTopic = (sessionId: string) => `todo:${sessionId}`;

/**
 * Records a whole new list for the caller's session, in one transaction, or refuses and records nothing. Serves
 * todo_write and the mirror of another tool's list (whose items may carry an `activeForm` to display). The revision
 * moves on in one compare-and-set statement (against `baseRevision` when given), so concurrent writers are ordered
 * by the store and none is lost.
 */
export async function writeTodos(
  deps: Deps,
  actor: Actor,
  input: { todos: readonly TodoDisplayItem[]; baseRevision?: number | undefined },
) {
  requireRole(actor, 'agent');
  const sessionId = actor.sessionId;
  if (!sessionId) throw new DomainError('NO_OWNING_SESSION', NO_OWNING_SESSION_ERROR);
  const items = normalizeTodos(input.todos);

  const update = await deps.store.transaction(async (repos): Promise<TodoUpdateRecord> => {
    // The workspace's one-active rule matters only to a list with more than one task in progress.
    if (activeCount(items) > 1) checkOneActive(items, (await repos.workspaces.get(actor.workspaceId))?.oneActiveRule ?? true);
    const moved = await repos.sessions.advanceTodoRevision(actor.workspaceId, sessionId, input.baseRevision);
    if (!moved) {
      const session = await targetSession(repos, actor, sessionId); // not in the workspace: NOT_FOUND
      if (input.baseRevision === undefined) throw new Error(`session ${sessionId}: the todo revision did not move`);
      throw staleRevisionError(input.baseRevision, session.todoRevision);
    }
    const revision = moved.todoRevision;
    const previous = revision === 1 ? null : await repos.todos.at(sessionId, revision - 1);
    const record: TodoUpdateRecord = {
      id: deps.ids.id('tdu'),
      sessionId,
      revision,
      turnNumber: moved.turnNumber,
      items,
      changes: diffTodos(previous?.items ?? [], items),
      counts: countTodos(items),
      createdAt: deps.clock.now(),
    };
    await repos.todos.insert(record);
    return record;
  });

  deps.events.publish({ topic: todoTopic(sessionId), id: String(update.revision), data: presentCard(update) });
  publishSessionActivity(deps.events, { id: sessionId, workspaceId: actor.workspaceId }, 'todo', update.createdAt);
  return { message: todoAnswer(update.counts), revision: update.revision, counts: update.counts };
}

export async function getTodoList(deps: Deps, actor: Actor, input: { sessionId?: string | undefined }) {
  const session = await targetSession(deps.store, actor, input.sessionId);
  return presentList(session.id, await latestOf(deps, session));
}

export async function todoHistory(
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
export async function todoCardsAfter(
  deps: Deps,
  actor: Actor,
  input: { sessionId?: string | undefined; afterRevision: number; limit?: number },
) {
  const session = await targetSession(deps.store, actor, input.sessionId);
  const limit = input.limit ?? 500;
  const rows = await deps.store.todos.after(session.id, input.afterRevision, limit + 1);
  return { sessionId: session.id, cards: rows.slice(0, limit).map(presentCard), more: rows.length > limit };
}
