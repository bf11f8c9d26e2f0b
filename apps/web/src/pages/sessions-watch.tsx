// Keeps the session tree fresh while signed in: each session signal (or a reconnect) refetches it, at most every 250 ms.
import { useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useCallback, useRef } from 'react';
import { useTRPC } from '../lib/api.ts';
import { useLiveStatus } from '../lib/live.ts';

export function SessionsWatch() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const refresh = useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void queryClient.invalidateQueries({ queryKey: trpc.dashboard.sessionTree.queryKey() });
    }, 250);
  }, [queryClient, trpc]);
  const subscription = useSubscription(trpc.dashboard.watchSessions.subscriptionOptions({}, { onData: refresh }));
  useLiveStatus(subscription, refresh);
  return null;
}
