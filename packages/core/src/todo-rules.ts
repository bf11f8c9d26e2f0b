// Seed 000's rules for a todo list: trimming, the exact refusals, the one-active rule, counts, diffs, the answer text.
import type { TodoChanges, TodoCounts, TodoDisplayItem, TodoItem } from '@agent-tasks/schema';
import { NON_EMPTY_CONTENT_ERROR } from '@agent-tasks/schema';
import { DomainError } from './errors.ts';

export const NO_OWNING_SESSION_ERROR = 'Error: todo_write requires an owning agent session before anything is written.';

/**
 * Trims every item's text and refuses empty or repeated text (seed 000, exact texts). A mirrored item's `activeForm`
 * is kept, trimmed, as display text (dropped when empty); it is not part of the item's identity.
 */
export function normalizeTodos(todos: readonly TodoDisplayItem[]): TodoDisplayItem[] {
  const items = todos.map(({ content, status, activeForm }) => {
    const display = activeForm?.trim();
    return display ? { content: content.trim(), status, activeForm: display } : { content: content.trim(), status };
  });
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    // The seed's text word for word, then which item it is.
    if (item.content.length === 0) throw new DomainError('INVALID_TODOS', `${NON_EMPTY_CONTENT_ERROR} At \`todos[${i}].content\`.`);
    if (seen.has(item.content)) {
      throw new DomainError('INVALID_TODOS', `Error: invalid todos: duplicate content "${item.content}"`);
    }
    seen.add(item.content);
  }
  return items;
}

/** How many tasks of the list are in progress. */
export const activeCount = (items: readonly TodoItem[]) => items.filter((t) => t.status === 'in_progress').length;

/** The one-active rule, checked only when an update is sent. */
export function checkOneActive(items: readonly TodoItem[], oneActiveRule: boolean): void {
  if (!oneActiveRule) return;
  const active = activeCount(items);
  if (active > 1) {
    throw new DomainError('INVALID_TODOS', `Error: invalid todos: at most one task may be in_progress (got ${active})`);
  }
}

export function countTodos(items: readonly TodoItem[]): TodoCounts {
  const counts = { pending: 0, inProgress: 0, completed: 0 };
  for (const item of items) {
    if (item.status === 'pending') counts.pending++;
    else if (item.status === 'in_progress') counts.inProgress++;
    else counts.completed++;
  }
  return counts;
}

export function todoAnswer(counts: TodoCounts): string {
  return `Updated todo list: ${counts.pending} pending, ${counts.inProgress} in progress, ${counts.completed} completed`;
}

/** What an update changed against the list before it. */
export function diffTodos(before: readonly TodoItem[], after: readonly TodoItem[]): TodoChanges {
  const previous = new Map(before.map((t) => [t.content, t.status]));
  const next = new Set(after.map((t) => t.content));
  const changes: TodoChanges = { added: [], removed: [], statusChanged: [] };
  for (const item of after) {
    const was = previous.get(item.content);
    if (was === undefined) changes.added.push(item.content);
    else if (was !== item.status) changes.statusChanged.push({ content: item.content, from: was, to: item.status });
  }
  for (const item of before) if (!next.has(item.content)) changes.removed.push(item.content);
  return changes;
}

export function staleRevisionError(based: number, current: number): DomainError {
  return new DomainError(
    'STALE_REVISION',
    `Error: stale revision: this update was based on revision ${based}, but the list is at revision ${current}; read the list again and send the whole list.`,
    { currentRevision: current },
  );
}
