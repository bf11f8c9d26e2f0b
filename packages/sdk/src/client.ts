// The typed client for agent runtimes and dashboards: createClient({ url, token }) with one method per procedure, named
// as on the wire (`client.tasks.create(input)` is `tasks.create`), built from the router's procedures.
import { type TRPCClient, createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { EventSource } from 'eventsource';
import { procedures } from './procedures.ts';
import type { AppRouter, RouterInputs } from './router-types.ts';
import { ticketStreamLink } from './stream-link.ts';

export interface ClientOptions {
  /** Base URL of the server, e.g. http://127.0.0.1:3000 */
  url: string;
  /** An API key (atk_…) or a session token (ats_…). */
  token: string;
  /**
   * How live streams (SSE) authenticate. `header` (the default): the `eventsource` package sends the token as an
   * Authorization header. `ticket`: for an EventSource that cannot send headers (a browser's own), each stream first
   * trades the token (sent as a header) for a single-use ticket from `auth.streamTicket` and opens with that; a token
   * never travels in a URL either way.
   */
  streams?: 'header' | 'ticket';
  /** The EventSource used with `streams: 'ticket'` (default: the global one, else the `eventsource` package's). */
  EventSource?: typeof globalThis.EventSource;
}

export interface Subscription {
  unsubscribe(): void;
}

export interface WatchHandlers<T> {
  onData(event: { id: string; data: T }): void;
  onError?(error: unknown): void;
  onStarted?(): void;
  /** The server ended the stream (its key was revoked, its session ended, or its run link was revoked). */
  onComplete?(): void;
}

/** A subscription as a method: its input and the caller's handlers; the events are the stream's tracked data. */
type Watch<S extends (...args: never[]) => unknown> = (
  input: Parameters<S>[0],
  handlers: WatchHandlers<ReturnType<S> extends AsyncIterable<{ data: infer T }> ? T : never>,
) => Subscription;

/** The tRPC client's procedures as methods: a query or mutation is called with its input, a subscription watched. */
export type Methods<C> = {
  [K in keyof C as K extends string ? K : never]: C[K] extends { query: infer F }
    ? F
    : C[K] extends { mutate: infer F }
      ? F
      : C[K] extends { subscribe: infer S extends (...args: never[]) => unknown }
        ? Watch<S>
        : Methods<C[K]>;
};

type Kinds = { readonly [name: string]: string | Kinds };

/** The caller's handlers as a tRPC subscription's callbacks (all but onData optional). */
const relay = <T>(handlers: WatchHandlers<T>) => ({
  onData: (event: { id: string; data: T }) => handlers.onData(event),
  onError: (error: unknown) => handlers.onError?.(error),
  onStarted: () => handlers.onStarted?.(),
  onComplete: () => handlers.onComplete?.(),
});

/** One method per procedure of `kinds`, each calling the tRPC client's procedure of the same path. */
function methodsOf(kinds: Kinds, calls: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(kinds).map(([name, kind]): [string, unknown] => {
      const call = calls[name] as Record<string, (input: unknown, options?: unknown) => unknown>;
      if (typeof kind !== 'string') return [name, methodsOf(kind, call)];
      if (kind === 'subscription')
        return [name, (input: unknown, handlers: WatchHandlers<unknown>) => call.subscribe?.(input, relay(handlers))];
      const verb = kind === 'query' ? 'query' : 'mutate';
      return [name, (input: unknown, options?: unknown) => call[verb]?.(input, options)];
    }),
  );
}

/** A client: a method per procedure, plus its base URL, how its streams authenticate and the tRPC client underneath. */
export type AgentTasksClient = Methods<TRPCClient<AppRouter>> & {
  url: string;
  /** How this client's live streams authenticate (kept by the session clients it opens). */
  streams: 'header' | 'ticket';
  trpc: TRPCClient<AppRouter>;
};

export function createClient({ url, token, streams = 'header', ...options }: ClientOptions): AgentTasksClient {
  const base = `${url.replace(/\/+$/, '')}/trpc`;
  const authorization = `Bearer ${token}`;
  const calls = httpLink({ url: base, headers: () => ({ authorization }) });
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true:
          streams === 'ticket'
            ? ticketStreamLink({ url: base, calls, EventSource: options.EventSource ?? globalThis.EventSource ?? EventSource })
            : httpSubscriptionLink({
                url: base,
                EventSource,
                // EventSource sends no headers of its own; this one's fetch adds the bearer token.
                eventSourceOptions: () => ({
                  fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization } }),
                }),
              }),
        false: calls,
      }),
    ],
  });
  const methods = methodsOf(procedures, trpc) as Methods<TRPCClient<AppRouter>>;
  return { ...methods, url, streams, trpc };
}

/** Opens a session with this client's key and returns a client acting as that session. */
export async function openSessionClient(client: AgentTasksClient, input: RouterInputs['sessions']['open'] = {}) {
  const opened = await client.sessions.open(input);
  return { ...opened, client: createClient({ url: client.url, token: opened.token, streams: client.streams }) };
}
