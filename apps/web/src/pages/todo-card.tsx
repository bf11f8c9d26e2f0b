// One "Update to-do list" card: when, which turn, the counts, and what it changed (added, removed, state changes).
import type { TodoCard as Card, TodoDisplayItem as TodoItem } from '@agent-tasks/schema';
import { memo, useState } from 'react';
import { TimeAgo } from '../components/time-ago.tsx';
import { byStatus, statusMark, statusText, todoGroups } from '../lib/todo-groups.ts';

export function TodoGroups({ items, headingLevel = 3 }: { items: readonly TodoItem[]; headingLevel?: 3 | 4 }) {
  const Heading = headingLevel === 3 ? 'h3' : 'h4';
  return (
    <div className="todo-groups">
      {todoGroups.map(({ status, title }) => {
        const group = byStatus(items, status);
        return (
          <section key={status} className={`todo-group todo-${status}`} aria-label={`${title} (${group.length})`}>
            <Heading>
              {title} <span className="count">{group.length}</span>
            </Heading>
            {group.length === 0 ? (
              <p className="none">None</p>
            ) : (
              <ul>
                {group.map((item, i) => (
                  // A mirrored list may repeat a text: the position keeps each item its own.
                  <li key={`${i}:${item.content}`}>
                    <span className="mark" aria-hidden="true">
                      {statusMark[item.status]}
                    </span>{' '}
                    {item.content}
                    {item.status === 'in_progress' && item.activeForm ? <span className="meta"> — {item.activeForm}</span> : null}
                  </li>
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </div>
  );
}

/** Cards never change once recorded: paging in more redraws only the new ones. */
export const TodoCard = memo(function TodoCard({ card }: { card: Card }) {
  const { added, removed, statusChanged } = card.changes;
  const nothing = added.length + removed.length + statusChanged.length === 0;
  return (
    <article className="card todo-card" aria-label={`Update ${card.revision}`} data-revision={card.revision}>
      <header>
        <h3>Update to-do list</h3>
        <p className="meta">
          #{card.revision} · turn {card.turnNumber} · <TimeAgo iso={card.createdAt} /> · {card.counts.pending} pending,{' '}
          {card.counts.inProgress} in progress, {card.counts.completed} completed
        </p>
      </header>
      {nothing ? <p className="none">No change to the items.</p> : null}
      <ul className="changes">
        {added.map((content) => (
          <li key={`+${content}`} className="added">
            <span className="tag">added</span> {content}
          </li>
        ))}
        {removed.map((content) => (
          <li key={`-${content}`} className="removed">
            <span className="tag">removed</span> <del>{content}</del>
          </li>
        ))}
        {statusChanged.map((c) => (
          <li key={`~${c.content}`} className="moved">
            <span className="tag">{statusText[c.to]}</span> {c.content}{' '}
            <span className="from-to">
              ({statusText[c.from]} → {statusText[c.to]})
            </span>
          </li>
        ))}
      </ul>
      <SentList items={card.items} />
    </article>
  );
});

/** The list as sent, drawn only once opened (a long history stays light). */
function SentList({ items }: { items: readonly TodoItem[] }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>The list as sent ({items.length})</summary>
      {open ? <TodoGroups items={items} headingLevel={4} /> : null}
    </details>
  );
}
