// One writer for `serve --workers N`: every other worker takes the request, authenticates the caller and validates the
// mutation's input, then hands the call (procedure, validated input, caller, request id) over its own socket to the
// writer worker (the primary only tells where it listens), which runs it in its own group commit and answers (a run's
// view by its source, which the worker makes from its store); the worker validates the output, answers and logs the
// request as if it had run it (the worker's side: writer-link.ts).
// Reads stay local to each worker. SQLite takes one write at a time: with one process writing, writes no longer wait
// for turns at the write lock, and the writes of all workers are committed together.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { rmSync } from 'node:fs';
import net from 'node:net';
import {
  type Actor,
  type Deps,
  DomainError,
  type RunViewSource,
  StoreUnavailable,
  isDomainError,
  isStoreUnavailable,
  viewFromSource,
} from '@agent-tasks/core';
import { type AnyRouter, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { type Services, createInnerContext } from '../context.ts';
import { repeatedFailureLog } from '../repeated-failure-log.ts';
import { type JsonLines, jsonLines } from './json-lines.ts';
import {
  type PrimaryLink,
  type WriteAnswer,
  type WriteCall,
  type WriteFailure,
  WRITE_PROTOCOL,
  answerLine,
  isWriteCall,
  resultOf,
  isWriteHello,
} from './messages.ts';

/** Mutations that stay in the worker that took them: a stream ticket is issued for the request's own token. */
const LOCAL = new Set(['auth.streamTicket']);

/** A worker's way to the writer. */
export interface WriterLink {
  /** Runs mutation `path` on the writer; resolves with its result (boxed: a lazy answer is not asked for its `then`)
   * or rejects with what it threw. */
  call(path: string, input: unknown, actor: Actor, requestId: string): Promise<{ data: unknown } | { view: RunViewSource }>;
}

type Resolver = (opts: Record<string, unknown>) => Promise<unknown>;
type Middleware = ((
  opts: { ctx: Record<string, unknown> & { deps: Deps; writer?: WriterLink; actor?: Actor; request: { id: string } } } & Record<
    string,
    unknown
  >,
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

/** The run's view the writer answered with as its source, made here from this worker's store (the write is committed). */
async function viewOf(deps: Deps, source: RunViewSource) {
  const view = await viewFromSource(deps, source);
  if (!view) throw new Error(`run ${source.runId} at version ${source.version}, just written by the writer, cannot be read here`);
  return view;
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
      const answer = await writer.call(path, opts.input, actor, opts.ctx.request.id);
      const data = 'view' in answer ? await viewOf(opts.ctx.deps, answer.view) : answer.data;
      // The result shape of tRPC's own resolver step.
      return { marker: 'middlewareMarker', ok: true, data, ctx: opts.ctx };
    };
    def.middlewares[last] = handed;
  }
}

/** The revocations the writer made, numbered, for the answers of the calls running meanwhile. */
export interface WriterRevocations {
  /** Told of each revocation (token hashes, or every token). */
  record(tokenHashes?: string[]): void;
  /** The number of the next revocation. */
  mark(): number;
  /** The revocations since `mark` (a call's answer carries those made while it ran; more than its own is harmless). */
  since(mark: number): (string[] | null)[];
}

/** Keeps the last 1,000 revocations (calls run for milliseconds; a revocation is rare). */
export function writerRevocations(): WriterRevocations {
  const kept: (string[] | null)[] = [];
  let first = 0;
  return {
    record(tokenHashes) {
      kept.push(tokenHashes ?? null);
      if (kept.length > 1_000) {
        kept.shift();
        first++;
      }
    },
    mark: () => first + kept.length,
    // A mark older than what is kept: every token (forgetting more than needed costs a lookup, never a wrong answer).
    since: (mark) => (mark < first ? [null] : kept.slice(mark - first)),
  };
}

/** Longest line either side reads: the largest call (a 16 MiB request body, its text escaped again) with room to spare. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/**
 * The writer's side: listens at `address` (a Unix socket in the server's private directory) for the other workers'
 * calls, from a connection whose first line is this writer's secret (told to the workers through the primary), and
 * runs each as its own request under the caller that made it; tells the primary where it listens once it does.
 * `stop` (at shutdown, before the store closes) answers later calls unavailable, without running them, and resolves
 * once the calls under way have been answered.
 */
export async function serveWrites(
  link: PrimaryLink,
  services: Services,
  router: AnyRouter,
  address: string,
  revocations: WriterRevocations,
) {
  const procedures = proceduresOf(router);
  const secret = randomBytes(32).toString('base64url');
  const log = services.log;
  let running = 0;
  let stopping = false;
  const idle: (() => void)[] = [];
  const otherVersion = repeatedFailureLog(
    log,
    'warn',
    'writer: a worker of another version was turned away; restart the server to run one version',
  );
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined); // a worker that died: its calls' answers have nowhere to go
    let known = false;
    const lines: JsonLines<WriteAnswer> = jsonLines<WriteAnswer>(socket, {
      lineOf: answerLine,
      maxLineChars: MAX_LINE_CHARS,
      onBadLine: (line, problem) => log.warn({ line, problem }, 'writer: a line from a worker was ignored'),
      onMessage(message) {
        if (!known) {
          const secretKnown = isWriteHello(message) && sameSecret(message.hello, secret);
          if (secretKnown && message.protocol === WRITE_PROTOCOL) return void (known = true);
          // A worker of another version (forked from code upgraded in place): its calls are answered unavailable by
          // its own link (503, to be retried) rather than with answers it would misread.
          if (secretKnown) otherVersion(new Error(`its lines are version ${message.protocol ?? 1}, this writer's ${WRITE_PROTOCOL}`));
          else log.warn('writer: a connection without the secret was closed');
          return void socket.destroy();
        }
        if (!isWriteCall(message)) throw new Error('not a call');
        run(message, (answer) => lines.send(answer));
      },
    });
  });
  function run({ call, path, input, actor, requestId }: WriteCall, send: (answer: WriteAnswer) => void) {
    if (stopping) return send({ call, ok: false, failure: failureOf(new StoreUnavailable('unreachable')) });
    const mark = revocations.mark();
    const answer = (result: ReturnType<typeof resultOf> | { ok: false; failure: WriteFailure }) => {
      const revoked = revocations.since(mark);
      const made = revoked.length > 0 ? { revoked } : {};
      try {
        send({ call, ...made, ...result });
      } catch (error) {
        // A result that cannot cross (it should always): the caller gets a fault rather than no answer.
        send({ call, ...made, ok: false, failure: failureOf(error) });
      }
    };
    const def = procedures[path]?._def;
    const resolver = def?.type === 'mutation' ? def.resolver : undefined;
    if (!resolver) return answer({ ok: false, failure: { kind: 'fault', message: `no mutation ${path}` } });
    const request = { id: requestId, actorId: actor.sessionId ?? actor.keyId };
    const ctx = { ...createInnerContext(services, null, request, { token: null }, actor), actor, stream: undefined };
    running++;
    resolver({ ctx, input, path, type: 'mutation', signal: undefined, getRawInput: () => Promise.resolve(input) })
      .then(
        // A run's view goes as its source: the calling worker makes it from the store (28 KB less to write here).
        (data) => answer(resultOf(data)),
        (error: unknown) => answer({ ok: false, failure: failureOf(error) }),
      )
      .finally(() => {
        if (--running === 0) for (const done of idle.splice(0)) done();
      });
  }
  rmSync(address, { force: true }); // left by a writer that was killed
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address, () => {
      server.off('error', reject);
      server.on('error', (error) => log.warn({ err: error }, 'writer: its socket failed'));
      resolve();
    });
  });
  link.send({ at: 'write:ready', address, secret });
  return {
    stop(): Promise<void> {
      stopping = true;
      const done = running === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve));
      // The answers under way still go out on their connections; no new connection is taken.
      return done.then(() => void server.close());
    },
  };
}

/** Compares the secrets in constant time. */
function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
