// Initialises tRPC once: error formatting (exact refusal texts, stable codes), procedures, stream contracts.
import { isDomainError, resolveActor } from '@agent-tasks/core';
import { formatZodError } from '@agent-tasks/schema';
import { initTRPC, type TrackedEnvelope, isTrackedEnvelope } from '@trpc/server';
import { ZodError, z } from 'zod';
import type { Context } from './context.ts';
import { toTRPCError } from './error-map.ts';

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    if (cause instanceof ZodError) {
      return { ...shape, message: formatZodError(cause), data: { ...shape.data, appCode: 'INVALID_INPUT', details: null } };
    }
    if (isDomainError(cause)) {
      return { ...shape, message: cause.message, data: { ...shape.data, appCode: cause.code, details: cause.details ?? null } };
    }
    const message = error.code === 'INTERNAL_SERVER_ERROR' ? 'Error: internal server error.' : shape.message;
    return { ...shape, message, data: { ...shape.data, appCode: null, details: null } };
  },
  sse: {
    ping: { enabled: true, intervalMs: 10_000 },
    client: { reconnectAfterInactivityMs: 20_000 },
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isDomainError(result.error.cause)) throw toTRPCError(result.error.cause);
  return result;
});

export const publicProcedure = t.procedure.use(domainErrors);

export const authedProcedure = publicProcedure.use(async ({ ctx, next }) =>
  next({ ctx: { actor: await resolveActor(ctx.deps, ctx.token) } }),
);

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
