// The task panel: a task's fields, blockers and dependants, a person's editing, metadata, and its history (who, when,
// field from → to).
import type { TaskGraph } from '@agent-tasks/schema';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { ErrorMessage } from '../components/error-message.tsx';
import { TimeAgo } from '../components/time-ago.tsx';
import { useTRPC } from '../lib/api.ts';
import { useSubjects } from '../lib/task-subjects.ts';
import { TaskEditor } from './task-editor.tsx';

const show = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

export function TaskPanel({ graph, id, onClose }: { graph: TaskGraph; id: string; onClose: () => void }) {
  const trpc = useTRPC();
  const task = graph.tasks.find((t) => t.id === id);
  const subjects = useSubjects(graph);
  const history = useQuery(trpc.tasks.history.queryOptions({ listName: graph.listName, id }));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [id]);

  if (!task) return null;
  const names = (ids: string[]) => (ids.length === 0 ? '—' : ids.map((b) => subjects.get(b) ?? b).join(', '));
  return (
    <aside className="task-panel" aria-labelledby="task-panel-title" onKeyDown={(e) => e.key === 'Escape' && onClose()}>
      <header>
        <h2 id="task-panel-title" tabIndex={-1} ref={heading}>
          {task.subject}
        </h2>
        <button type="button" onClick={onClose} aria-label="Close the task panel">
          Close
        </button>
      </header>
      <dl className="facts stacked">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{task.id}</code>
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>
            {task.status.replace('_', ' ')}
            {task.ready ? ' · ready' : ''}
          </dd>
        </div>
        <div>
          <dt>Owner</dt>
          <dd>{task.owner ?? '—'}</dd>
        </div>
        {task.activeForm ? (
          <div>
            <dt>Active form</dt>
            <dd>{task.activeForm}</dd>
          </div>
        ) : null}
        <div>
          <dt>Blocked by (open)</dt>
          <dd data-testid="blockers">{names(task.unresolvedBlockers)}</dd>
        </div>
        <div>
          <dt>Blocked by (all)</dt>
          <dd>{names(task.blockedBy)}</dd>
        </div>
        <div>
          <dt>Blocks</dt>
          <dd>{names(task.blocks)}</dd>
        </div>
        <div>
          <dt>Created by</dt>
          <dd>
            <code>{task.threadID}</code>
          </dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{task.version}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <TimeAgo iso={task.updatedAt} />
          </dd>
        </div>
      </dl>
      {task.description ? <p className="description">{task.description}</p> : null}
      <TaskEditor graph={graph} task={task} onClose={onClose} />
      <h3>Metadata</h3>
      {Object.keys(task.metadata).length === 0 ? <p className="none">None</p> : <pre>{JSON.stringify(task.metadata, null, 2)}</pre>}
      <h3>History</h3>
      <ErrorMessage error={history.error} />
      <ol className="history">
        {history.data?.changes.map((c) => (
          <li key={c.seq}>
            <p>
              <strong>{c.kind}</strong> by{' '}
              {c.by.sessionId ? (
                <code>{c.by.sessionId}</code>
              ) : (
                <>
                  key <strong className="by-key">{c.by.keyName ?? c.by.keyId}</strong>
                </>
              )}
              , <TimeAgo iso={c.at} />
            </p>
            <ul>
              {Object.entries(c.changes).map(([field, change]) => (
                <li key={field}>
                  <code>{field}</code>: {show(change.from)} → {show(change.to)}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </aside>
  );
}
