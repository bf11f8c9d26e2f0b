// The link for live streams through an EventSource that cannot send headers (a browser's own): each (re)connection
// first trades the token (sent as a header by `calls`) for a single-use ticket from `auth.streamTicket` and opens with
// it, so a token never travels in a URL. Used by `createClient({ streams: 'ticket' })` and by the dashboard.
import type { AnyTRPCRouter } from '@trpc/server';
import { type TRPCLink, createTRPCClient, httpSubscriptionLink } from '@trpc/client';
import type { AppRouter } from './router-types.ts';

export interface TicketStreamLinkOptions<TRouter extends AnyTRPCRouter> {
  /** The tRPC endpoint, e.g. `/trpc` or `http://127.0.0.1:3000/trpc`. */
  url: string;
  /** The link calls go through (it sends the token as a header): the tickets are asked for through it. */
  calls: TRPCLink<TRouter>;
  /** The EventSource to open streams with (default: the global one). */
  EventSource?: typeof globalThis.EventSource;
  /** Whether to ask for a ticket at all (a run link opened without a key streams without one). */
  withTicket?: () => boolean;
}

export function ticketStreamLink<TRouter extends AnyTRPCRouter>(options: TicketStreamLinkOptions<TRouter>): TRPCLink<TRouter> {
  const tickets = createTRPCClient<AppRouter>({ links: [options.calls] });
  const link: TRPCLink<AppRouter> = httpSubscriptionLink<AppRouter, typeof globalThis.EventSource>({
    url: options.url,
    ...(options.EventSource ? { EventSource: options.EventSource } : {}),
    // Asked again for every (re)connection: a ticket opens one stream.
    connectionParams: async (): Promise<Record<string, string>> =>
      (options.withTicket?.() ?? true) ? { ticket: (await tickets.auth.streamTicket.mutate()).ticket } : {},
  });
  // The same link whatever router type the caller names it by (the server's, or the SDK's view of it).
  return link;
}
