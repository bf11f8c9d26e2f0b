// The choice a person gets when a task changed between their read and their save: what changed, keep mine or take theirs.
import type { TaskGraph } from '@agent-tasks/schema';
import { useEffect, useRef } from 'react';
import { type Conflict, type TaskEdit, type TaskWriter, changedFields } from '../lib/task-write.ts';

const show = (value: unknown, subjects: Map<string, string>): string => {
  if (value === undefined || value === null || value === '') return '—';
  if (Array.isArray(value)) return value.length ? value.map((v) => subjects.get(String(v)) ?? String(v)).join(', ') : '—';
  return typeof value === 'string' ? value.replace('_', ' ') : JSON.stringify(value);
};

/** The person's change, one line a field, in words. */
function editLines(edit: TaskEdit, subjects: Map<string, string>): [string, string][] {
  const words: Record<string, string> = {
    addBlockedBy: 'add blocker',
    removeBlockedBy: 'remove blocker',
    addBlocks: 'add blocked task',
    removeBlocks: 'remove blocked task',
  };
  return Object.entries(edit).map(([field, value]) => [words[field] ?? field, show(value, subjects)]);
}

export function TaskConflict({
  conflict,
  writer,
  graph,
  onDone,
}: {
  conflict: Conflict;
  writer: TaskWriter;
  graph: TaskGraph;
  /** Told once the person chose and it is settled (their change saved, or dropped). */
  onDone?: () => void;
}) {
  const subjects = new Map(graph.tasks.map((t) => [t.id, t.subject]));
  const theirs = changedFields(conflict.base, conflict.current);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [conflict]);
  return (
    <section className="conflict" role="alertdialog" aria-labelledby="conflict-title" aria-describedby="conflict-what">
      <h3 id="conflict-title" tabIndex={-1} ref={heading}>
        This task changed while you were editing
      </h3>
      <p id="conflict-what">
        You read version {conflict.base.version}; it is now at version {conflict.current.version}. Nothing of yours was saved yet.
      </p>
      <table className="grid conflict-fields">
        <caption>What changed meanwhile</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">You read</th>
            <th scope="col">Now</th>
          </tr>
        </thead>
        <tbody>
          {theirs.length === 0 ? (
            <tr>
              <td colSpan={3}>Only its version moved (a change that left these fields as they were).</td>
            </tr>
          ) : (
            theirs.map((f) => (
              <tr key={f} data-field={f}>
                <th scope="row">{f}</th>
                <td>{show(conflict.base[f], subjects)}</td>
                <td>{show(conflict.current[f], subjects)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      <p>Your change:</p>
      <ul className="conflict-mine">
        {editLines(conflict.edit, subjects).map(([field, value]) => (
          <li key={field}>
            <code>{field}</code>: {value}
          </li>
        ))}
      </ul>
      <p className="actions">
        <button type="button" onClick={() => void writer.keepMine(conflict).then((saved) => saved && onDone?.())} disabled={writer.pending}>
          Keep mine
        </button>{' '}
        <button type="button" onClick={() => void writer.takeTheirs().then(() => onDone?.())} disabled={writer.pending}>
          Take theirs
        </button>
      </p>
    </section>
  );
}
