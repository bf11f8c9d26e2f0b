// The baselines as their own processes, for the load generator: `tsx baseline-server.ts bare|bare-trpc|noop-trpc [port]`.
// bare: node:http reading and parsing the JSON body, answering a fixed body. bare-trpc: a tRPC mutation with a zod input
// of the 10-item todo list on plain `@hono/trpc-server` + `@hono/node-server` (nothing of ours). noop-trpc: the same
// mutation doing nothing, served by the server's own HTTP stack (front door, admission, Hono, request ids, access log,
// body limit, input guard, context).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp, createLogger, inFlightRequests, publicProcedure, requestPipeline, router } from '@agent-tasks/server';
import { createAdaptorServer } from '@hono/node-server';
import { bareHandler } from './bare-http-server.ts';
import { trpcServer } from '@hono/trpc-server';
import { initTRPC } from '@trpc/server';
import { Hono } from 'hono';
import { z } from 'zod';

/** What a todos.write answers, byte for byte the same size, for the bare server. */
const ANSWER = JSON.stringify({
  result: {
    data: {
      message: 'Updated todo list: 8 pending, 1 in progress, 1 completed',
      revision: 1234,
      counts: { pending: 8, inProgress: 1, completed: 1 },
    },
  },
});

const bare = () => http.createServer(bareHandler(ANSWER));

/** The same 10-item list contract in both tRPC baselines (zod parse of it: a few µs). */
const todoList = z.object({
  todos: z.array(z.object({ content: z.string().min(1).max(500), status: z.enum(['pending', 'in_progress', 'completed']) })).max(100),
});

/** Plain tRPC on plain Hono: what a call costs on this framework before anything of ours. */
function bareTrpc() {
  const t = initTRPC.create();
  const bareRouter = t.router({ noop: t.procedure.input(todoList).mutation(() => ({ ok: true as const })) });
  const app = new Hono().use('/trpc/*', trpcServer({ router: bareRouter, endpoint: '/trpc' }));
  // @hono/node-server's defaults, as a project that just uses it gets them.
  return createAdaptorServer({ fetch: app.fetch });
}

const noopRouter = router({
  noop: publicProcedure
    .input(todoList)
    .output(z.object({ ok: z.literal(true) }))
    .mutation(() => ({ ok: true as const })),
});

function noopTrpc() {
  // The same logger settings as `agent-tasks serve` by default: JSON lines at info, one per request.
  const log = createLogger({ level: process.env.LOG_LEVEL ?? 'info', format: 'json' });
  const app = createHttpApp({
    services: { log } as never,
    corsOrigins: [],
    inFlight: inFlightRequests(),
    mcp: { handle: async () => new Response(null, { status: 404 }) },
    moira: { handle: async () => new Response(null, { status: 404 }) },
    ready: async () => ({ ready: true }),
    webRoot: '/nonexistent',
    router: noopRouter,
  });
  // The same pipeline as `agent-tasks serve` with its defaults (front door, admission 64 at once and a 5 s line); the
  // token lookup answers at once (a cached caller), as it does for a token the server has seen.
  const pipeline = requestPipeline(app.fetch, {
    maxConcurrent: 64,
    maxQueueMs: 5_000,
    maxQueue: 2_000,
    unauthenticatedConcurrent: 8,
    frontDoor: {
      clientAddress: (peer) => peer,
      verify: async () => true,
      maxBodyBytes: 16 * 1024 * 1024,
      tooLargeMessage: 'Error: too large.',
      minBytesPerSecond: 1_024,
      graceMs: 3_000,
      maxUnauthenticatedBodies: 16,
      maxBufferedBytes: 256 * 1024 * 1024,
    },
    log,
  });
  return http.createServer(pipeline.listener);
}

const kind = process.argv[2];
const server = kind === 'bare' ? bare() : kind === 'bare-trpc' ? bareTrpc() : kind === 'noop-trpc' ? noopTrpc() : null;
if (!server) throw new Error('usage: baseline-server.ts bare|bare-trpc|noop-trpc [port]');
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stderr.write(`listening on http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
