// Request context: the inner part holds the dependencies; the adapter part reads the bearer token from HTTP.
import type { IncomingMessage } from 'node:http';
import type { Deps } from '@agent-tasks/core';
import type { LiveEvents } from './adapters/live-events.ts';

export interface Services {
  deps: Deps;
  live: LiveEvents;
}

export interface InnerContext extends Services {
  token: string | null;
}

export const createInnerContext = (services: Services, token: string | null): InnerContext => ({ ...services, token });

export function bearerToken(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/** The adapter part: a token from the Authorization header, or from SSE connection params (EventSource has no headers). */
export function createContextFactory(services: Services) {
  return ({ req, info }: { req: IncomingMessage; info: { connectionParams: Record<string, string | undefined> | null } }) => {
    const token = bearerToken(req.headers.authorization) ?? info.connectionParams?.token ?? null;
    return createInnerContext(services, token);
  };
}

export type Context = InnerContext;
