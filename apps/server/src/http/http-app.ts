// The HTTP layer (Hono): access log and request ids, CORS, body limits, health, tRPC, MCP, run links, the dashboard.
import { randomUUID } from 'node:crypto';
import { isStoreUnavailable } from '@agent-tasks/core';
import { githubHook } from './github-hook.ts';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { AnyTRPCRouter, TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { type InnerContext, type RequestInfo, type Services, contextFor, createContextFactory } from '../context.ts';
import { type Answer, answerFor, answerHeaders, errorBodyFor, transportRefusals } from '../error-map.ts';
import { linesWritten, writeAccessLine } from '../logger.ts';
import { appRouter } from '../routers/root.ts';
import { accessLine } from './access-log.ts';
import { strayBatchKeyProblem } from './batch-keys.ts';
import { boundedBody } from './body-bound.ts';
import { liveStreamRoute } from './live-stream.ts';
import { plainCalls } from './plain-call.ts';
import { dashboard } from './dashboard.ts';
import { factsOf } from './front-door.ts';
import { type InFlight } from './in-flight.ts';
import { runLinks } from './run-links.ts';

/** Largest request body accepted on /trpc (an import of many task files is the biggest legitimate one). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
export const TOO_LARGE_MESSAGE = transportRefusals.bodyTooLarge('16 MiB').text;

/** An MCP endpoint: a web request in, its answer out (streamed when it is SSE). */
type McpHandler = { handle(request: Request, address?: string, requestId?: string): Promise<Response> };

/** The log's words for a store that could not take the call. */
const unavailable = { busy: 'database busy', unreachable: 'database does not answer' } as const;

export type AppEnv = { Bindings: HttpBindings; Variables: { requestId: string; info: RequestInfo } };

export interface HttpAppOptions {
  services: Services;
  corsOrigins: string[];
  inFlight: InFlight;
  mcp: McpHandler;
  /** The Moira-compatible MCP server (tools start and step). */
  moira: McpHandler;
  /** Whether the database answers and every migration is applied. */
  ready(): Promise<{ ready: true } | { ready: false; reason: string }>;
  webRoot: string;
  /** The API served at /trpc; the application's own unless given (the bench serves a no-op one on the same stack). */
  router?: AnyTRPCRouter;
  /** Most calls one tRPC batch request may carry; larger batches are refused whole with a 400. */
  maxBatch?: number;
  /** false: every call goes through tRPC's handler, none answered by plain-call.ts (the tests hold the two equal). */
  plainCalls?: boolean;
  /** The JSON text of an answer the read cache kept (made once), or undefined (adapters/read-cache.ts). */
  answerText?: (data: unknown) => string | undefined;
}

const json = (c: Context, status: number, body: unknown) => c.json(body as object, status as 200);

/** The error boundary's answer, in the shape of the request's path (tRPC's on /trpc, else `{ error }`), with its headers. */
const answer = (c: Context, a: Answer) => {
  for (const [name, value] of Object.entries(answerHeaders(a))) c.header(name, value);
  return json(c, a.status, errorBodyFor(c.req.path, a));
};

/** The web request for tRPC when this layer read its body already: body reads come from Hono's cache of it. */
function cachedBody(c: Context<AppEnv>): Request {
  const reads = new Set(['arrayBuffer', 'blob', 'formData', 'json', 'text']);
  return new Proxy(c.req.raw, {
    get: (target, key) =>
      typeof key === 'string' && reads.has(key) ? () => c.req[key as 'text']() : (Reflect.get(target, key, target) as unknown),
  });
}

/** The procedures of a tRPC request path (`/trpc/todos.write,todos.get` → `todos.write,todos.get`). */
const routeOf = (c: Context) => (c.req.path.startsWith('/trpc/') ? c.req.path.slice('/trpc/'.length) : c.req.routePath);

/**
 * Calls `leave` once the answer has left (its response closed): the handler returns before the answer is written, and a
 * shutdown that closed the connections then would drop the answers of writes already committed. A live stream (SSE),
 * or an answer the route wrote itself, counts only until it starts: the shutdown ends those.
 */
function leaveOnceAnswered(c: Context<AppEnv>, leave: () => void) {
  const outgoing = c.env?.outgoing;
  const stream = c.res === RESPONSE_ALREADY_SENT || Boolean(c.res.headers.get('content-type')?.startsWith('text/event-stream'));
  if (!outgoing || stream || outgoing.closed) leave();
  else outgoing.once('close', leave);
}

export function createHttpApp(options: HttpAppOptions) {
  const { services, inFlight } = options;
  const log = services.log;
  const adapterContext = createContextFactory(services);
  const app = new Hono<AppEnv>();

  // Request ids, the in-flight count and one access-log line per request (id, route or procedure, actor — never a
  // token —, status, duration) in one middleware; the answer waits for its line to be written (one write per turn).
  const logsRequests = log.isLevelEnabled('info');
  const written = linesWritten(log);
  const accessLogged = async (c: Context<AppEnv, string>, next: () => Promise<void>) => {
    const started = performance.now();
    const incoming = c.env?.incoming;
    const outgoing = c.env?.outgoing;
    // The caller's X-Request-Id when it is a plain token of at most 64 characters, else a new one; echoed back.
    const given = incoming ? incoming.headers['x-request-id'] : c.req.header('x-request-id');
    const id = typeof given === 'string' && given !== '' && given.length <= 64 && !/[^\w\-=]/.test(given) ? given : randomUUID();
    c.set('requestId', id);
    if (outgoing) outgoing.setHeader('x-request-id', id);
    else c.header('x-request-id', id);
    // The front door read the client's address (behind a trusted proxy, from X-Forwarded-For); else the socket's peer.
    const info: RequestInfo = { id, address: factsOf(incoming)?.address ?? incoming?.socket.remoteAddress };
    c.set('info', info);
    if (!inFlight.enter()) {
      c.header('connection', 'close');
      return answer(c, transportRefusals.shuttingDown());
    }
    try {
      await next();
    } finally {
      leaveOnceAnswered(c, () => inFlight.leave());
      if (logsRequests) {
        const status = c.res === RESPONSE_ALREADY_SENT ? c.env.outgoing.statusCode : c.res.status;
        const ms = Math.round((performance.now() - started) * 10) / 10;
        writeAccessLine(log, accessLine({ req: id, method: c.req.method, route: routeOf(c), actor: info.actorId, status, ms }));
      }
      const pending = written();
      if (pending) await pending;
    }
  };
  app.use(accessLogged);

  if (options.corsOrigins.length > 0) {
    const any = options.corsOrigins.includes('*');
    app.use(
      cors({
        // Bearer tokens, never cookies: credentials are not allowed, so `*` is never combined with them.
        origin: (origin) => (any ? '*' : options.corsOrigins.includes(origin) ? origin : null),
        allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
        allowHeaders: [
          'authorization',
          'content-type',
          'trpc-accept',
          'last-event-id',
          'mcp-session-id',
          'mcp-protocol-version',
          'x-request-id',
        ],
        exposeHeaders: ['x-request-id', 'mcp-session-id'],
        credentials: false,
        maxAge: 600,
      }),
    );
  }

  const onError = (error: unknown, c: Context<AppEnv, string>) => {
    const id = c.get('requestId') ?? 'unknown';
    const a = answerFor(error, { requestId: id });
    if (isStoreUnavailable(error)) log.warn({ req: id, route: routeOf(c) }, `${unavailable[error.reason]}: answered 503`);
    else if (a.status === 500) log.error({ req: id, err: error }, 'unexpected error');
    return answer(c, a);
  };
  const notFound = (c: Context<AppEnv, string>) => answer(c, transportRefusals.noRoute(c.req.method, c.req.path));
  app.onError(onError);
  app.notFound(notFound);

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/readyz', async (c) => {
    const state = await options.ready();
    return json(c, state.ready ? 200 : 503, state);
  });

  const maxBatch = options.maxBatch ?? 50;
  const router = options.router ?? appRouter;
  // Live streams: answered by our own SSE writer (429 past a cap; far less memory a stream than tRPC's answer).
  const liveStreams = liveStreamRoute(services, router);
  const bounded = boundedBody(MAX_BODY_BYTES, (c) => answer(c, transportRefusals.bodyTooLarge('16 MiB')));
  const trpcOptions = {
    router,
    endpoint: '/trpc',
    maxBatchSize: maxBatch,
    onError({ error, ctx: untyped, path }: { error: TRPCError; ctx?: unknown; path?: string }) {
      const ctx = untyped as InnerContext | undefined;
      // Refusals are answers, not faults; anything else is logged with its stack under the request's id.
      if (error.code === 'INTERNAL_SERVER_ERROR') log.error({ req: ctx?.request.id, err: error.cause ?? error }, 'unexpected error');
      if (error.code === 'TOO_MANY_REQUESTS')
        log.warn({ req: ctx?.request.id, address: ctx?.request.address }, 'failed authentications: answered 429');
      if (isStoreUnavailable(error.cause))
        log.warn({ req: ctx?.request.id, route: path }, `${unavailable[error.cause.reason]}: answered 503`);
    },
    // A call that could not run now, or a refusal that passes with time, tells the client when to try again.
    responseMeta: ({ errors }: { errors: TRPCError[] }) => {
      const waits = errors.map((e) => answerFor(e).retryAfter).filter((n): n is number => n !== null);
      return waits.length ? { headers: { 'retry-after': String(Math.max(...waits)) } } : {};
    },
  };
  // A single query or mutation, answered as tRPC's handler answers it without the handler's per-call machinery.
  const plainCall = plainCalls({
    router,
    createContext: (c, authorization) => contextFor(services, authorization, c.get('info')),
    onError: (failed) => trpcOptions.onError(failed),
    responseMeta: trpcOptions.responseMeta,
    ...(options.answerText ? { answerText: options.answerText } : {}),
  });
  /** tRPC's fetch handler on the web request; a body already read here (a batch's) is read again from Hono's cache. */
  const trpc = (c: Context<AppEnv>, bodyRead: boolean) =>
    fetchRequestHandler({
      ...trpcOptions,
      createContext: (opts) => adapterContext(opts, c.get('info')),
      req: bodyRead ? cachedBody(c) : c.req.raw,
    } as Parameters<typeof fetchRequestHandler>[0]);

  // One middleware for /trpc (each Hono layer costs a closure and a promise per call), its steps in order: a batch of
  // more calls than allowed is refused before anything runs (nothing bounds a batch but the URL); the body limit; a
  // batch input with a key that is no call's index (after the limit, so the body read is bounded); a single query or
  // mutation answered here (plain-call.ts); live streams; then tRPC.
  const trpcRoute = (c: Context<AppEnv, string>): Promise<Response | void> => {
    const batch = c.req.query('batch') === '1';
    if (batch) {
      const calls = routeOf(c).split(',').length;
      if (calls > maxBatch) return Promise.resolve(answer(c, transportRefusals.batchTooLarge(maxBatch, calls)));
    }
    return bounded(c, async () => {
      let bodyRead = false;
      if (batch) {
        const method = c.req.method;
        const json = method === 'POST' && (c.req.header('content-type') ?? '').startsWith('application/json');
        bodyRead = json;
        const text = method === 'GET' ? c.req.query('input') : json ? await c.req.text() : undefined;
        const message = strayBatchKeyProblem(text, routeOf(c).split(',').length);
        if (message !== null) {
          c.res = answer(c, transportRefusals.batchInput(message));
          return;
        }
      } else if (options.plainCalls !== false) {
        const plain = await plainCall(c);
        if (plain instanceof Response) {
          c.res = plain;
          return;
        }
        bodyRead = plain.bodyRead;
      }
      const stream = await liveStreams(c, async () => {
        c.res = await trpc(c, bodyRead);
      });
      if (stream) c.res = stream;
    });
  };
  app.use('/trpc/*', trpcRoute);
  app.all('/mcp', (c) => options.mcp.handle(c.req.raw, c.get('info').address, c.get('requestId')));
  app.all('/mcp/moira', (c) => options.moira.handle(c.req.raw, c.get('info').address, c.get('requestId')));

  app.route('/runs', runLinks(services.deps, options.webRoot));
  app.route('/hooks', githubHook(services.deps));
  app.route('/', dashboard(options.webRoot));

  // The same two steps for a /trpc/ call (access log, then the /trpc route) as the one handler of an app of its own:
  // Hono runs a request matching one handler without composing a middleware chain (an async dispatch per layer).
  // With CORS configured, every request goes through the full chain above.
  if (options.corsOrigins.length > 0) return app;
  const calls = new Hono<AppEnv>();
  calls.all('/trpc/*', (c) =>
    accessLogged(c, async () => {
      // What Hono's chain does with an error thrown under a middleware: the boundary's answer, logged by the step above.
      try {
        const res = await trpcRoute(c);
        if (res) c.res = res;
      } catch (error) {
        if (!(error instanceof Error)) throw error;
        c.error = error;
        c.res = onError(error, c);
      }
    }),
  );
  calls.onError(onError);
  calls.notFound(notFound);
  const everything = app.fetch;
  app.fetch = (request, env, executionCtx) =>
    isCall(request.url) ? calls.fetch(request, env, executionCtx) : everything(request, env, executionCtx);
  return app;
}

/** A URL whose path starts with /trpc/. */
function isCall(url: string): boolean {
  const path = url.indexOf('/', url.indexOf('//') + 2);
  return path !== -1 && url.startsWith('/trpc/', path);
}
