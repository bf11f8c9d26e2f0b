// The task table: filters by status, owner, priority, label and readiness; rows virtualised so a thousand tasks scroll smoothly.
import { LeaseCountdown, VerdictBadge } from '../components/trust-badges.tsx';
import type { Priority, TaskGraph, TaskStatus } from '@agent-tasks/schema';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { useSubjects } from '../lib/task-subjects.ts';
import { GridTable } from '../components/grid-table.tsx';

const ROW = 41;
const priorities: Priority[] = ['P0', 'P1', 'P2', 'P3', 'P4'];
const statuses: (TaskStatus | 'all')[] = ['all', 'pending', 'in_progress', 'completed'];

export function TaskTable({ graph, onOpen, selected }: { graph: TaskGraph; onOpen: (id: string) => void; selected: string | null }) {
  const [status, setStatus] = useState<TaskStatus | 'all'>('all');
  const [owner, setOwner] = useState<string>('');
  const [readyOnly, setReadyOnly] = useState(false);
  const [priority, setPriority] = useState<string>('');
  const [label, setLabel] = useState<string>('');
  const labels = useMemo(() => [...new Set(graph.tasks.flatMap((t) => t.labels ?? []))].sort(), [graph]);
  const subjects = useSubjects(graph);
  const owners = useMemo(() => [...new Set(graph.tasks.flatMap((t) => (t.owner ? [t.owner] : [])))].sort(), [graph]);
  const critical = useMemo(() => new Set(graph.criticalPath), [graph]);
  const rows = useMemo(
    () =>
      graph.tasks.filter(
        (t) =>
          (status === 'all' || t.status === status) &&
          (owner === '' || (owner === '(none)' ? !t.owner : t.owner === owner)) &&
          (!readyOnly || t.ready) &&
          (priority === '' || (priority === '(none)' ? !t.priority : t.priority === priority)) &&
          (label === '' || (t.labels ?? []).includes(label)),
      ),
    [graph, status, owner, readyOnly, priority, label],
  );
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 12 });
  const items = virtual.getVirtualItems();
  const top = items[0]?.start ?? 0;
  const bottom = virtual.getTotalSize() - (items.at(-1)?.end ?? 0);

  return (
    <>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value as TaskStatus | 'all')}>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s === 'all' ? 'all' : s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Owner{' '}
          <select value={owner} onChange={(e) => setOwner(e.target.value)}>
            <option value="">anyone</option>
            <option value="(none)">no owner</option>
            {owners.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        </label>
        <label>
          Priority{' '}
          <select value={priority} onChange={(e) => setPriority(e.target.value)}>
            <option value="">any</option>
            {priorities.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
            <option value="(none)">none</option>
          </select>
        </label>
        <label>
          Label{' '}
          <select value={label} onChange={(e) => setLabel(e.target.value)}>
            <option value="">any</option>
            {labels.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={readyOnly} onChange={(e) => setReadyOnly(e.target.checked)} /> Ready only
        </label>
        <output aria-live="polite">
          {rows.length} of {graph.tasks.length} tasks
        </output>
      </form>
      <div className="table-scroll" ref={scroller} tabIndex={-1}>
        <GridTable
          caption={<>Tasks of {graph.listName}</>}
          columns={['Task', 'Status', 'Owner', 'Priority', 'Ready', 'Blocked by']}
          className="grid tasks"
          aria-rowcount={rows.length + 1}
        >
          {top > 0 ? (
            <tr aria-hidden="true" style={{ height: top }}>
              <td colSpan={6} />
            </tr>
          ) : null}
          {items.map((item) => {
            const t = rows[item.index];
            if (!t) return null;
            return (
              <tr
                key={t.id}
                aria-rowindex={item.index + 2}
                data-status={t.status}
                className={`${t.id === selected ? 'selected' : ''} ${critical.has(t.id) ? 'critical' : ''}`}
                style={{ height: ROW }}
              >
                <th scope="row">
                  <button type="button" className="link" onClick={() => onOpen(t.id)} title={t.id}>
                    {t.subject}
                  </button>
                </th>
                <td>
                  <span className={`status status-${t.status}`}>{t.status.replace('_', ' ')}</span>
                  <VerdictBadge verdict={t.verdict} />
                  <LeaseCountdown lease={t.lease} />
                </td>
                <td>{t.owner ?? '—'}</td>
                <td>{t.priority ?? ''}</td>
                <td>{t.ready ? <span className="ready">ready</span> : ''}</td>
                <td>{t.unresolvedBlockers.map((b) => subjects.get(b) ?? b).join(', ') || '—'}</td>
              </tr>
            );
          })}
          {bottom > 0 ? (
            <tr aria-hidden="true" style={{ height: bottom }}>
              <td colSpan={6} />
            </tr>
          ) : null}
        </GridTable>
      </div>
    </>
  );
}
