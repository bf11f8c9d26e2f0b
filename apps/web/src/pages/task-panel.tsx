// The task panel: a task's fields, blockers and dependants, evidence with its provenance, a person's editing, metadata,
// and its history (who, when, field from → to).
import type { Evidence, TaskGraph } from '@agent-tasks/schema';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { ErrorMessage } from '../components/error-message.tsx';
import { TaskComments } from '../components/task-comments.tsx';
import { TimeAgo } from '../components/time-ago.tsx';
import { LeaseCountdown, VerdictBadge } from '../components/trust-badges.tsx';
import { useTRPC } from '../lib/api.ts';
import { useSubjects } from '../lib/task-subjects.ts';
import { TaskEditor } from './task-editor.tsx';

const PROVENANCE: Record<Evidence['provenance'], string> = { agent: "agent's word", hook: 'hook saw it', ci: 'CI' };

/** One piece of evidence in words: the command and its exit code, the check and its conclusion, or the note. */
function evidenceText(e: Evidence) {
  if (e.kind === 'command') return `${e.command ?? ''} → exit ${e.exitCode ?? '?'}`;
  if (e.kind === 'check') return `${e.name ?? ''}: ${e.conclusion ?? ''}${e.commit ? ` @ ${e.commit.slice(0, 7)}` : ''}`;
  return e.text ?? '';
}

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
            <VerdictBadge verdict={task.verdict} />
            <LeaseCountdown lease={task.lease} />
          </dd>
        </div>
        <div>
          <dt>Owner</dt>
          <dd>{task.owner ?? '—'}</dd>
        </div>
        <div>
          <dt>Priority</dt>
          <dd data-testid="priority">{task.priority ?? '—'}</dd>
        </div>
        <div>
          <dt>Labels</dt>
          <dd data-testid="labels">{task.labels?.length ? task.labels.join(', ') : '—'}</dd>
        </div>
        {task.requires?.length ? (
          <div>
            <dt>Requires</dt>
            <dd>{task.requires.join(', ')}</dd>
          </div>
        ) : null}
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
      <h3>Evidence</h3>
      {task.evidence?.length ? (
        <ul className="evidence" aria-label="Evidence">
          {task.evidence.map((e, i) => (
            <li key={i} data-provenance={e.provenance}>
              <span className="provenance">{PROVENANCE[e.provenance]}</span> {e.success ? '✓' : '✗'} {evidenceText(e)} ·{' '}
              <TimeAgo iso={e.at} />
            </li>
          ))}
        </ul>
      ) : (
        <p className="none">None</p>
      )}
      <TaskEditor graph={graph} task={task} onClose={onClose} />
      <h3>Metadata</h3>
      {Object.keys(task.metadata).length === 0 ? <p className="none">None</p> : <pre>{JSON.stringify(task.metadata, null, 2)}</pre>}
      <TaskComments listName={graph.listName} id={id} />
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
