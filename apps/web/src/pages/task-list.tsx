// One task list: a filtered, virtualised table, the board or the dependency graph (loaded on demand), and a task panel;
// live. A person's key creates tasks inline.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { ErrorMessage } from '../components/error-message.tsx';
import { useTRPC } from '../lib/api.ts';
import { useLiveStatus } from '../lib/live.ts';
import { useRole, writesTasks } from '../lib/permissions.ts';
import { TaskBoard } from './task-board.tsx';
import { TaskCreateForm } from './task-create-form.tsx';
import { ReadOnlyNote } from './task-editor.tsx';
import { TaskPanel } from './task-panel.tsx';
import { TaskTable } from './task-table.tsx';

type GraphView = (typeof import('./task-graph-view.tsx'))['default'];
let graphView: Promise<GraphView> | null = null;
/** The graph view's code (with the layout library), fetched once, when first wanted. */
const loadGraphView = () => (graphView ??= import('./task-graph-view.tsx').then((m) => m.default));

/**
 * The graph view once its code is in. Loaded by hand rather than through lazy() and Suspense, whose reveal React
 * holds back for a moment: the graph shows as soon as both its code and its data are there.
 */
function useGraphView(wanted: boolean) {
  const [view, setView] = useState<{ Component: GraphView } | null>(null);
  useEffect(() => {
    if (!wanted || view) return;
    let live = true;
    void loadGraphView().then((Component) => live && setView({ Component }));
    return () => {
      live = false;
    };
  }, [wanted, view]);
  return view?.Component ?? null;
}

export type View = 'table' | 'board' | 'graph';
const views: View[] = ['table', 'board', 'graph'];

export function TaskListPage({ listName }: { listName: string }) {
  const name = decodeURIComponent(listName);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const graphQuery = trpc.dashboard.taskGraph.queryOptions({ listName: name });
  const graph = useQuery(graphQuery);
  const [view, setView] = useState<View>(() => {
    const asked = new URLSearchParams(window.location.search).get('view');
    return views.find((v) => v === asked) ?? 'table';
  });
  const role = useRole();
  const [selected, setSelected] = useState<string | null>(null);
  // The graph view's code loads alongside the data, not after it.
  const TaskGraphView = useGraphView(view === 'graph');

  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const refresh = useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void queryClient.invalidateQueries({ queryKey: graphQuery.queryKey });
      void queryClient.invalidateQueries({ queryKey: trpc.tasks.history.queryKey() });
    }, 200);
  }, [queryClient, graphQuery.queryKey, trpc]);
  // Changes after the graph as first loaded; tRPC resumes after the last event on a reconnect.
  const [since, setSince] = useState<string | null>(null);
  if (since === null && graph.data) setSince(String(graph.data.lastChangeSeq));
  const subscription = useSubscription(
    trpc.tasks.watch.subscriptionOptions({ listName: name, lastEventId: since ?? '0' }, { enabled: since !== null, onData: refresh }),
  );
  useLiveStatus(subscription, refresh);

  const choose = (next: View) => {
    setView(next);
    const url = new URL(window.location.href);
    url.searchParams.set('view', next);
    window.history.replaceState(null, '', url);
  };

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href="/tasks">Task lists</Link> › {name}
      </nav>
      <h1>Tasks: {name}</h1>
      <div className="tabs" role="group" aria-label="View">
        <button type="button" aria-pressed={view === 'table'} onClick={() => choose('table')}>
          Table
        </button>
        <button type="button" aria-pressed={view === 'board'} onClick={() => choose('board')}>
          Board
        </button>
        <button type="button" aria-pressed={view === 'graph'} onClick={() => choose('graph')}>
          Graph
        </button>
      </div>
      {writesTasks(role) ? <TaskCreateForm listName={name} /> : null}
      <ErrorMessage error={graph.error} />
      {graph.isPending ? <p aria-busy="true">Loading the tasks…</p> : null}
      {graph.data && graph.data.tasks.length === 0 ? (
        <div className="empty-inline">
          <p>
            No tasks in this list yet: an agent's TaskCreate shows here live
            {writesTasks(role) ? ', and the one you add above too.' : '.'}
          </p>
          {role && !writesTasks(role) ? <ReadOnlyNote role={role} /> : null}
        </div>
      ) : null}
      {graph.data && graph.data.tasks.length > 0 ? (
        <div className={selected ? 'with-panel' : undefined}>
          <div className="task-view">
            {view === 'table' ? (
              <TaskTable graph={graph.data} onOpen={setSelected} selected={selected} />
            ) : view === 'board' ? (
              <TaskBoard graph={graph.data} onOpen={setSelected} selected={selected} />
            ) : TaskGraphView ? (
              <TaskGraphView graph={graph.data} onOpen={setSelected} selected={selected} />
            ) : (
              <p aria-busy="true">Loading the graph…</p>
            )}
          </div>
          {selected ? <TaskPanel graph={graph.data} id={selected} onClose={() => setSelected(null)} /> : null}
        </div>
      ) : null}
    </>
  );
}
