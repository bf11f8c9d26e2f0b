// Live feeds: tRPC subscriptions over SSE whose connection states feed one indicator; a reconnect runs a catch-up callback.
import { useSubscription } from '@trpc/tanstack-react-query';
import { useEffect, useId, useRef, useSyncExternalStore } from 'react';

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
 * Follows a subscription's status into the indicator. tRPC's SSE link reconnects by itself (resuming after the last
 * event id); `onReconnect` runs when a feed is back after a break, for views that refetch instead of resuming.
 */
export function useLiveStatus(subscription: Pick<SubscriptionResult, 'status' | 'reset'>, onReconnect?: () => void) {
  const id = useId();
  const wasDown = useRef(false);
  const wasLive = useRef(false);
  const failures = useRef(0);
  const state: LiveState =
    subscription.status === 'pending'
      ? 'live'
      : subscription.status === 'connecting'
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
  // A feed that ended in an error (the server restarted mid-request, say) is started again, backing off to 30 s.
  const { reset } = subscription;
  useEffect(() => {
    if (state === 'live') failures.current = 0;
    if (state !== 'offline') return;
    const delay = Math.min(30_000, 1_000 * 2 ** failures.current++);
    const timer = setTimeout(reset, delay);
    return () => clearTimeout(timer);
  }, [state, reset]);
}
