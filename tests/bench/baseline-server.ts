// The baselines as their own processes, for the load generator: `tsx baseline-server.ts bare|noop-trpc [port]`.
// bare: node:http reading and parsing the JSON body, answering a fixed body. noop-trpc: a tRPC mutation that does
// nothing, served by the server's own HTTP stack (admission, Hono, @hono/trpc-server, request ids, access log, body
// limit).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { admitted, createHttpApp, createLogger, inFlightRequests, publicProcedure, router } from '@agent-tasks/server';
import { createAdaptorServer } from '@hono/node-server';
import { bareHandler } from './bare-http-server.ts';
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

const noopRouter = router({
  noop: publicProcedure
    .input(z.unknown())
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
  // Admission as `agent-tasks serve` sets it by default (64 at once, a 5 s line).
  const gate = admitted(app.fetch, { concurrency: 64, maxWaitMs: 5_000 });
  return createAdaptorServer({ fetch: (request, env) => gate.fetch(request, env), overrideGlobalObjects: false });
}

const kind = process.argv[2];
const server = kind === 'bare' ? bare() : kind === 'noop-trpc' ? noopTrpc() : null;
if (!server) throw new Error('usage: baseline-server.ts bare|noop-trpc [port]');
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stderr.write(`listening on http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
