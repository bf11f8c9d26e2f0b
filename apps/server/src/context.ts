// Request context: the inner part holds the dependencies; the adapter part reads the bearer token and request id from HTTP.
import type { Actor, Deps } from '@agent-tasks/core';
import type { FetchCreateContextFnOptions } from '@trpc/server/adapters/fetch';
import type { ActorCache } from './adapters/actor-cache.ts';
import type { LiveEvents } from './adapters/live-events.ts';
import type { Logger } from './logger.ts';

export interface Services {
  deps: Deps;
  /** Resolves bearer tokens to callers, cached until a revocation. */
  actors: ActorCache;
  live: LiveEvents;
  log: Logger;
}

/** What one request tells the access log: its id, and who called once the token is resolved. */
export interface RequestInfo {
  id: string;
  actorId?: string;
}

export interface InnerContext extends Services {
  token: string | null;
  request: RequestInfo;
  /** A caller already known (an MCP session's tools act as its agent session): used instead of the token. */
  caller?: Actor;
}

export const createInnerContext = (
  services: Services,
  token: string | null,
  request: RequestInfo = { id: 'in-process' },
  caller?: Actor,
): InnerContext => ({
  ...services,
  token,
  request,
  ...(caller ? { caller } : {}),
});

export function bearerToken(header: string | string[] | null | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/** The adapter part: a token from the Authorization header, or from SSE connection params (EventSource has no headers). */
export function createContextFactory(services: Services) {
  return ({ req, info }: FetchCreateContextFnOptions, request: RequestInfo) => {
    const token = bearerToken(req.headers.get('authorization')) ?? info.connectionParams?.token ?? null;
    return createInnerContext(services, token, request);
  };
}

export type Context = InnerContext;
