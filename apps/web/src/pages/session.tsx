// Session: the current list grouped Pending / In progress / Completed, the standing plan and turn, and the update
// cards newest first (paged), kept live through todos.watch without a reload.
import type { SessionView, TodoCard as Card } from '@agent-tasks/schema';
import { type InfiniteData, useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useCallback, useState } from 'react';
import { Link } from 'wouter';
import { ErrorMessage } from '../components/error-message.tsx';
import { TimeAgo } from '../components/time-ago.tsx';
import { trpcClient, useTRPC } from '../lib/api.ts';
import { useLiveStatus } from '../lib/live.ts';
import { statusMark } from '../lib/todo-groups.ts';
import { TodoCard, TodoGroups } from './todo-card.tsx';

const PAGE = 100;
type Page = { cards: Card[]; nextBefore: number | null };

export function SessionPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const viewQuery = trpc.sessions.get.queryOptions({ sessionId: id });
  const view = useQuery(viewQuery);
  const cardsKey = ['session-cards', id];
  const cards = useInfiniteQuery({
    queryKey: cardsKey,
    queryFn: ({ pageParam }) => trpcClient.todos.history.query({ sessionId: id, limit: PAGE, ...(pageParam ? { before: pageParam } : {}) }),
    initialPageParam: 0,
    getNextPageParam: (last: Page) => last.nextBefore ?? undefined,
  });

  // The feed starts after the revision the page first loaded; tRPC resumes after the last event on a reconnect.
  const [since, setSince] = useState<string | null>(null);
  if (since === null && view.data) setSince(String(view.data.todo.revision));

  const onCard = useCallback(
    ({ data: card }: { data: Card }) => {
      queryClient.setQueryData<SessionView>(viewQuery.queryKey, (old) =>
        old && card.revision > old.todo.revision
          ? {
              ...old,
              todo: {
                sessionId: card.sessionId,
                revision: card.revision,
                items: card.items,
                counts: card.counts,
                updatedAt: card.createdAt,
              },
            }
          : old,
      );
      queryClient.setQueryData<InfiniteData<Page, number>>(cardsKey, (old) => {
        if (!old) return old;
        const [first, ...rest] = old.pages;
        if (!first || first.cards.some((c) => c.revision >= card.revision)) return old;
        return { ...old, pages: [{ ...first, cards: [card, ...first.cards] }, ...rest] };
      });
      // The standing plan follows turns as well as updates: read it again.
      void queryClient.invalidateQueries({ queryKey: viewQuery.queryKey });
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [queryClient, id],
  );
  const refetch = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: viewQuery.queryKey });
  }, [queryClient, viewQuery.queryKey]);
  const subscription = useSubscription(
    trpc.todos.watch.subscriptionOptions({ sessionId: id, lastEventId: since ?? '0' }, { enabled: since !== null, onData: onCard }),
  );
  useLiveStatus(subscription, refetch);

  if (view.error) return <ErrorMessage error={view.error} />;
  if (!view.data) return <p aria-busy="true">Loading the session…</p>;
  const { session, todo, standingPlan } = view.data;
  const allCards = cards.data?.pages.flatMap((p) => p.cards) ?? [];
  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href="/">Sessions</Link> › {session.title ?? 'Untitled session'}
      </nav>
      <h1>{session.title ?? 'Untitled session'}</h1>
      <dl className="facts">
        <div>
          <dt>Agent</dt>
          <dd>{session.agentName}</dd>
        </div>
        <div>
          <dt>Turn</dt>
          <dd data-testid="turn">{session.turn.state === 'none' ? 'not started' : `${session.turn.number} (${session.turn.state})`}</dd>
        </div>
        {session.parentId ? (
          <div>
            <dt>Subagent of</dt>
            <dd>
              <Link href={`/sessions/${session.parentId}`}>{session.parentId}</Link>
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Last update</dt>
          <dd>{todo.updatedAt ? <TimeAgo iso={todo.updatedAt} /> : 'none yet'}</dd>
        </div>
      </dl>

      <section aria-labelledby="current-list" className="panel">
        <h2 id="current-list">
          Current list <span className="meta">revision {todo.revision}</span>
        </h2>
        {todo.items.length === 0 ? (
          <p className="empty-inline">No list yet: the agent's first todo_write shows here the moment it is recorded.</p>
        ) : (
          <TodoGroups items={todo.items} />
        )}
      </section>

      <section aria-labelledby="plan" className="panel">
        <h2 id="plan">Standing plan</h2>
        {standingPlan ? (
          <>
            <p className="meta">Recorded in turn {standingPlan.turnNumber}; it clears when the next turn starts.</p>
            <ol className="plan">
              {standingPlan.items.map((item, i) => (
                // A mirrored list may repeat a text: the position keeps each item its own.
                <li key={`${i}:${item.content}`} data-status={item.status}>
                  <span className="mark" aria-hidden="true">
                    {statusMark[item.status]}
                  </span>{' '}
                  {item.content}
                </li>
              ))}
            </ol>
          </>
        ) : (
          <p className="none">No plan in the current turn.</p>
        )}
      </section>

      <section aria-labelledby="updates">
        <h2 id="updates">Updates, newest first</h2>
        <ErrorMessage error={cards.error} />
        {allCards.length === 0 && !cards.isPending ? <p className="none">No updates yet.</p> : null}
        <ol className="cards" reversed>
          {allCards.map((card) => (
            <li key={card.revision}>
              <TodoCard card={card} />
            </li>
          ))}
        </ol>
        {cards.hasNextPage ? (
          <button type="button" onClick={() => void cards.fetchNextPage()} disabled={cards.isFetchingNextPage}>
            {cards.isFetchingNextPage ? 'Loading…' : `Load older updates (${allCards.length} of ${todo.revision} shown)`}
          </button>
        ) : null}
      </section>
    </>
  );
}
