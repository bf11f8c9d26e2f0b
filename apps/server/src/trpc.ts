// Initialises tRPC once: error formatting (exact refusal texts, stable codes), procedures, stream contracts.
import { type Actor, DomainError, isDomainError } from '@agent-tasks/core';
import { inputProblem, shownName } from '@agent-tasks/schema';
import { isDeepStrictEqual } from 'node:util';
import { initTRPC, type TrackedEnvelope, isTrackedEnvelope } from '@trpc/server';
import { z } from 'zod';
import { type OpenedStream, whileOpen } from './adapters/live-streams.ts';
import { authenticate, tokenOf } from './auth/authenticate.ts';
import type { Context } from './context.ts';
import { answerFor, errorDataOf, toTRPCError } from './error-map.ts';

/** Longest procedure path echoed: every real one is far shorter; an unknown one is the caller's text, cut like a value. */
const PATH_MAX = 100;

const t = initTRPC.context<Context>().create({
  // Stack traces stay in the server's log whatever NODE_ENV is.
  isDev: false,
  // The error boundary's answer in tRPC's shape: the exact text in `message`, the stable code in `data.appCode`.
  errorFormatter({ shape, error, ctx, input }) {
    const path = shape.data.path;
    const answer = answerFor(error, { requestId: ctx?.request.id, input, path });
    return { ...shape, message: answer.text, data: errorDataOf(answer, path === undefined ? undefined : shownName(path, PATH_MAX)) };
  },
  sse: {
    ping: { enabled: true, intervalMs: 10_000 },
    client: { reconnectAfterInactivityMs: 20_000 },
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** A domain refusal gets its code's status; the store unavailable (busy, does not answer) is one: 503, not a fault. */
const mapped = <R extends { ok: boolean; error?: { cause?: unknown } }>(result: R): R => {
  if (!result.ok && isDomainError(result.error?.cause)) throw toTRPCError(result.error.cause);
  return result;
};
const refusedAs = (error: unknown) => (isDomainError(error) ? toTRPCError(error) : error);

/** Refuses inputs nested too deep, with unpaired surrogates, NUL characters or prototype keys (see inputProblem), before
 * any contract. */
async function guardInput(getRawInput: () => Promise<unknown>) {
  const problem = inputProblem(await getRawInput());
  if (problem) throw toTRPCError(new DomainError('INVALID_INPUT', problem));
}

/**
 * One middleware for every procedure (each layer costs tRPC a copy of the call's options and a few promises): the input
 * guard, then the procedure, whose refusals are mapped to their answers.
 */
const guarded = t.middleware(async ({ getRawInput, next }) => {
  await guardInput(getRawInput);
  return mapped(await next());
});

export const publicProcedure = t.procedure.use(guarded);

/** The same in one layer for procedures that need a caller: the input guard, who calls, then the procedure. */
export const authedProcedure = t.procedure.use(async ({ ctx, next, type, signal, getRawInput }) => {
  await guardInput(getRawInput);
  let actor: Actor;
  // A live stream let in by the HTTP layer was authenticated there (a refusal is told here, inside the stream).
  const admitted = type === 'subscription' ? ctx.admitted : undefined;
  try {
    if (admitted && 'failed' in admitted) throw admitted.failed;
    // An MCP session's tools act as a caller already authenticated when the session was opened.
    actor =
      admitted?.actor ??
      ctx.caller ??
      (await authenticate(ctx, ctx.request.address, { ...ctx.credentials, stream: type === 'subscription' }));
  } catch (error) {
    throw refusedAs(error);
  }
  ctx.request.actorId = actor.sessionId ?? actor.keyId;
  if (type !== 'subscription') return mapped(await next({ ctx: { actor, stream: signal } }));
  // A live stream holds a place under the caps (taken by the HTTP layer, else here), and ends when the token it came
  // with stops working (`stream` replaces the request's signal); its place is given back when it ends.
  try {
    const opened = admitted?.opened ?? (await ctx.streams.open({ actor, token: tokenOf(actor) }, signal));
    return mapped(await streamed(opened, (stream) => next({ ctx: { actor, stream } })));
  } catch (error) {
    throw refusedAs(error);
  }
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

/** Set in the test suite (vitest.config.ts): every presented answer is parsed and must be its contract exactly. */
const verifyPresented = process.env.AGENT_TASKS_VERIFY_OUTPUTS === '1';

/** An output parser that passes a presented answer on as it is, with the contract it is held to. */
export type Presented<T extends z.ZodType> = ((value: unknown) => z.output<T>) & { contract: T };

/**
 * The output contract of a hot procedure whose answer the core's presenters build field by field: typed as `schema`
 * and passed on as it is, not parsed again on every call (for a run's view, 38 µs and a copy of its 28 KB). With
 * AGENT_TASKS_VERIFY_OUTPUTS=1, as in the test suite, each answer is parsed and must equal the parse exactly, as JSON:
 * no field missing, wrong or extra (an internal field would be refused, not stripped).
 */
export function presented<T extends z.ZodType>(schema: T): Presented<T> {
  const pass = verifyPresented
    ? (value: unknown) => {
        const parsed = schema.parse(value);
        if (!isDeepStrictEqual(JSON.parse(JSON.stringify(parsed)), JSON.parse(JSON.stringify(value)))) {
          throw new Error(`an answer is not exactly its contract: ${JSON.stringify(value).slice(0, 500)}`);
        }
        return parsed;
      }
    : (value: unknown) => value as z.output<T>;
  return Object.assign(pass, { contract: schema });
}

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
