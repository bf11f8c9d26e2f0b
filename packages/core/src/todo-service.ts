// The todo_write use case and the reads of a session's list, its update cards and their live feed.
import type { TodoDisplayItem } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { publishSessionActivity } from './dashboard-service.ts';
import { DomainError } from './errors.ts';
import type { Deps } from './ports.ts';
import { presentCard, presentList } from './present.ts';
import type { TodoUpdateRecord } from './records.ts';
import { targetSession } from './session-service.ts';
import {
  NO_OWNING_SESSION_ERROR,
  checkOneActive,
  countTodos,
  diffTodos,
  normalizeTodos,
  staleRevisionError,
  todoAnswer,
} from './todo-rules.ts';

export const todoTopic = (sessionId: string) => `todo:${sessionId}`;

/** A write without a base revision that lost a compare-and-set race: it is simply tried again. */
class LostRace extends Error {}
const MAX_WRITE_ATTEMPTS = 5;

async function retryLostRaces<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof LostRace)) throw error;
      if (tries >= MAX_WRITE_ATTEMPTS) {
        throw new DomainError('CONFLICT', 'Error: the list kept changing under concurrent writers; send the update again.');
      }
    }
  }
}

/**
 * Records a whole new list for the caller's session, in one transaction, or refuses and records nothing. Serves
 * todo_write and the mirror of another tool's list (whose items may carry an `activeForm` to display).
 */
export async function writeTodos(deps: Deps, actor: Actor, input: { todos: readonly TodoDisplayItem[]; baseRevision?: number | undefined }) {
  requireRole(actor, 'agent');
  const sessionId = actor.sessionId;
  if (!sessionId) throw new DomainError('NO_OWNING_SESSION', NO_OWNING_SESSION_ERROR);
  const items = normalizeTodos(input.todos);

  const update = await retryLostRaces(() => deps.store.transaction(async (repos): Promise<TodoUpdateRecord> => {
    const workspace = await repos.workspaces.get(actor.workspaceId);
    checkOneActive(items, workspace?.oneActiveRule ?? true);
    const session = await targetSession(repos, actor, sessionId);
    const current = session.todoRevision;
    if (input.baseRevision !== undefined && input.baseRevision !== current) {
      throw staleRevisionError(input.baseRevision, current);
    }
    const previous = current === 0 ? null : await repos.todos.latest(sessionId);
    const record: TodoUpdateRecord = {
      id: deps.ids.id('tdu'),
      sessionId,
      revision: current + 1,
      turnNumber: session.turnNumber,
      items,
      changes: diffTodos(previous?.items ?? [], items),
      counts: countTodos(items),
      createdAt: deps.clock.now(),
    };
    if (!(await repos.sessions.advanceTodoRevision(sessionId, current, record.revision))) {
      // A concurrent writer moved the list between our read and our compare-and-set.
      const moved = (await targetSession(repos, actor, sessionId)).todoRevision;
      if (input.baseRevision !== undefined) throw staleRevisionError(input.baseRevision, moved);
      throw new LostRace();
    }
    await repos.todos.insert(record);
    return record;
  }));

  deps.events.publish({ topic: todoTopic(sessionId), id: String(update.revision), data: presentCard(update) });
  publishSessionActivity(deps.events, { id: sessionId, workspaceId: actor.workspaceId }, 'todo', update.createdAt);
  return { message: todoAnswer(update.counts), revision: update.revision, counts: update.counts };
}

export async function getTodoList(deps: Deps, actor: Actor, input: { sessionId?: string | undefined }) {
  const session = await targetSession(deps.store, actor, input.sessionId);
  return presentList(session.id, await deps.store.todos.latest(session.id));
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
