// The board: a column per status, cards in the list's board order; a person's key drags a card (or moves a focused
// card with the arrow keys) to change its status or its place, one TaskUpdate with the version read. Ready tasks marked.
import type { TaskGraph, TaskGraphNode, TaskStatus } from '@agent-tasks/schema';
import { type DragEvent, type KeyboardEvent, useEffect, useMemo, useRef, useState } from 'react';
import { ErrorMessage } from '../components/error-message.tsx';
import { TaskConflict } from '../components/task-conflict.tsx';
import { useRole, writesTasks } from '../lib/permissions.ts';
import { useTaskWrite } from '../lib/task-write.ts';
import { ReadOnlyNote } from './task-editor.tsx';

const COLUMNS: { status: TaskStatus; title: string }[] = [
  { status: 'pending', title: 'Pending' },
  { status: 'in_progress', title: 'In progress' },
  { status: 'completed', title: 'Completed' },
];

/** The metadata key a card's place in its column is kept under (a number; cards without one sit by creation). */
export const BOARD_ORDER = 'boardOrder';

const seqOf = (t: TaskGraphNode) => (t.ref ? Number(t.ref.slice(1)) : 0);
const orderOf = (t: TaskGraphNode) => {
  const kept = t.metadata[BOARD_ORDER];
  return typeof kept === 'number' && Number.isFinite(kept) ? kept : seqOf(t);
};

/** The columns' cards in board order (ties by creation). */
export function boardColumns(graph: TaskGraph) {
  return COLUMNS.map((c) => ({
    ...c,
    cards: graph.tasks.filter((t) => t.status === c.status).sort((a, b) => orderOf(a) - orderOf(b) || seqOf(a) - seqOf(b)),
  }));
}

/** The order that puts a card at `index` among `others` (its column without it). */
function orderAt(others: TaskGraphNode[], index: number, card: TaskGraphNode) {
  const before = others[index - 1];
  const after = others[index];
  if (before && after) return (orderOf(before) + orderOf(after)) / 2;
  if (before) return orderOf(before) + 1;
  if (after) return orderOf(after) - 1;
  return orderOf(card);
}

export function TaskBoard({ graph, onOpen, selected }: { graph: TaskGraph; onOpen: (id: string) => void; selected: string | null }) {
  const role = useRole();
  const canMove = writesTasks(role);
  const writer = useTaskWrite(graph.listName);
  const columns = useMemo(() => boardColumns(graph), [graph]);
  const [said, setSaid] = useState('');
  // The card a move put elsewhere: focused again once it shows in its new column.
  const [refocus, setRefocus] = useState<{ id: string; status: TaskStatus } | null>(null);
  const [dropAt, setDropAt] = useState<{ status: TaskStatus; index: number } | null>(null);
  const board = useRef<HTMLDivElement>(null);

  // A moved card keeps the focus in its new place.
  useEffect(() => {
    if (!refocus) return;
    const card = board.current?.querySelector<HTMLElement>(`[data-status="${refocus.status}"] [data-task-id="${CSS.escape(refocus.id)}"]`);
    if (!card) return;
    card.focus();
    setRefocus(null);
  }, [columns, refocus]);

  async function move(card: TaskGraphNode, status: TaskStatus, index: number) {
    const column = columns.find((c) => c.status === status);
    if (!column) return;
    const others = column.cards.filter((t) => t.id !== card.id);
    const at = Math.max(0, Math.min(index, others.length));
    if (status === card.status && column.cards[at]?.id === card.id) return;
    const order = orderAt(others, at, card);
    const ok = await writer.send(card, { ...(status === card.status ? {} : { status }), metadata: { [BOARD_ORDER]: order } });
    setRefocus({ id: card.id, status: ok ? status : card.status });
    const title = COLUMNS.find((c) => c.status === status)?.title ?? status;
    setSaid(ok ? `Moved “${card.subject}” to ${title}, position ${at + 1} of ${others.length + 1}.` : `“${card.subject}” was not moved.`);
  }

  function onKey(e: KeyboardEvent<HTMLElement>, card: TaskGraphNode, col: number, index: number) {
    if (e.key === 'Enter') return onOpen(card.id);
    if (!canMove) return;
    const step: Record<string, [number, number]> = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    const delta = step[e.key];
    if (!delta) return;
    e.preventDefault();
    const target = columns[col + delta[0]];
    if (!target) return;
    void move(card, target.status, delta[0] === 0 ? index + delta[1] : Math.min(index, target.cards.length));
  }

  const dragged = (e: DragEvent) => graph.tasks.find((t) => t.id === e.dataTransfer.getData('text/plain'));

  return (
    <>
      {canMove ? (
        <p className="hint">Drag a card, or focus it and use the arrow keys: ←/→ change its status, ↑/↓ its place. Enter opens it.</p>
      ) : (
        <ReadOnlyNote role={role} />
      )}
      {writer.conflict ? <TaskConflict conflict={writer.conflict} writer={writer} graph={graph} /> : null}
      <ErrorMessage error={writer.error} />
      <p className="visually-hidden" aria-live="polite" data-testid="board-said">
        {said}
      </p>
      <div className="board" ref={board}>
        {columns.map((column, col) => (
          <section
            key={column.status}
            className="board-column"
            aria-labelledby={`board-${column.status}`}
            data-status={column.status}
            onDragOver={(e) => {
              if (!canMove) return;
              e.preventDefault();
              if (dropAt?.status !== column.status || e.target === e.currentTarget)
                setDropAt({ status: column.status, index: column.cards.length });
            }}
            onDrop={(e) => {
              e.preventDefault();
              const card = dragged(e);
              const at = dropAt?.status === column.status ? dropAt.index : column.cards.length;
              setDropAt(null);
              if (card) void move(card, column.status, at);
            }}
          >
            <h2 id={`board-${column.status}`}>
              {column.title} <span className="count">{column.cards.length}</span>
            </h2>
            <ol>
              {column.cards.map((card, index) => (
                <li
                  key={card.id}
                  className={`board-card ${card.id === selected ? 'selected' : ''}`}
                  data-task-id={card.id}
                  tabIndex={0}
                  aria-roledescription="card"
                  aria-label={`${card.subject}${card.ready ? ', ready' : ''}, ${column.title}, ${index + 1} of ${column.cards.length}`}
                  draggable={canMove}
                  onDragStart={(e) => {
                    e.dataTransfer.setData('text/plain', card.id);
                    e.dataTransfer.effectAllowed = 'move';
                  }}
                  onDragOver={(e) => {
                    if (!canMove) return;
                    e.preventDefault();
                    e.stopPropagation();
                    const box = e.currentTarget.getBoundingClientRect();
                    const after = e.clientY > box.top + box.height / 2;
                    setDropAt({ status: column.status, index: index + (after ? 1 : 0) });
                  }}
                  onKeyDown={(e) => onKey(e, card, col, index)}
                  onDoubleClick={() => onOpen(card.id)}
                >
                  <button type="button" className="link" tabIndex={-1} onClick={() => onOpen(card.id)}>
                    {card.subject}
                  </button>
                  <span className="card-meta">
                    {card.ref ? <code>{card.ref}</code> : null}
                    {card.owner ? <span className="owner">{card.owner}</span> : null}
                    {card.ready ? <span className="ready">ready</span> : null}
                    {card.unresolvedBlockers.length ? <span className="blocked">blocked by {card.unresolvedBlockers.length}</span> : null}
                  </span>
                </li>
              ))}
            </ol>
            {column.cards.length === 0 ? <p className="none">No {column.title.toLowerCase()} tasks</p> : null}
          </section>
        ))}
      </div>
    </>
  );
}
