// Builds the running service: database (migrated), dependencies, first-run bootstrap, HTTP server, graceful shutdown.
import type { AddressInfo } from 'node:net';
import { type Deps, workspaces } from '@agent-tasks/core';
import { createAdaptorServer } from '@hono/node-server';
import { type ActorCache, actorCache } from './adapters/actor-cache.ts';
import { type LiveEvents, inProcessLiveEvents } from './adapters/live-events.ts';
import { nodeIds } from './adapters/node-ids.ts';
import { sha256Hasher } from './adapters/sha256-hasher.ts';
import { systemClock } from './adapters/system-clock.ts';
import { fetchWebhookSender } from './adapters/webhook-sender.ts';
import type { WriteGate } from './cluster/write-lock.ts';
import type { Services } from './context.ts';
import { openDb } from './db/client.ts';
import { migrationsDir as defaultMigrationsDir, webRoot as defaultWebRoot } from './db/database-file.ts';
import { migrationState, pendingMigrations } from './db/migration-state.ts';
import { applyMigrations } from './db/schema-engine.ts';
import { createHttpApp } from './http/http-app.ts';
import { admitted } from './http/admission.ts';
import { inFlightRequests } from './http/in-flight.ts';
import { type Logger, createLogger } from './logger.ts';
import { createMcpEndpoint } from './mcp/mcp-endpoint.ts';
import { moiraKit } from './mcp/mcp-server.ts';
import { revocationStamp } from './repositories/prisma-key-repository.ts';
import { prismaMcpSessionRepository } from './repositories/prisma-mcp-session-repository.ts';
import { prismaStore } from './repositories/prisma-store.ts';
import { startNotificationWorker } from './workers/notification-worker.ts';

export interface AppOptions {
  databaseFile: string;
  port?: number;
  host?: string;
  adminKey?: string | undefined;
  /** Base URL for links to run pages in notifications; defaults to the server's own URL. */
  publicUrl?: string | undefined;
  /** Notification delivery: first retry delay, longest delay, and how often the outbox is polled. */
  delivery?: { baseMs?: number; maxMs?: number; pollMs?: number };
  /** Browser origins allowed to call the API (CORS); empty for none, `*` for any (never with credentials). */
  corsOrigins?: string[];
  /** Requests worked on at once; the rest queue, first come first served. */
  maxConcurrent?: number;
  /** Longest wait in that queue before a request is answered 503 (overloaded). */
  maxQueueMs?: number;
  /** How long a write waits for another process's write lock before it is answered "busy" (503). */
  busyTimeoutMs?: number;
  /** How long a shutdown waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs?: number;
  /** Defaults to a silent logger (tests, embedding); the command passes its own. */
  log?: Logger;
  /** The built dashboard; defaults to apps/web/dist. */
  webRoot?: string;
  migrationsDir?: string;
  /** Live events; in-process unless given (the workers of `serve --workers N` relay them through the primary). */
  live?: LiveEvents;
  /** With several workers: turns at SQLite's write lock, granted by the primary. */
  writeGate?: WriteGate;
  /** Whether this process delivers notifications (with several workers, exactly one does). */
  notifications?: boolean;
  /** Told after this process revoked a key (no list) or dropped session tokens (the workers tell the others). */
  revoked?: (tokenHashes?: string[]) => void;
}

export interface App {
  url: string;
  services: Services;
  /** Set when this start created the first workspace: its admin key, to print once. */
  firstRun: { workspaceId: string; adminKey: string; generated: boolean } | null;
  /** Graceful: stop accepting, let in-flight requests finish (up to the deadline), end live streams and MCP
   * sessions, stop the notification worker, then close the database. */
  close(): Promise<void>;
}

export async function startApp(options: AppOptions): Promise<App> {
  const log = options.log ?? createLogger({ level: 'silent', format: 'json' });
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir;
  // The schema engine (WASM, ~0.4 s to load) runs only when a migration is pending.
  if (pendingMigrations(options.databaseFile, migrationsDir).length > 0) {
    const { applied } = await applyMigrations({ databaseFile: options.databaseFile, migrationsDir });
    log.info({ applied }, 'migrations applied');
  }
  const writer = await openDb(options.databaseFile, {
    busyTimeoutMs: options.busyTimeoutMs,
    ...(options.writeGate ? { writeGate: options.writeGate } : {}),
  });
  const reader = await openDb(options.databaseFile, { busyTimeoutMs: options.busyTimeoutMs });
  const live = options.live ?? inProcessLiveEvents();
  let actors: ActorCache | undefined;
  const deps: Deps = {
    store: prismaStore(writer, reader.db, {
      revoked: (tokenHashes) => {
        actors?.forget(tokenHashes);
        options.revoked?.(tokenHashes);
      },
    }),
    clock: systemClock,
    ids: nodeIds,
    hasher: sha256Hasher,
    events: live,
    publicUrl: options.publicUrl ?? '',
  };
  const cache = actorCache(deps, {
    revocationStamp: () => revocationStamp(reader.db),
    onError: (error) => log.warn({ err: error }, 'revocation poll failed'),
  });
  actors = cache;
  const services: Services = { deps, actors: cache, live, log };
  const firstRun = await workspaces.bootstrap(deps, options.adminKey);

  const inFlight = inFlightRequests();
  const mcpSessions = prismaMcpSessionRepository(reader.db);
  const mcp = createMcpEndpoint(services, mcpSessions);
  const moira = createMcpEndpoint(services, mcpSessions, moiraKit);
  const migrations = migrationState(reader.db, migrationsDir);
  const app = createHttpApp({
    services,
    inFlight,
    mcp,
    moira,
    corsOrigins: options.corsOrigins ?? [],
    webRoot: options.webRoot ?? defaultWebRoot,
    ready: () => migrations.check(),
  });
  const gate = admitted(app.fetch, {
    concurrency: options.maxConcurrent ?? 64,
    maxWaitMs: options.maxQueueMs ?? 5_000,
    onShed: (count) => log.warn({ shed: count }, `overloaded: answered ${count} requests 503 in the last interval`),
  });
  const server = createAdaptorServer({ fetch: gate.fetch, overrideGlobalObjects: false });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  deps.publicUrl ||= url;
  const worker =
    options.notifications === false
      ? null
      : startNotificationWorker(deps, fetchWebhookSender(), log, {
          baseMs: options.delivery?.baseMs ?? 1_000,
          maxMs: options.delivery?.maxMs ?? 60_000,
          pollMs: options.delivery?.pollMs ?? 250,
          batch: 50,
        });

  let closing: Promise<void> | undefined;
  async function shutdown() {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    live.close();
    const left = await inFlight.drain(options.shutdownTimeoutMs ?? 10_000);
    if (left > 0) log.warn({ left }, 'shutdown deadline passed with requests still running; closing their connections');
    await Promise.all([mcp.close(), moira.close()]);
    await worker?.stop();
    cache.stop();
    gate.stop();
    if ('closeAllConnections' in server) server.closeAllConnections();
    await closed;
    await Promise.all([writer.db.$disconnect(), reader.db.$disconnect()]);
  }

  return {
    url,
    services,
    firstRun,
    close: () => (closing ??= shutdown()),
  };
}
