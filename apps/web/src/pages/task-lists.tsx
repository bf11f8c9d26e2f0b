// Task lists of the workspace, each with its counts; a link opens its table and graph.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ErrorMessage } from '../components/error-message.tsx';
import { useTRPC } from '../lib/api.ts';
import { GridTable } from '../components/grid-table.tsx';
import { useRole, writesTasks } from '../lib/permissions.ts';
import { ReadOnlyNote } from './task-editor.tsx';

export function TaskListsPage() {
  const trpc = useTRPC();
  const lists = useQuery(trpc.dashboard.taskLists.queryOptions());
  const role = useRole();
  return (
    <>
      <h1>Task lists</h1>
      <ErrorMessage error={lists.error} />
      {lists.isPending ? <p aria-busy="true">Loading…</p> : null}
      {lists.data?.lists.length === 0 ? (
        <section className="empty">
          <h2>No task lists yet</h2>
          <p>
            An agent creates tasks with <code>TaskCreate</code> (or <code>client.tasks.create</code> in the SDK); they are grouped in named
            lists, <code>default</code> unless a <code>listName</code> is given.
          </p>
          {writesTasks(role) ? (
            <p>
              With your {role} key you can plan too: <Link href="/tasks/default">start the default list</Link> by adding its first task.
            </p>
          ) : role ? (
            <ReadOnlyNote role={role} />
          ) : null}
        </section>
      ) : null}
      {lists.data && lists.data.lists.length > 0 ? (
        <GridTable caption="Task lists" columns={['List', 'Pending', 'In progress', 'Completed']}>
          {lists.data.lists.map((l) => (
            <tr key={l.name}>
              <th scope="row">
                <Link href={`/tasks/${encodeURIComponent(l.name)}`}>{l.name}</Link>
              </th>
              <td>{l.counts.pending}</td>
              <td>{l.counts.inProgress}</td>
              <td>{l.counts.completed}</td>
            </tr>
          ))}
        </GridTable>
      ) : null}
    </>
  );
}
