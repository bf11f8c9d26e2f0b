// The run page: seed 002's card in HTML — Checklist → Prepare → Work, `Task N/M`, the complete current action, time per
// task, moves, remarks, blocker — live through runs.watch (or the link's feed without a key); evidence in a history
// panel for signed-in readers.
import type { RunEvent, RunView } from '@agent-tasks/schema';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useCallback, useState } from 'react';
import { Link } from 'wouter';
import { ErrorMessage } from '../components/error-message.tsx';
import { RunNoteForm } from '../components/run-note-form.tsx';
import { TimeAgo, duration } from '../components/time-ago.tsx';
import { useTRPC } from '../lib/api.ts';
import { useKey } from '../lib/auth.ts';
import { useLiveStatus } from '../lib/live.ts';
import { RunLinkMissing } from './run-link-missing.tsx';

const mark = { done: '✓', in_progress: '▶', pending: '○' } as const;

/** A live status for a page that follows nothing. */
const notWatching = { status: 'idle', reset: () => undefined, error: null } as const;

/** A run link whose run does not exist or was revoked (the link answers 404 either way). */
class RunMissing extends Error {}

/** The run as its link answers it (JSON to an API client), with no key: the link is the capability. */
async function fetchRun(id: string): Promise<RunView> {
  const response = await fetch(`/runs/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' } });
  if (response.status === 404) throw new RunMissing(`run ${id} not found.`);
  if (!response.ok) throw new Error(`the server answered ${response.status}.`);
  return (await response.json()) as RunView;
}

export function RunPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const key = useKey();
  const runKey = ['run-link', id];
  const initial = useQuery({ queryKey: runKey, queryFn: () => fetchRun(id), retry: false });
  const [live, setLive] = useState<RunView | null>(null);
  const historyQuery = trpc.runs.history.queryOptions({ runId: id });
  const history = useQuery({ ...historyQuery, enabled: key !== null });
  const onEvent = useCallback(
    ({ data }: { data: RunEvent }) => {
      setLive((old) => (old && old.version >= data.version ? old : data.run));
      void queryClient.invalidateQueries({ queryKey: historyQuery.queryKey });
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [queryClient, id],
  );
  /** A note the person left: the run as runs.note answered it, and the history with its note step. */
  const onNoted = (noted: RunView) => {
    setLive((old) => (old && old.version >= noted.version ? old : noted));
    void queryClient.invalidateQueries({ queryKey: historyQuery.queryKey });
  };
  // Signed in: the workspace's own feed (runs.watch); with only the link: the link's feed, by the same capability.
  // A link that leads to no run has nothing to follow.
  const missing = initial.error instanceof RunMissing;
  // A feed the server ended or refused may mean the link was revoked or the run is gone (the link's feed ends on a
  // revocation and is refused as not found after it): the link is asked again, and its 404 shows the page for a link
  // to no run, rather than the run as it was beside a feed that cannot come back.
  const { refetch } = initial;
  const recheck = {
    onError: () => void refetch(),
    onConnectionStateChange: ({ state }: { state: string }) => void (state === 'idle' && refetch()),
  };
  const signedIn = useSubscription(
    trpc.runs.watch.subscriptionOptions({ runId: id }, { enabled: key !== null && !missing, onData: onEvent, ...recheck }),
  );
  const byLink = useSubscription(
    trpc.dashboard.watchRunLink.subscriptionOptions({ runId: id }, { enabled: key === null && !missing, onData: onEvent, ...recheck }),
  );
  // (tRPC leaves a feed turned off in its last state, so a link to no run reports itself idle.)
  useLiveStatus(missing ? notWatching : key !== null ? signedIn : byLink);

  const run = live && (!initial.data || live.version >= initial.data.version) ? live : initial.data;
  // Missing wins over a run seen before: the link was revoked or the run removed while the page showed it.
  if (missing) return <RunLinkMissing id={id} signedIn={key !== null} />;
  if (!run) return initial.error ? <ErrorMessage error={initial.error} /> : <p aria-busy="true">Loading the run…</p>;
  const { checklist, prepare, work } = run.blocks;
  return (
    <article className="run" aria-labelledby="run-title">
      {key ? (
        <nav aria-label="Breadcrumb" className="crumbs">
          <Link href="/runs">Runs</Link> › {run.name ?? run.id}
        </nav>
      ) : null}
      <header className="run-head">
        <p className="flow">{run.flow}</p>
        <h1 id="run-title">{run.name ?? 'Checklist intake'}</h1>
        <p className="meta">
          <span className={`status status-${run.status}`}>{run.status}</span> · updated <TimeAgo iso={run.updatedAt} /> ·{' '}
          <a href={`/runs/${encodeURIComponent(run.id)}/card.svg`}>card.svg</a>
          {run.parentRunId ? (
            <>
              {' '}
              · child of <a href={`/runs/${encodeURIComponent(run.parentRunId)}`}>{run.parentRunId}</a>
            </>
          ) : null}
        </p>
        {run.executionNote ? <p className="note">{run.executionNote}</p> : null}
      </header>

      {run.blocker ? (
        <p className="blocker" role="status">
          <strong>Blocked:</strong> {run.blocker}
        </p>
      ) : null}

      <ol className="blocks" aria-label="Checklist → Prepare → Work">
        <li className="block">
          <h2>Checklist</h2>
          <p>{checklist.synopsis || '—'}</p>
          <ol className="checklist">
            {run.tasks.map((t, i) => (
              <li key={`${i}-${t.action}`} aria-current={i + 1 === work.inProgress ? 'step' : undefined}>
                {t.action}
              </li>
            ))}
          </ol>
          {run.moves.length > 0 ? (
            <>
              <h3>Order changed</h3>
              <ul className="moves">
                {run.moves.map((m) => (
                  <li key={`${m.task}-${m.from}-${m.to}`}>
                    Written task {m.task} moved from position {m.from} to {m.to}: {m.because}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {run.remarks.length > 0 ? (
            <>
              <h3>Remarks</h3>
              <ul className="remarks">
                {run.remarks.map((r) => (
                  <li key={r.text}>
                    {r.text} <span className="meta">(tasks {r.tasks.join(', ')})</span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </li>
        <li className="block">
          <h2>Prepare</h2>
          <dl className="facts stacked">
            <div>
              <dt>Length</dt>
              <dd>{prepare.length}</dd>
            </div>
            <div>
              <dt>Cursor</dt>
              <dd>{prepare.cursor}</dd>
            </div>
            <div>
              <dt>Expected result</dt>
              <dd className="full">{prepare.expected_result ?? '—'}</dd>
            </div>
          </dl>
        </li>
        <li className="block work">
          <h2>Work</h2>
          <p className="label" data-testid="work-label">
            {work.label}
          </p>
          {run.current ? (
            <p className="current full" data-testid="current-action">
              {run.current.action}
            </p>
          ) : null}
          <p className="meta">
            {work.done} of {work.total_tasks} done{work.synopsis ? ` · ${work.synopsis}` : ''}
          </p>
          <ol className="work-tasks">
            {work.tasks.map((t, i) => (
              <li key={`${i}-${t.title}`} data-state={t.state}>
                <span className="mark" aria-hidden="true">
                  {mark[t.state]}
                </span>{' '}
                <span className="title">{t.title}</span>
                <span className="meta">
                  {' '}
                  · {t.state.replace('_', ' ')} · {duration(t.timeMs)}
                  {t.outcome && t.outcome !== 'Pending' ? ` · ${t.outcome}` : ''}
                </span>
                {t.remarks.length > 0 ? <span className="meta"> · remark: {t.remarks.join('; ')}</span> : null}
                {t.notes?.length ? (
                  <ul className="run-notes" aria-label={`Notes on ${t.title}`}>
                    {t.notes.map((n, j) => (
                      <li key={j}>Note from {n}</li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ol>
          {run.output ? <p className="done">All tasks done.</p> : null}
          {key ? <RunNoteForm run={run} onNoted={onNoted} /> : null}
        </li>
      </ol>

      <section aria-labelledby="run-history" className="panel">
        <h2 id="run-history">History and evidence</h2>
        {key ? (
          <>
            <ErrorMessage error={history.error} />
            <ol className="history">
              {history.data?.steps.map((s) => (
                <li key={s.seq}>
                  <p>
                    <strong>{s.label}</strong> · <TimeAgo iso={s.at} />
                  </p>
                  {s.evidence ? <p className="full">Evidence: {s.evidence}</p> : null}
                  {s.outcome ? <p className="full">Outcome: {s.outcome}</p> : null}
                </li>
              ))}
            </ol>
          </>
        ) : (
          <p>
            <Link href="/">Sign in</Link> with a key of this workspace to see each step's evidence.
          </p>
        )}
      </section>
    </article>
  );
}
