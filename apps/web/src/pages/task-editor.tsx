// The task panel's editing, for a person's key: subject and description, status, owner, priority and labels, blockers,
// delete — each sent with the version read, a refusal shown in the server's words, and a conflict settled by the person.
import type { Priority, Task, TaskGraph, TaskGraphNode, TaskStatus } from '@agent-tasks/schema';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/error-message.tsx';
import { TaskConflict } from '../components/task-conflict.tsx';
import { useRole, writesTasks } from '../lib/permissions.ts';
import { type TaskEdit, useTaskWrite } from '../lib/task-write.ts';

const statuses: TaskStatus[] = ['pending', 'in_progress', 'completed'];
const priorities: Priority[] = ['P0', 'P1', 'P2', 'P3', 'P4'];

/** Labels as a person types them: comma-separated, each trimmed, blanks between commas dropped (the server checks the rest). */
export const parseLabels = (text: string) =>
  text
    .split(',')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** What a read-only key can do here, and how a person gets to change tasks. */
export function ReadOnlyNote({ role }: { role: string | undefined }) {
  return (
    <p className="none role-note" data-testid="read-only-note">
      Signed in with {role === 'agent' ? 'an agent' : 'a viewer'} key: you see the tasks as agents change them. To create and change tasks
      here, sign in with a <strong>member</strong> key — an admin makes one under Admin → API keys (or{' '}
      <code>agent-tasks keys create --role member</code>).
    </p>
  );
}

interface Draft {
  base: Task;
  subject: string;
  description: string;
}

export function TaskEditor({ graph, task, onClose }: { graph: TaskGraph; task: TaskGraphNode; onClose: () => void }) {
  const role = useRole();
  const writer = useTaskWrite(graph.listName);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [owner, setOwner] = useState('');
  // The labels being typed, with the task as it was read when the typing began (its version goes with the save).
  const [labels, setLabels] = useState<{ base: Task; text: string } | null>(null);
  const [blocker, setBlocker] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  if (!writesTasks(role)) return <ReadOnlyNote role={role} />;

  const subjects = new Map(graph.tasks.map((t) => [t.id, t.subject]));
  const send = (edit: TaskEdit) => writer.send(task, edit);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    const edit: TaskEdit = {};
    if (draft.subject !== draft.base.subject) edit.subject = draft.subject;
    if (draft.description !== draft.base.description) edit.description = draft.description;
    if (Object.keys(edit).length === 0 || (await writer.send(draft.base, edit))) setDraft(null);
  };
  const candidates = graph.tasks.filter((t) => t.id !== task.id && !task.blockedBy.includes(t.id));

  return (
    <section className="task-editor" aria-label="Change this task">
      {writer.conflict ? (
        <TaskConflict
          conflict={writer.conflict}
          writer={writer}
          graph={graph}
          onDone={() => {
            setDraft(null);
            setLabels(null);
          }}
        />
      ) : null}
      <ErrorMessage error={writer.error} />
      {draft && !writer.conflict ? (
        <form className="edit-form" onSubmit={(e) => void save(e)}>
          <label>
            Subject
            <input value={draft.subject} onChange={(e) => setDraft({ ...draft, subject: e.target.value })} required maxLength={500} />
          </label>
          <label>
            Description
            <textarea value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} rows={4} />
          </label>
          <p className="actions">
            <button type="submit" disabled={writer.pending}>
              Save
            </button>{' '}
            <button type="button" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </p>
        </form>
      ) : null}
      {!draft ? (
        <p className="actions">
          <button type="button" onClick={() => setDraft({ base: task, subject: task.subject, description: task.description })}>
            Edit subject and description
          </button>
        </p>
      ) : null}
      <div className="edit-row">
        <label>
          Status{' '}
          <select value={task.status} disabled={writer.pending} onChange={(e) => void send({ status: e.target.value as TaskStatus })}>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
      </div>
      <form
        className="edit-row"
        onSubmit={(e) => {
          e.preventDefault();
          void send({ owner: owner.trim() }).then((ok) => ok && setOwner(''));
        }}
      >
        <label>
          Owner <input value={owner} onChange={(e) => setOwner(e.target.value)} placeholder={task.owner ?? 'an agent name'} required />
        </label>{' '}
        <button type="submit" disabled={writer.pending}>
          Assign
        </button>{' '}
        <button type="button" disabled={writer.pending || !task.owner} onClick={() => void send({ owner: null })}>
          Clear owner
        </button>
      </form>
      <div className="edit-row">
        <label>
          Priority{' '}
          <select
            value={task.priority ?? ''}
            disabled={writer.pending}
            onChange={(e) => void send({ priority: e.target.value === '' ? null : (e.target.value as Priority) })}
          >
            <option value="">none</option>
            {priorities.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
      </div>
      <form
        className="edit-row priority-labels"
        onSubmit={(e) => {
          e.preventDefault();
          const base = labels?.base ?? task;
          const text = labels?.text ?? (task.labels ?? []).join(', ');
          void writer.send(base, { labels: parseLabels(text) }).then((ok) => ok && setLabels(null));
        }}
      >
        <label>
          Labels{' '}
          <input
            value={labels?.text ?? (task.labels ?? []).join(', ')}
            onChange={(e) => setLabels({ base: labels?.base ?? task, text: e.target.value })}
            placeholder="comma-separated, up to 10"
          />
        </label>{' '}
        <button type="submit" disabled={writer.pending}>
          Set labels
        </button>
      </form>
      <h3>Blockers</h3>
      {task.blockedBy.length === 0 ? <p className="none">None</p> : null}
      <ul className="blocker-list">
        {task.blockedBy.map((b) => (
          <li key={b}>
            {subjects.get(b) ?? b}{' '}
            <button type="button" aria-label={`Remove blocker ${subjects.get(b) ?? b}`} onClick={() => void send({ removeBlockedBy: [b] })}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form
        className="edit-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (blocker) void send({ addBlockedBy: [blocker] }).then((ok) => ok && setBlocker(''));
        }}
      >
        <label>
          Add a blocker{' '}
          <select value={blocker} onChange={(e) => setBlocker(e.target.value)} required>
            <option value="">Pick a task…</option>
            {candidates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.ref ? `${t.ref} ` : ''}
                {t.subject}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit" disabled={writer.pending}>
          Add blocker
        </button>
      </form>
      <p className="actions danger">
        {confirmDelete ? (
          <>
            Delete “{task.subject}”? Agents see it gone.{' '}
            <button type="button" onClick={() => void send({ status: 'deleted' }).then((ok) => ok && onClose())}>
              Delete for good
            </button>{' '}
            <button type="button" onClick={() => setConfirmDelete(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirmDelete(true)}>
            Delete task
          </button>
        )}
      </p>
    </section>
  );
}
