// Initialises tRPC once: error formatting (exact refusal texts, stable codes), procedures, stream contracts.
import { DomainError, isDomainError } from '@agent-tasks/core';
import { formatZodError, inputProblem, shown, shownName } from '@agent-tasks/schema';
import { initTRPC, type TrackedEnvelope, isTrackedEnvelope } from '@trpc/server';
import { ZodError, z } from 'zod';
import { type OpenedStream, whileOpen } from './adapters/live-streams.ts';
import { authenticate, tokenOf } from './auth/authenticate.ts';
import type { Context } from './context.ts';
import { databaseBusy, databaseUnreachable, isDatabaseBusy, isDatabaseUnreachable } from './db/busy.ts';
import { toTRPCError } from './error-map.ts';

/** The answer's data: the tRPC code and HTTP status, the stable app code and details; never a stack or a file path. */
function safeData(shape: { data: { code: string; httpStatus: number; path?: string } }, appCode: string | null, details: unknown) {
  const { code, httpStatus, path } = shape.data;
  return { code, httpStatus, ...(path === undefined ? {} : { path: shownName(path, PATH_MAX) }), appCode, details };
}

/** Longest procedure path echoed: every real one is far shorter; an unknown one is the caller's text, cut like a value. */
const PATH_MAX = 100;

/** Longest refusal text: values are quoted short (see `shown`); this bounds anything that still echoes input. */
export const MESSAGE_MAX = 2_000;
const bounded = (message: string) => (message.length > MESSAGE_MAX ? `${message.slice(0, MESSAGE_MAX)}…` : message);

const t = initTRPC.context<Context>().create({
  // Stack traces stay in the server's log whatever NODE_ENV is.
  isDev: false,
  errorFormatter({ shape, error, ctx, input }) {
    const cause = error.cause;
    if (cause instanceof ZodError)
      return { ...shape, message: bounded(formatZodError(cause, { input })), data: safeData(shape, 'INVALID_INPUT', null) };
    if (isDomainError(cause))
      return { ...shape, message: bounded(cause.message), data: safeData(shape, cause.code, cause.details ?? null) };
    const message =
      error.code === 'INTERNAL_SERVER_ERROR'
        ? `Error: internal server error (request ${ctx?.request.id ?? 'unknown'}).`
        : error.code === 'NOT_FOUND' && shape.data.path !== undefined && shape.message.startsWith('No procedure found on path')
          ? `Error: no procedure found on path ${shown(shape.data.path)}.`
          : publicMessage(error.code, shape.message);
    return { ...shape, message, data: safeData(shape, null, null) };
  },
  sse: {
    ping: { enabled: true, intervalMs: 10_000 },
    client: { reconnectAfterInactivityMs: 20_000 },
  },
});

/**
 * tRPC's own refusals (unknown procedure, wrong method, unreadable body) keep a short `Error:` text; anything
 * else that is not ours is answered with its code only, so no library or runtime message leaks out.
 */
function publicMessage(code: string, message: string): string {
  if (
    code === 'NOT_FOUND' ||
    code === 'METHOD_NOT_SUPPORTED' ||
    code === 'PARSE_ERROR' ||
    code === 'PAYLOAD_TOO_LARGE' ||
    code === 'BAD_REQUEST'
  ) {
    const text = message.split('\n')[0]?.slice(0, 200) ?? '';
    return text.startsWith('Error:') ? text : `Error: ${text.charAt(0).toLowerCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
  }
  return `Error: ${code.toLowerCase().replaceAll('_', ' ')}.`;
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isDomainError(result.error.cause)) throw toTRPCError(result.error.cause);
  // The write lock stayed taken past the busy timeout: 503 with Retry-After (set by the HTTP layer), not a fault.
  if (!result.ok && isDatabaseBusy(result.error.cause)) throw toTRPCError(databaseBusy());
  // A PostgreSQL server that does not answer: 503 with Retry-After too (the load balancer's /readyz says the same).
  if (!result.ok && isDatabaseUnreachable(result.error.cause)) throw toTRPCError(databaseUnreachable());
  return result;
});

/** Before any contract: refuses inputs nested too deep, with unpaired surrogates, NUL characters or prototype keys (see inputProblem). */
const inputGuard = t.middleware(async ({ getRawInput, next }) => {
  const problem = inputProblem(await getRawInput());
  if (problem) throw new DomainError('INVALID_INPUT', problem);
  return next();
});

export const publicProcedure = t.procedure.use(domainErrors).use(inputGuard);

export const authedProcedure = publicProcedure.use(async ({ ctx, next, type, signal }) => {
  // A live stream let in by the HTTP layer was authenticated there (a refusal is told here, inside the stream).
  const admitted = type === 'subscription' ? ctx.admitted : undefined;
  if (admitted && 'failed' in admitted) throw admitted.failed;
  // An MCP session's tools act as a caller already authenticated when the session was opened.
  const actor =
    admitted?.actor ??
    ctx.caller ??
    (await authenticate(ctx, ctx.request.address, { ...ctx.credentials, stream: type === 'subscription' }));
  ctx.request.actorId = actor.sessionId ?? actor.keyId;
  if (type !== 'subscription') return next({ ctx: { actor, stream: signal } });
  // A live stream holds a place under the caps (taken by the HTTP layer, else here), and ends when the token it came
  // with stops working (`stream` replaces the request's signal); its place is given back when it ends.
  const opened = admitted?.opened ?? ctx.streams.open({ actor, token: tokenOf(actor) }, signal);
  return streamed(opened, (stream) => next({ ctx: { actor, stream } }));
});

/** Runs a stream's procedure under its place: given back at once on a refusal, else when its events end. */
async function streamed<R extends { ok: boolean; data?: unknown }>(opened: OpenedStream, run: (stream: AbortSignal) => Promise<R>) {
  let result: R;
  try {
    result = await run(opened.signal);
  } catch (error) {
    opened.close();
    throw error;
  }
  if (!result.ok || !isAsyncIterable(result.data)) {
    opened.close();
    return result;
  }
  return { ...result, data: whileOpen(opened, result.data) };
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> => value != null && Symbol.asyncIterator in Object(value);

/** Output contract of a subscription: a stream of tracked events whose data each match `schema`. */
export function streamOf<T extends z.ZodType>(schema: T) {
  return z
    .custom<AsyncIterable<TrackedEnvelope<z.output<T>>>>((value) => value != null && Symbol.asyncIterator in Object(value))
    .transform(async function* (events) {
      for await (const event of events) {
        if (!isTrackedEnvelope(event)) throw new Error('untracked event in a resumable stream');
        const [id, data, symbol] = event;
        yield [id, schema.parse(data), symbol] as TrackedEnvelope<z.output<T>>;
      }
    });
}
