// The tRPC client for the dashboard: queries over HTTP with the key as a bearer header; live feeds over SSE with the
// browser's own EventSource, each opened with a single-use stream ticket traded for the key (sent as a header), so the
// key never travels in a URL (the SDK's ticket link).
import { ticketStreamLink } from '@agent-tasks/sdk/stream-link';
import type { AppRouter } from '@agent-tasks/server/router';
import { QueryClient } from '@tanstack/react-query';
import { TRPCClientError, createTRPCClient, httpBatchLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { readKey } from './key-store.ts';

const url = '/trpc';
const authorization = (): Record<string, string> => {
  const key = readKey();
  return key ? { authorization: `Bearer ${key}` } : {};
};

// At most 10 calls a request: within any server's batch limit (AGENT_TASKS_MAX_BATCH is 10 or more).
const calls = httpBatchLink({ url, headers: authorization, maxItems: 10 });

export const trpcClient = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === 'subscription',
      // The SDK's ticket link: a ticket for each stream when signed in; none for a run link opened without a key.
      true: ticketStreamLink({ url, calls, withTicket: () => readKey() !== null }),
      false: calls,
    }),
  ],
});

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: false,
      // A refusal (forbidden, not found, bad key) will not change by asking again.
      retry: (count, error) => {
        const status = error instanceof TRPCClientError ? (error as TRPCClientError<AppRouter>).data?.httpStatus : undefined;
        return count < 2 && !(status !== undefined && status < 500);
      },
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
