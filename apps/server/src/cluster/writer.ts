// One writer for `serve --workers N`: every other worker takes the request, authenticates the caller and validates the
// mutation's input, then hands the call (procedure, validated input, caller, request id) through the primary to the
// writer worker, which runs it in its own group commit and answers; the worker validates the output, answers and logs
// the request as if it had run it. Reads stay local to each worker. SQLite takes one write at a time: with one process
// writing, writes no longer wait for turns at the write lock, and the writes of all workers are committed together.
import { type Actor, DomainError, StoreUnavailable, isDomainError, isStoreUnavailable } from '@agent-tasks/core';
import { type AnyRouter, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { type Services, createInnerContext } from '../context.ts';
import type { PrimaryLink, WriteFailure } from './messages.ts';

/** Mutations that stay in the worker that took them: a stream ticket is issued for the request's own token. */
const LOCAL = new Set(['auth.streamTicket']);

/** A worker's way to the writer. */
export interface WriterLink {
  /** Runs mutation `path` on the writer; resolves with its result or rejects with what it threw. */
  call(path: string, input: unknown, actor: Actor, requestId: string): Promise<unknown>;
}

type Resolver = (opts: Record<string, unknown>) => Promise<unknown>;
type Middleware = ((
  opts: { ctx: Record<string, unknown> & { writer?: WriterLink; actor?: Actor; request: { id: string } } } & Record<string, unknown>,
) => Promise<unknown>) & { name: string };
interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  resolver?: Resolver;
  middlewares: Middleware[];
}

const proceduresOf = (router: AnyRouter) => router._def.procedures as Record<string, { _def: ProcedureDef }>;

/** What a mutation threw, in a form that crosses processes (and is thrown again on the other side as the same). */
export function failureOf(error: unknown): WriteFailure {
  if (isDomainError(error)) {
    return {
      kind: 'domain',
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(isStoreUnavailable(error) ? { reason: error.reason } : {}),
    };
  }
  if (error instanceof TRPCError) return { kind: 'trpc', code: error.code, message: error.message };
  const e = error instanceof Error ? error : new Error(String(error));
  return { kind: 'fault', message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
}

export function errorOf(failure: WriteFailure): Error {
  switch (failure.kind) {
    case 'domain':
      if (failure.reason) return new StoreUnavailable(failure.reason);
      return new DomainError(failure.code as DomainError['code'], failure.message, failure.details);
    case 'trpc':
      return new TRPCError({ code: failure.code as TRPC_ERROR_CODE_KEY, message: failure.message });
    case 'fault': {
      const error = new Error(`${failure.message} (in the writer)`);
      if (failure.stack) error.stack = failure.stack;
      return error;
    }
  }
}

const patched = new WeakSet<AnyRouter>();

/**
 * Makes the router's mutations hand themselves to the writer when their context carries a writer link: the last step
 * of each (tRPC's call of the resolver, after authentication and the input contract) is replaced by the hand-over;
 * the output contract still runs here, on the writer's result.
 */
export function handMutationsToWriter(router: AnyRouter) {
  if (patched.has(router)) return;
  patched.add(router);
  for (const [path, procedure] of Object.entries(proceduresOf(router))) {
    const def = procedure._def;
    if (def.type !== 'mutation' || LOCAL.has(path)) continue;
    const last = def.middlewares.length - 1;
    const resolve = def.middlewares[last];
    if (resolve?.name !== 'resolveMiddleware') throw new Error(`${path}: its last middleware is not the resolver's`);
    const handed = async function handedToWriter(opts: Parameters<Middleware>[0]) {
      const { writer, actor } = opts.ctx;
      if (!writer || !actor) return resolve(opts);
      const data = await writer.call(path, opts.input, actor, opts.ctx.request.id);
      // The result shape of tRPC's own resolver step.
      return { marker: 'middlewareMarker', ok: true, data, ctx: opts.ctx };
    };
    def.middlewares[last] = handed;
  }
}

/** A worker's link to the writer, through the primary; also readies the router's mutations to use it. */
export function writerLink(link: PrimaryLink, router: AnyRouter): WriterLink {
  handMutationsToWriter(router);
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  let next = 1;
  link.onMessage((message) => {
    if (message.at !== 'write:done') return;
    const waiting = pending.get(message.call);
    if (!waiting) return;
    pending.delete(message.call);
    if (message.ok) waiting.resolve(message.data);
    else waiting.reject(errorOf(message.failure));
  });
  return {
    call(path, input, actor, requestId) {
      const call = next++;
      return new Promise((resolve, reject) => {
        pending.set(call, { resolve, reject });
        link.send({ at: 'write:call', call, path, input, actor, requestId });
      });
    },
  };
}

/**
 * The writer's side: runs the calls handed to it, each as its own request under the caller that made it. `stop` (at
 * shutdown, before the store closes) answers later calls unavailable, without running them, and resolves once the
 * calls under way have been answered.
 */
export function serveWrites(link: PrimaryLink, services: Services, router: AnyRouter) {
  const procedures = proceduresOf(router);
  let running = 0;
  let stopping = false;
  let idle: (() => void) | null = null;
  link.onMessage((message) => {
    if (message.at !== 'write:call') return;
    const { from, call, path, input, actor, requestId } = message;
    if (stopping) {
      link.send({ at: 'write:done', to: from, call, ok: false, failure: failureOf(new StoreUnavailable('unreachable')) });
      return;
    }
    const answer = (result: { ok: true; data: unknown } | { ok: false; failure: WriteFailure }) => {
      try {
        link.send({ at: 'write:done', to: from, call, ...result });
      } catch (error) {
        // A result that cannot cross (it should always): the caller gets a fault rather than no answer.
        link.send({ at: 'write:done', to: from, call, ok: false, failure: failureOf(error) });
      }
    };
    const def = procedures[path]?._def;
    const resolver = def?.type === 'mutation' ? def.resolver : undefined;
    if (!resolver) {
      answer({ ok: false, failure: { kind: 'fault', message: `no mutation ${path}` } });
      return;
    }
    const request = { id: requestId, actorId: actor.sessionId ?? actor.keyId };
    const ctx = { ...createInnerContext(services, null, request, { token: null }, actor), actor, stream: undefined };
    running++;
    resolver({ ctx, input, path, type: 'mutation', signal: undefined, getRawInput: () => Promise.resolve(input) })
      .then(
        (data) => answer({ ok: true, data }),
        (error: unknown) => answer({ ok: false, failure: failureOf(error) }),
      )
      .finally(() => {
        if (--running === 0) idle?.();
      });
  });
  link.send({ at: 'write:ready' });
  return {
    stop(): Promise<void> {
      stopping = true;
      return running === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve));
    },
  };
}
