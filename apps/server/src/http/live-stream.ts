// Live streams (tRPC subscriptions over SSE), answered here rather than by tRPC's HTTP handler, in the same protocol its
// httpSubscriptionLink reads (`connected`, tracked events with their ids, `ping` every 10 s, `serialized-error`,
// `return`). Two reasons: a stream past a cap is refused with an HTTP 429 (tRPC starts every SSE answer with 200 and tells
// a refusal inside the stream), and an open stream holds about a tenth of the memory (one pull-based body, where tRPC's
// answer chains three web streams and their generators: ~60 KB a stream, the bulk of what 2,000 streams cost).
// The procedure itself runs through tRPC (its middlewares, contracts and error texts); anything unusual about the request
// (a batch, input that is not JSON) is left to tRPC's handler to answer.
import { isDomainError } from '@agent-tasks/core';
import {
  type AnyTRPCRouter,
  type TRPCError,
  callTRPCProcedure,
  getTRPCErrorFromUnknown,
  getTRPCErrorShape,
  isTrackedEnvelope,
} from '@trpc/server';
import type { MiddlewareHandler } from 'hono';
import type { OpenedStream, StreamOwner } from '../adapters/live-streams.ts';
import { authenticate, tokenOf } from '../auth/authenticate.ts';
import { type AdmittedStream, type InnerContext, type Services, createInnerContext, credentialsOf } from '../context.ts';
import { procedureKinds } from '../routers/procedure-kinds.ts';
import type { AppEnv } from './http-app.ts';
import { NOT_JSON, jsonOf } from './json-text.ts';

/** The run-link view: no key, its run is the capability (counted like a key, in the run's workspace). */
const RUN_LINK_STREAM = 'dashboard.watchRunLink';

/** As the tRPC client is told (`connected`): it reconnects after this long without a byte; a ping comes every 10 s. */
export const RECONNECT_AFTER_INACTIVITY_MS = 20_000;
export const PING_INTERVAL_MS = 10_000;

const encoder = new TextEncoder();
/** One SSE message, byte for byte as tRPC's producer writes it. */
const message = (fields: { event?: string; data: string; id?: string }) =>
  encoder.encode(
    `${fields.event === undefined ? '' : `event: ${fields.event}\n`}data: ${fields.data}\n${fields.id === undefined ? '' : `id: ${fields.id}\n`}\n\n`,
  );
const CONNECTED = message({ event: 'connected', data: JSON.stringify({ reconnectAfterInactivityMs: RECONNECT_AFTER_INACTIVITY_MS }) });
const PING = message({ event: 'ping', data: '' });
const RETURN = message({ event: 'return', data: '' });

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
  vary: 'trpc-accept, accept',
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A fault is logged with its stack under the request's id, as tRPC's handler logs it; a refusal is an answer. */
function logged(services: Services, error: TRPCError, ctx: InnerContext, path: string) {
  if (error.code === 'INTERNAL_SERVER_ERROR') services.log.error({ req: ctx.request.id, err: error.cause ?? error }, 'unexpected error');
  else if (error.code === 'SERVICE_UNAVAILABLE')
    services.log.warn({ req: ctx.request.id, route: path }, 'database busy or not answering: answered in the stream');
  else if (error.code === 'TOO_MANY_REQUESTS')
    services.log.warn({ req: ctx.request.id, address: ctx.request.address }, 'failed authentications: answered 429');
}

export function liveStreamRoute(services: Services, router: AnyTRPCRouter): MiddlewareHandler<AppEnv> {
  const kinds = procedureKinds(router);
  const streamPaths = new Set(Object.keys(kinds).filter((path) => kinds[path] === 'subscription'));

  /** Who holds the stream; `failed` when authenticating failed (told inside the stream); null for an unknown run link. */
  async function ownerOf(path: string, input: unknown, ctx: InnerContext): Promise<{ owner: StreamOwner } | { failed: unknown } | null> {
    if (path === RUN_LINK_STREAM) {
      const runId = isPlainObject(input) ? input.runId : undefined;
      const run = typeof runId === 'string' ? await services.deps.store.runs.getAnywhere(runId) : null;
      return run ? { owner: { runLink: run.id, workspaceId: run.workspaceId } } : null;
    }
    try {
      const actor = await authenticate(services, ctx.request.address, { ...ctx.credentials, stream: true });
      return { owner: { actor, token: tokenOf(actor) } };
    } catch (error) {
      return { failed: error };
    }
  }

  return async (c, next) => {
    const path = c.req.path.slice('/trpc/'.length);
    if (c.req.method !== 'GET' || c.req.query('batch') !== undefined || !streamPaths.has(path)) return next();
    const given = jsonOf(c.req.query('input'));
    const params = jsonOf(c.req.query('connectionParams'));
    if (given === NOT_JSON || params === NOT_JSON || (params !== undefined && !isPlainObject(params))) return next();
    // A reconnecting client says where it was (tRPC's rule: the header, else the query; put into the input).
    const lastEventId = c.req.header('last-event-id') ?? c.req.query('lastEventId') ?? c.req.query('Last-Event-Id');
    const input = lastEventId ? (isPlainObject(given) ? { ...given, lastEventId } : (given ?? { lastEventId })) : given;

    const info = c.get('info');
    const credentials = credentialsOf(c.req.raw.headers, params ?? {});
    const base = createInnerContext(services, credentials.token, info, credentials);
    const gone = new AbortController();
    const who = await ownerOf(path, input, base);
    let opened: OpenedStream | undefined;
    if (who && 'owner' in who) {
      try {
        opened = await services.streams.open(who.owner, gone.signal);
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'RATE_LIMITED') throw error;
        if ('actor' in who.owner) info.actorId = who.owner.actor.sessionId ?? who.owner.actor.keyId;
        c.header('retry-after', String(Number(error.details?.retryAfterSeconds ?? 10)));
        const details = error.details ?? null;
        return c.json(
          {
            error: {
              message: error.message,
              code: -32029,
              data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429, path, appCode: 'RATE_LIMITED', details },
            },
          },
          429,
        );
      }
    }
    const admitted: AdmittedStream | undefined = !who
      ? undefined
      : 'failed' in who
        ? { failed: who.failed }
        : { ...('actor' in who.owner ? { actor: who.owner.actor } : {}), opened: opened as OpenedStream };
    const ctx: InnerContext = { ...base, ...(admitted ? { admitted } : {}) };

    const errorMessage = (cause: unknown) => {
      const error = getTRPCErrorFromUnknown(cause);
      logged(services, error, ctx, path);
      const shape: unknown = getTRPCErrorShape({ config: router._def._config, error, type: 'subscription', path, input, ctx });
      return message({ event: 'serialized-error', data: JSON.stringify(shape) });
    };

    let events: AsyncIterable<unknown>;
    try {
      events = (await callTRPCProcedure({
        router,
        path,
        getRawInput: async () => input,
        ctx,
        type: 'subscription',
        signal: gone.signal,
        batchIndex: 0,
      })) as AsyncIterable<unknown>;
    } catch (error) {
      opened?.close();
      const refusal = errorMessage(error);
      return c.body(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(CONNECTED);
            controller.enqueue(refusal);
            controller.close();
          },
        }),
        200,
        SSE_HEADERS,
      );
    }

    const iterator = events[Symbol.asyncIterator]();
    /** The next event, kept across pulls while pings go out. */
    let pending: Promise<IteratorResult<unknown>> | undefined;
    let connected = false;
    // Pulled one message at a time as the socket takes them: a client that reads slowly holds its stream back.
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (!connected) {
            connected = true;
            return controller.enqueue(CONNECTED);
          }
          pending ??= iterator.next();
          let timer: NodeJS.Timeout | undefined;
          const ping = new Promise<'ping'>((resolve) => (timer = setTimeout(() => resolve('ping'), PING_INTERVAL_MS)));
          let step: IteratorResult<unknown> | 'ping';
          try {
            step = await Promise.race([pending, ping]);
          } catch (error) {
            pending = undefined;
            if (!gone.signal.aborted) controller.enqueue(errorMessage(error));
            return controller.close();
          } finally {
            clearTimeout(timer);
          }
          if (step === 'ping') return controller.enqueue(PING);
          pending = undefined;
          if (step.done) {
            // `return` tells the client the subscription is over (a revoked key or link); a stream ended by a shutdown
            // closes without it, so the client reconnects (to this server restarted, or another replica).
            if (!gone.signal.aborted && !services.streams.closed) controller.enqueue(RETURN);
            return controller.close();
          }
          const value = step.value;
          controller.enqueue(
            isTrackedEnvelope(value) ? message({ data: JSON.stringify(value[1]), id: value[0] }) : message({ data: JSON.stringify(value) }),
          );
        },
        cancel() {
          // The client went away: the stream ends, its place is given back.
          gone.abort();
          void iterator.return?.()?.catch(() => undefined);
        },
      },
      { highWaterMark: 0 },
    );
    return c.body(body, 200, SSE_HEADERS);
  };
}
