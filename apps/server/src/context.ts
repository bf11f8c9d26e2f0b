// Request context: the inner part holds the dependencies; the adapter part reads the bearer token and request id from HTTP.
import type { Actor, Deps, ChannelSender } from '@agent-tasks/core';
import type { FetchCreateContextFnOptions } from '@trpc/server/adapters/fetch';
import type { ActorCache } from './adapters/actor-cache.ts';
import type { LiveEvents } from './adapters/live-events.ts';
import type { LiveStreams, OpenedStream } from './adapters/live-streams.ts';
import type { AuthGuard } from './auth/auth-guard.ts';
import type { Credentials } from './auth/authenticate.ts';
import type { StreamTickets } from './auth/stream-tickets.ts';
import type { WriterLink } from './cluster/writer.ts';
import type { Logger } from './logger.ts';

export interface Services {
  deps: Deps;
  /** Resolves bearer tokens to callers, cached until a revocation. */
  actors: ActorCache;
  live: LiveEvents;
  /** The live streams this process serves: their caps, and their end when their token stops working. */
  streams: LiveStreams;
  /** Checks and reaches notification receivers (public addresses only, unless allow-listed). */
  channelSender: ChannelSender;
  /** Task imports: a staging list unwritten for `leaseMs` is a dead import's; a waiting import answers 409 after `waitMs`. */
  imports: { leaseMs: number; waitMs: number };
  /** The brake on failed authentications. */
  guard: AuthGuard;
  /** Single-use tickets that open a live stream without a token in its URL. */
  tickets: StreamTickets;
  log: Logger;
  /** With `serve --workers N`, in every worker but the writer: where this worker's mutations are run. */
  writer?: WriterLink;
}

/** What one request tells the access log: its id, and who called once the token is resolved. */
export interface RequestInfo {
  id: string;
  actorId?: string;
  /** The client's address (failed authentications are counted per address). */
  address?: string;
}

export interface InnerContext extends Services {
  /** The bearer token from the Authorization header. */
  token: string | null;
  /** Everything the request offers to prove who it is (the header's token, a stream ticket, a token in the URL). */
  credentials: Credentials;
  request: RequestInfo;
  /** A caller already known (an MCP session's tools act as its agent session): used instead of the token. */
  caller?: Actor;
  /** A live stream whose place the HTTP layer took (http/live-stream.ts): its caller, or why authenticating failed. */
  admitted?: AdmittedStream;
}

/** A live stream let in by the HTTP layer: its place and caller (none for a run link), or the authentication's refusal. */
export type AdmittedStream = { actor?: Actor; opened: OpenedStream } | { failed: unknown };

export const createInnerContext = (
  services: Services,
  token: string | null,
  request: RequestInfo = { id: 'in-process' },
  credentials: Credentials = { token },
  caller?: Actor,
): InnerContext => ({
  ...services,
  token,
  credentials,
  request,
  ...(caller ? { caller } : {}),
});

export function bearerToken(header: string | string[] | null | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/**
 * The adapter part: the token from the Authorization header; a live stream opened by a client whose EventSource sends
 * no headers brings a stream ticket in its connection params (a token there is noted, to be refused).
 */
export function createContextFactory(services: Services) {
  return ({ req, info }: FetchCreateContextFnOptions, request: RequestInfo) =>
    contextFor(services, req.headers.get('authorization'), request, info.connectionParams ?? {});
}

/** A request's context from its Authorization header's value (and a live stream's connection params). */
export function contextFor(
  services: Services,
  authorization: string | null | undefined,
  request: RequestInfo,
  params: Record<string, unknown> = {},
): InnerContext {
  const credentials = credentialsFrom(authorization, params);
  return createInnerContext(services, credentials.token, request, credentials);
}

/** What a request offers to prove who it is: the Authorization header's token, a stream ticket in its connection params. */
export function credentialsOf(headers: Headers, params: Record<string, unknown>): Credentials {
  return credentialsFrom(headers.get('authorization'), params);
}

/** The same from the Authorization header's value. */
function credentialsFrom(authorization: string | null | undefined, params: Record<string, unknown>): Credentials {
  const ticket = params.ticket;
  return {
    token: bearerToken(authorization),
    ticket: typeof ticket === 'string' ? ticket : undefined,
    tokenInUrl: params.token !== undefined,
  };
}

export type Context = InnerContext;
