// Request context: the inner part holds the dependencies; the adapter part reads the bearer token and request id from HTTP.
import type { Deps, WebhookSender } from '@agent-tasks/core';
import type { FetchCreateContextFnOptions } from '@trpc/server/adapters/fetch';
import type { LiveEvents } from './adapters/live-events.ts';
import type { Logger } from './logger.ts';

export interface Services {
  deps: Deps;
  live: LiveEvents;
  /** Checks and reaches notification receivers (public addresses only, unless allow-listed). */
  webhooks: WebhookSender;
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
}

export const createInnerContext = (services: Services, token: string | null, request: RequestInfo = { id: 'in-process' }): InnerContext => ({
  ...services,
  token,
  request,
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
