// Runs: the workspace's checklist runs, newest first, each linking to its run page.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ErrorMessage } from '../components/error-message.tsx';
import { TimeAgo } from '../components/time-ago.tsx';
import { useTRPC } from '../lib/api.ts';
import { GridTable } from '../components/grid-table.tsx';
import { RoleHint } from '../components/role-hint.tsx';
import { useRole } from '../lib/permissions.ts';

export function RunsPage() {
  const trpc = useTRPC();
  const runs = useQuery(trpc.runs.list.queryOptions({}));
  const role = useRole();
  return (
    <>
      <h1>Checklist runs</h1>
      <ErrorMessage error={runs.error} />
      {runs.isPending ? <p aria-busy="true">Loading…</p> : null}
      {runs.data?.runs.length === 0 ? (
        <section className="empty">
          <h2>No runs yet</h2>
          <p>
            An agent starts one with <code>checklist_prepare</code> then <code>checklist_execute</code> (or <code>client.runs.prepare</code>{' '}
            / <code>execute</code> in the SDK) and walks it task by task.
          </p>
          <RoleHint role={role} place="runs" />
        </section>
      ) : null}
      {runs.data && runs.data.runs.length > 0 ? (
        <GridTable caption="Checklist runs" columns={['Run', 'Progress', 'Status', 'Updated']}>
          {runs.data.runs.map((r) => (
            <tr key={r.id}>
              <th scope="row">
                <Link href={`/runs/${r.id}`}>{r.name ?? `Run ${r.id}`}</Link>
              </th>
              <td>{r.blocks.work.label}</td>
              <td>{r.status}</td>
              <td>
                <TimeAgo iso={r.updatedAt} />
              </td>
            </tr>
          ))}
        </GridTable>
      ) : null}
    </>
  );
}
