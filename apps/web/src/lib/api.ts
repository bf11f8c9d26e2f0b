// The tRPC client for the dashboard: queries over HTTP with the key as a bearer header, live feeds over SSE (header too).
import type { AppRouter } from '@agent-tasks/server/router';
import { QueryClient } from '@tanstack/react-query';
import { TRPCClientError, createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { EventSource } from 'eventsource';
import { readKey } from './key-store.ts';

const url = '/trpc';
const authorization = (): Record<string, string> => {
  const key = readKey();
  return key ? { authorization: `Bearer ${key}` } : {};
};

export const trpcClient = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === 'subscription',
      // The browser's EventSource cannot send headers; this one's fetch adds the key, so it never travels in a URL.
      true: httpSubscriptionLink({
        url,
        EventSource,
        eventSourceOptions: () => ({
          fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...authorization() } }),
        }),
      }),
      // At most 10 calls a request: within any server's batch limit (AGENT_TASKS_MAX_BATCH is 10 or more).
      false: httpBatchLink({ url, headers: authorization, maxItems: 10 }),
    }),
  ],
});

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: false,
      // A refusal (forbidden, not found, bad key) will not change by asking again.
      retry: (count, error) => count < 2 && !(error instanceof TRPCClientError && error.data?.httpStatus && error.data.httpStatus < 500),
    },
  },
});

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

/** The server's own text for a refusal (e.g. "Error: forbidden: viewer keys are read-only …"), or a plain fallback. */
export function errorText(error: unknown): string {
  if (error instanceof TRPCClientError) return error.message;
  if (error instanceof Error) return `Error: ${error.message}`;
  return 'Error: something went wrong.';
}
