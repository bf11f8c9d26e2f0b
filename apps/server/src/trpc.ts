// Initialises tRPC once: error formatting (exact refusal texts, stable codes), procedures, stream contracts.
import { isDomainError } from '@agent-tasks/core';
import { formatZodError } from '@agent-tasks/schema';
import { initTRPC, type TrackedEnvelope, isTrackedEnvelope } from '@trpc/server';
import { ZodError, z } from 'zod';
import type { Context } from './context.ts';
import { databaseBusy, isDatabaseBusy } from './db/busy.ts';
import { toTRPCError } from './error-map.ts';

/** The answer's data: the tRPC code and HTTP status, the stable app code and details; never a stack or a file path. */
function safeData(shape: { data: { code: string; httpStatus: number; path?: string } }, appCode: string | null, details: unknown) {
  const { code, httpStatus, path } = shape.data;
  return { code, httpStatus, ...(path === undefined ? {} : { path }), appCode, details };
}

const t = initTRPC.context<Context>().create({
  // Stack traces stay in the server's log whatever NODE_ENV is.
  isDev: false,
  errorFormatter({ shape, error, ctx }) {
    const cause = error.cause;
    if (cause instanceof ZodError) return { ...shape, message: formatZodError(cause), data: safeData(shape, 'INVALID_INPUT', null) };
    if (isDomainError(cause)) return { ...shape, message: cause.message, data: safeData(shape, cause.code, cause.details ?? null) };
    const message =
      error.code === 'INTERNAL_SERVER_ERROR'
        ? `Error: internal server error (request ${ctx?.request.id ?? 'unknown'}).`
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
  if (code === 'NOT_FOUND' || code === 'METHOD_NOT_SUPPORTED' || code === 'PARSE_ERROR' || code === 'PAYLOAD_TOO_LARGE' || code === 'BAD_REQUEST') {
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
  return result;
});

export const publicProcedure = t.procedure.use(domainErrors);

export const authedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const actor = ctx.caller ?? (await ctx.actors.resolve(ctx.token));
  ctx.request.actorId = actor.sessionId ?? actor.keyId;
  return next({ ctx: { actor } });
});

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
