// The "Update to-do list" card (seed 000) as text for models and terminals: the list in Pending / In progress /
// Completed groups and what the update changed. The dashboard renders the same data (`groups`, `changes`).
import type { TodoCard, TodoCardView } from '@agent-tasks/schema';
import type { Actor } from './actor.ts';
import { DomainError } from './errors.ts';
import type { Deps } from './ports.ts';
import { presentCard } from './present.ts';
import { targetSession } from './session-service.ts';

const GROUPS = [
  ['pending', 'Pending', '○'],
  ['in_progress', 'In progress', '▶'],
  ['completed', 'Completed', '✓'],
] as const;

const quoted = (text: string) => JSON.stringify(text);

/** What an update changed, as one line. */
export function changesLine(changes: TodoCard['changes']): string {
  const parts = [
    ...changes.added.map((c) => `added ${quoted(c)}`),
    ...changes.statusChanged.map((c) => `${quoted(c.content)} ${c.from} → ${c.to}`),
    ...changes.removed.map((c) => `removed ${quoted(c)}`),
  ];
  return `What changed: ${parts.length ? parts.join('; ') : 'nothing'}`;
}

export function renderTodoCard(card: TodoCard): string {
  const lines = [`Update to-do list · revision ${card.revision}`];
  for (const [status, title, mark] of GROUPS) {
    const items = card.items.filter((i) => i.status === status);
    lines.push(`${title} (${items.length})`, ...(items.length ? items.map((i) => `  ${mark} ${i.content}`) : ['  none']));
  }
  lines.push(changesLine(card.changes));
  return lines.join('\n');
}

export function presentTodoCard(card: TodoCard): TodoCardView {
  const group = (status: (typeof GROUPS)[number][0]) => card.items.filter((i) => i.status === status).map((i) => i.content);
  return {
    sessionId: card.sessionId,
    revision: card.revision,
    groups: { pending: group('pending'), inProgress: group('in_progress'), completed: group('completed') },
    changes: card.changes,
    createdAt: card.createdAt,
    text: renderTodoCard(card),
  };
}

/** The card of an update (the latest when no revision is given) of the caller's own or a readable session. */
export async function todoCardOf(deps: Deps, actor: Actor, input: { sessionId?: string | undefined; revision?: number | undefined }) {
  const session = await targetSession(deps.store, actor, input.sessionId);
  const record =
    input.revision === undefined
      ? await deps.store.todos.latest(session.id)
      : (await deps.store.todos.page(session.id, input.revision + 1, 1))[0];
  if (!record || (input.revision !== undefined && record.revision !== input.revision)) {
    throw new DomainError(
      'NOT_FOUND',
      input.revision === undefined
        ? `Error: session ${session.id} has recorded no to-do list yet; there is no card.`
        : `Error: session ${session.id} has no update at revision ${input.revision} (its latest is ${session.todoRevision}).`,
    );
  }
  return presentTodoCard(presentCard(record));
}
