// Live feeds: tRPC subscriptions over SSE whose connection states feed one indicator; a reconnect runs a catch-up callback.
import { useSubscription } from '@trpc/tanstack-react-query';
import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';

export type LiveState = 'live' | 'connecting' | 'offline' | 'idle';

const states = new Map<string, LiveState>();
const listeners = new Set<() => void>();
let overall: LiveState = 'idle';

function recompute() {
  const all = [...states.values()];
  overall = all.length === 0 ? 'idle' : all.includes('offline') ? 'offline' : all.includes('connecting') ? 'connecting' : 'live';
  for (const listener of listeners) listener();
}

function report(id: string, state: LiveState | null) {
  if (state === null) states.delete(id);
  else states.set(id, state);
  recompute();
}

/** The worst state among the page's live feeds: what the connection indicator shows. */
export const useLiveState = () =>
  useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    () => overall,
    (): LiveState => 'idle',
  );

type SubscriptionResult = ReturnType<typeof useSubscription>;

/**
 * Refusals asking again will not change (the feed's run or link gone, its key without the right). Not UNAUTHORIZED:
 * a restarted server refuses the stream ticket the feed reconnects with, and a new one gets it back.
 */
const refusals: unknown[] = ['NOT_FOUND', 'FORBIDDEN'];
const refused = (error: unknown) => refusals.includes((error as { data?: { code?: unknown } } | null)?.data?.code);

/** How long a feed stays live before its backoff starts over: one that connects and drops at once keeps backing off. */
const steadyMs = 10_000;

/**
 * Follows a subscription's status into the indicator. tRPC's SSE link reconnects by itself (resuming after the last
 * event id); `onReconnect` runs when a feed is back after a break, for views that refetch instead of resuming.
 */
export function useLiveStatus(subscription: Pick<SubscriptionResult, 'status' | 'reset' | 'error'>, onReconnect?: () => void) {
  const id = useId();
  const wasDown = useRef(false);
  const wasLive = useRef(false);
  const failures = useRef(0);
  // A feed that was live and then ended (its stream closed with tRPC's `return`) is not idle: it is started again below,
  // and shows as connecting meanwhile. The same feed: `reset` changes when its input does or it is turned off.
  const liveReset = useRef<(() => void) | null>(null);
  if (subscription.status === 'pending') liveReset.current = subscription.reset;
  const ended = subscription.status === 'idle' && liveReset.current === subscription.reset;
  const state: LiveState =
    subscription.status === 'pending'
      ? 'live'
      : subscription.status === 'connecting' || ended
        ? 'connecting'
        : subscription.status === 'error'
          ? 'offline'
          : 'idle';
  useEffect(() => {
    report(id, state === 'idle' ? null : state);
    // A first connection is no reconnect: only a feed that was live, dropped and came back catches up.
    if (state === 'live' && wasDown.current) onReconnect?.();
    if ((state === 'connecting' || state === 'offline') && wasLive.current) wasDown.current = true;
    else if (state === 'live') {
      wasDown.current = false;
      wasLive.current = true;
    }
  }, [id, state, onReconnect]);
  useEffect(() => () => report(id, null), [id]);
  // A feed that ended in an error (the server restarted mid-request, say) or ended after being live is started again,
  // backing off to 5 s; one that dropped and stays "connecting" (its link retrying without getting through) is started
  // again after 10 s, backing off to 30 s. `tick` runs the check again when a restart left the state as it was.
  // A refusal is final: it stays offline (the page shows why, a run link leading to no run, say) and is not asked again.
  const { reset } = subscription;
  const final = subscription.status === 'error' && refused(subscription.error);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (state === 'live') {
      const steady = setTimeout(() => (failures.current = 0), steadyMs);
      return () => clearTimeout(steady);
    }
    const stalled = state === 'connecting' && wasLive.current && !ended;
    if (final || (state !== 'offline' && !ended && !stalled)) return;
    const delay = stalled ? Math.min(30_000, 10_000 * 2 ** failures.current) : Math.min(5_000, 500 * 2 ** failures.current);
    const timer = setTimeout(() => {
      failures.current++;
      reset();
      setTick((n) => n + 1);
    }, delay);
    return () => clearTimeout(timer);
  }, [state, ended, final, reset, tick]);
}
