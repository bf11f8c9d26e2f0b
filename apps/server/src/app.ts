// Builds the running service: database (migrated), dependencies, first-run bootstrap, HTTP server, graceful shutdown.
import type { AddressInfo } from 'node:net';
import { type Clock, type Deps, workspaces } from '@agent-tasks/core';
import { createServer } from 'node:http';
import { type ActorCache, actorCache } from './adapters/actor-cache.ts';
import { type LiveEvents, inProcessLiveEvents } from './adapters/live-events.ts';
import { liveStreams } from './adapters/live-streams.ts';
import { nodeIds } from './adapters/node-ids.ts';
import { sha256Hasher } from './adapters/sha256-hasher.ts';
import { systemClock } from './adapters/system-clock.ts';
import { parseAllowList } from './adapters/receiver-address.ts';
import { readCache } from './adapters/read-cache.ts';
import { fairPause } from './adapters/fair-pause.ts';
import { authGuard } from './auth/auth-guard.ts';
import { streamTickets } from './auth/stream-tickets.ts';
import { fetchWebhookSender } from './adapters/webhook-sender.ts';
import type { WriteGate } from './cluster/write-lock.ts';
import type { WriterLink } from './cluster/writer.ts';
import type { Services } from './context.ts';
import { DEFAULT_BUSY_TIMEOUT_MS, type DbHandle, openDb } from './db/client.ts';
import { postgresMigrationsDir } from './db/postgres-schema.ts';
import { migrationsDir as defaultMigrationsDir, webRoot as defaultWebRoot } from './db/database-file.ts';
import { migrationState, pendingMigrations } from './db/migration-state.ts';
import { applyMigrations } from './db/schema-engine.ts';
import { MAX_BODY_BYTES, TOO_LARGE_MESSAGE, createHttpApp } from './http/http-app.ts';
import { clientAddressReader } from './http/client-address.ts';
import { type RequestPools, requestPipeline } from './http/request-pipeline.ts';
import type { SharedCounts } from './http/shared-limits.ts';
import { inFlightRequests } from './http/in-flight.ts';
import { runPageUrl } from './http/run-page-url.ts';
import { type Logger, createLogger } from './logger.ts';
import { createMcpEndpoint } from './mcp/mcp-endpoint.ts';
import { moiraKit } from './mcp/mcp-server.ts';
import { revocationStamp } from './repositories/prisma-key-repository.ts';
import { prismaMcpSessionRepository } from './repositories/prisma-mcp-session-repository.ts';
import { prismaStore } from './repositories/prisma-store.ts';
import { startNotificationWorker } from './workers/notification-worker.ts';
import { repeatedFailureLog } from './repeated-failure-log.ts';
import { answerClientErrors } from './http/client-errors.ts';
import { leaseTimer } from './adapters/lease-timer.ts';

export interface AppOptions {
  databaseFile: string;
  /** PostgreSQL instead of the SQLite file (migrations from prisma/migrations-postgres, one write per transaction). */
  postgresUrl?: string | undefined;
  port?: number;
  host?: string;
  adminKey?: string | undefined;
  /** Base URL for links to run pages in notifications; defaults to the server's own URL. */
  publicUrl?: string | undefined;
  /** Notification delivery: first retry delay, longest delay, how often the outbox is polled (null: never on a timer,
   * only through `deliver()`), how long a message is retried before it is given up, how many channels are
   * delivered to at once, and how many of them one workspace's at most. */
  delivery?: { baseMs?: number; maxMs?: number; pollMs?: number | null; maxAgeMs?: number; lanes?: number; workspaceLanes?: number };
  /** The time for the domain (records, retry backoff, stream tickets); the system clock unless a test advances its own. */
  clock?: Clock;
  /** How often the lease timer looks for leases other processes gave (ms; default 2,000). */
  leaseSweepMs?: number;
  /** Reaching receivers: connect and total timeouts, answer bytes read, internal addresses allowed besides public ones. */
  webhooks?: { connectTimeoutMs?: number; timeoutMs?: number; maxResponseBytes?: number; allowList?: string[] };
  /** Browser origins allowed to call the API (CORS); empty for none, `*` for any (never with credentials). */
  corsOrigins?: string[];
  /** How long a shutdown waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs?: number;
  /** How long a client may take to send its headers, its whole request, and how long an idle keep-alive connection stays. */
  sockets?: { headersTimeoutMs?: number; requestTimeoutMs?: number; keepAliveTimeoutMs?: number };
  /** MCP sessions: at most `perKey` per key, `perWorkspace` per workspace and `total` in all (a workspace under its share
   * of `total` gets room by closing the least recently used session of one over its share); closed after `idleMs`
   * without a request. */
  mcp?: { perKey?: number; perWorkspace?: number; total?: number; idleMs?: number };
  /** Live streams (SSE) this process serves at once: per key (100), per workspace (500), in all (2,000); 429 past one. */
  streams?: { perKey?: number; perWorkspace?: number; total?: number };
  /** How long a write waits for another process's write lock before it is answered busy (503); default 5 s. */
  busyTimeoutMs?: number;
  /** Task imports: the lease on a staging list (10 s, and at least twice the busy timeout) and how long an import waits
   * for another before it is answered 409 with Retry-After (5 s). */
  imports?: { leaseMs?: number; waitMs?: number };
  /** Load shedding: API requests worked on at once (64; the rest queue, first come first served), the longest wait in
   * line (5 s) and its length (2,000); past either, 503 (overloaded). */
  maxConcurrent?: number;
  maxQueueMs?: number;
  maxQueue?: number;
  /** Most calls in one tRPC batch request (default 50). */
  maxBatch?: number;
  /** The brake on failed authentications (defaults: 30 per address group, 10 per token prefix, a 60 s window; 100 per
   * second in all; IPv4 addresses grouped by /32, IPv6 by /64). */
  authFailures?: {
    perAddress?: number;
    perKeyPrefix?: number;
    windowSeconds?: number;
    perSecond?: number;
    ipv4Bits?: number;
    ipv6Bits?: number;
  };
  /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client; none by default. */
  trustedProxies?: string[];
  /** Requests not yet authenticated: worked on at once in their own line (8), bodies read at once (16). */
  unauthenticated?: { maxConcurrent?: number; maxBodies?: number };
  /** Request bodies: at least this many bytes per second (1,024) once the grace period (3 s) has passed; at most this
   * many bytes of bodies being read at once, all requests together (256 MiB). */
  bodies?: { minBytesPerSecond?: number; graceMs?: number; maxBufferedBytes?: number };
  /** How long a stream ticket stays valid (default 30 s). */
  streamTicketTtlMs?: number;
  /** Defaults to a silent logger (tests, embedding); the command passes its own. */
  log?: Logger;
  /** The built dashboard; defaults to apps/web/dist. */
  webRoot?: string;
  migrationsDir?: string;
  /** Live events; in-process unless given (the workers of `serve --workers N` relay them through the primary). */
  live?: LiveEvents;
  /** With several workers: turns at SQLite's write lock, granted by the primary. */
  writeGate?: WriteGate;
  /** With several workers, in all but the writer: the mutations are handed to the writer worker to run. */
  writer?: WriterLink;
  /** Whether this process delivers notifications (with several workers, exactly one does). */
  notifications?: boolean;
  /** Told after this process revoked a key (no list) or dropped session tokens (the workers tell the others). */
  revoked?: (tokenHashes?: string[]) => void;
  /** With several workers: the limits held by the primary for all of them (admission, bodies, live streams), and how
   * many workers share them (each keeps its share of the line). */
  shared?: { pools: RequestPools; counts: SharedCounts; workers: number };
}

/** The advisory lock of the first-run bootstrap on PostgreSQL (any fixed 64-bit number). */
const BOOTSTRAP_LOCK = 7_411_202_612;

/** Runs `work` holding a PostgreSQL session-level advisory lock on `db` (a pool of one connection). */
async function underSessionLock<T>(db: DbHandle['db'], key: number, work: () => Promise<T>): Promise<T> {
  await db.$executeRaw`SELECT pg_advisory_lock(${key}::bigint)`;
  try {
    return await work();
  } finally {
    await db.$executeRaw`SELECT pg_advisory_unlock(${key}::bigint)`;
  }
}

export interface App {
  url: string;
  services: Services;
  /** Set when this start created the first workspace: its admin key, to print once. */
  firstRun: { workspaceId: string; adminKey: string; generated: boolean } | null;
  /** Graceful: stop accepting, let in-flight requests finish (up to the deadline), end live streams and MCP
   * sessions, stop the notification worker, then close the database. */
  close(): Promise<void>;
  /** Delivers the notifications due now (by the clock) and resolves when those deliveries are done. */
  deliver(): Promise<void>;
  /** Returns the tasks whose claim lease ran out by the clock now; resolves with how many. */
  expireLeases(): Promise<number>;
}

export async function startApp(options: AppOptions): Promise<App> {
  const log = options.log ?? createLogger({ level: 'silent', format: 'json' });
  const postgresUrl = options.postgresUrl;
  const migrationsDir = options.migrationsDir ?? (postgresUrl ? postgresMigrationsDir : defaultMigrationsDir);
  let writer: DbHandle;
  let reader: DbHandle;
  if (postgresUrl) {
    // Loaded only here, so a SQLite start does not load the PostgreSQL driver. Deploy is a no-op (~15 ms) when nothing is pending.
    const [{ applyPostgresMigrations }, { openPostgresDb }] = await Promise.all([
      import('./db/postgres-migrations.ts'),
      import('./db/postgres-client.ts'),
    ]);
    const { applied } = await applyPostgresMigrations({ url: postgresUrl, migrationsDir });
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    // A write waits for a lock held elsewhere up to the busy timeout, as on SQLite; then it is answered "busy" (503).
    // (PostgreSQL reads lock_timeout 0 as "wait forever", SQLite's 0 as "never wait": the least here is 1 ms.)
    const lockTimeoutMs = Math.max(1, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
    writer = await openPostgresDb(postgresUrl, { max: 1, lockTimeoutMs });
    reader = await openPostgresDb(postgresUrl, { lockTimeoutMs });
  } else {
    // The schema engine (WASM, ~0.4 s to load) runs only when a migration is pending.
    if (pendingMigrations(options.databaseFile, migrationsDir).length > 0) {
      const { applied } = await applyMigrations({ databaseFile: options.databaseFile, migrationsDir });
      log.info({ applied }, 'migrations applied');
    }
    writer = await openDb(options.databaseFile, {
      busyTimeoutMs: options.busyTimeoutMs,
      ...(options.writeGate ? { writeGate: options.writeGate } : {}),
      // The process that runs the writes checkpoints the WAL, on a thread; a worker that hands its writes on leaves it
      // to that one (its few writes of its own do not checkpoint on its event loop either).
      checkpoints: options.writer ? 'elsewhere' : { onFailure: (problem: string) => log.warn({ problem }, 'WAL checkpoint failed') },
    });
    reader = await openDb(options.databaseFile, { busyTimeoutMs: options.busyTimeoutMs });
  }
  // On PostgreSQL every replica hears the others' events through LISTEN/NOTIFY (one replica or many: the same path).
  const pgLive =
    !options.live && postgresUrl ? await (await import('./adapters/postgres-live-events.ts')).postgresLiveEvents(postgresUrl, log) : null;
  const live = options.live ?? pgLive ?? inProcessLiveEvents();
  let actors: ActorCache | undefined;
  // Task list pages kept until their list's next change (each process its own; the stamp is read from the database).
  const kept = readCache();
  // Run links in notifications point here: the configured public URL, else the address the server listens on.
  let publicUrl = options.publicUrl ?? '';
  const deps: Deps = {
    store: prismaStore(writer, reader.db, {
      // Writes that queue share a transaction on either database (savepoints on the writer's one connection).
      // Any number of replicas may share a PostgreSQL database: outbox claims are leased for longer than one attempt.
      ...(postgresUrl ? { replicas: { claimLeaseMs: (options.webhooks?.timeoutMs ?? 10_000) + 50_000 } } : {}),
      revoked: (tokenHashes) => {
        actors?.forget(tokenHashes);
        options.revoked?.(tokenHashes);
      },
    }),
    clock: options.clock ?? systemClock,
    ids: nodeIds,
    hasher: sha256Hasher,
    events: live,
    runPage: (runId) => runPageUrl(publicUrl, runId),
    // better-sqlite3 answers at once: a long transaction is one chain of promises that never lets a socket in.
    pause: fairPause(),
    readCache: kept,
  };
  const streams = liveStreams(
    deps,
    live,
    {
      perKey: options.streams?.perKey ?? 100,
      perWorkspace: options.streams?.perWorkspace ?? 500,
      total: options.streams?.total ?? 2_000,
    },
    log,
    options.shared?.counts,
  );
  const cache = actorCache(deps, {
    revocationStamp: () => revocationStamp(reader.db),
    onError: repeatedFailureLog(log, 'warn', 'revocation poll failed'),
    // Tokens dropped (here or in another worker) end their streams; a revocation seen in the database checks them all.
    onForget: (tokenHashes) => streams.forget(tokenHashes),
  });
  actors = cache;
  const channelSender = fetchWebhookSender({
    connectTimeoutMs: options.webhooks?.connectTimeoutMs ?? 3_000,
    timeoutMs: options.webhooks?.timeoutMs ?? 10_000,
    maxResponseBytes: options.webhooks?.maxResponseBytes ?? 16_384,
    allow: parseAllowList(options.webhooks?.allowList ?? []),
  });
  const guard = authGuard(
    {
      perAddress: options.authFailures?.perAddress ?? 30,
      perKeyPrefix: options.authFailures?.perKeyPrefix ?? 10,
      windowSeconds: options.authFailures?.windowSeconds ?? 60,
      perSecond: options.authFailures?.perSecond ?? 100,
      ipv4Bits: options.authFailures?.ipv4Bits ?? 32,
      ipv6Bits: options.authFailures?.ipv6Bits ?? 64,
    },
    sha256Hasher,
  );
  const tickets = streamTickets(reader.db, sha256Hasher, options.streamTicketTtlMs ?? 30_000, () => deps.clock.now());
  // A live import writes its staging list at least once per busy timeout (a write waits no longer for a lock).
  const imports = {
    leaseMs: Math.max(options.imports?.leaseMs ?? 10_000, 2 * (options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS)),
    waitMs: options.imports?.waitMs ?? 5_000,
  };
  const services: Services = {
    deps,
    actors: cache,
    live,
    streams,
    log,
    channelSender,
    imports,
    guard,
    tickets,
    ...(options.writer ? { writer: options.writer } : {}),
  };
  // Replicas started together on an empty PostgreSQL database: one creates the first workspace, under a session lock
  // on the writer's one connection (the bootstrap's transaction runs on it too).
  const bootstrap = () => workspaces.bootstrap(deps, options.adminKey);
  const firstRun = postgresUrl ? await underSessionLock(writer.db, BOOTSTRAP_LOCK, bootstrap) : await bootstrap();

  const inFlight = inFlightRequests();
  // MCP sessions live in the database (any worker serves them); the caps count both endpoints' open sessions.
  const mcpSessions = prismaMcpSessionRepository(reader.db, {
    postgres: Boolean(postgresUrl),
    turnWaitMs: Math.max(1, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS),
  });
  const mcpLimits = {
    perKey: options.mcp?.perKey ?? 20,
    perWorkspace: options.mcp?.perWorkspace ?? 100,
    total: options.mcp?.total ?? 500,
    idleMs: options.mcp?.idleMs ?? 600_000,
  };
  const mcp = createMcpEndpoint(services, mcpSessions, mcpLimits);
  const moira = createMcpEndpoint(services, mcpSessions, mcpLimits, moiraKit);
  const migrations = migrationState(reader.db, migrationsDir);
  const app = createHttpApp({
    services,
    inFlight,
    mcp,
    moira,
    corsOrigins: options.corsOrigins ?? [],
    webRoot: options.webRoot ?? defaultWebRoot,
    ready: () => migrations.check(),
    ...(options.maxBatch ? { maxBatch: options.maxBatch } : {}),
    answerText: kept.answerText,
  });
  // In front of the app: the client's address, its token looked up from the headers, its body read at a minimum rate;
  // then admission.
  const pipeline = requestPipeline(app.fetch, {
    maxConcurrent: options.maxConcurrent ?? 64,
    maxQueueMs: options.maxQueueMs ?? 5_000,
    maxQueue: options.maxQueue ?? 2_000,
    unauthenticatedConcurrent: options.unauthenticated?.maxConcurrent ?? 8,
    frontDoor: {
      clientAddress: clientAddressReader(options.trustedProxies ?? []),
      verify: async (address, token) => {
        if (!(await guard.promising(address, token))) return false;
        await cache.resolve(token);
        return true;
      },
      maxBodyBytes: MAX_BODY_BYTES,
      tooLargeMessage: TOO_LARGE_MESSAGE,
      minBytesPerSecond: options.bodies?.minBytesPerSecond ?? 1_024,
      graceMs: options.bodies?.graceMs ?? 3_000,
      maxUnauthenticatedBodies: options.unauthenticated?.maxBodies ?? 16,
      maxBufferedBytes: options.bodies?.maxBufferedBytes ?? 256 * 1024 * 1024,
    },
    ...(options.shared ? { shared: { pools: options.shared.pools, workers: options.shared.workers } } : {}),
    log,
  });
  // Sockets that never finish their headers (or their request) are closed, checked every second, instead of being held.
  const server = createServer(
    {
      headersTimeout: options.sockets?.headersTimeoutMs ?? 10_000,
      requestTimeout: options.sockets?.requestTimeoutMs ?? 30_000,
      keepAliveTimeout: options.sockets?.keepAliveTimeoutMs ?? 5_000,
      connectionsCheckingInterval: 1_000,
    },
    pipeline.listener,
  );
  answerClientErrors(server, log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  publicUrl ||= url;
  const worker =
    options.notifications === false
      ? null
      : startNotificationWorker(deps, channelSender, log, {
          baseMs: options.delivery?.baseMs ?? 1_000,
          maxMs: options.delivery?.maxMs ?? 60_000,
          pollMs: options.delivery?.pollMs === null ? null : (options.delivery?.pollMs ?? 250),
          maxAgeMs: options.delivery?.maxAgeMs ?? 86_400_000,
          lanes: options.delivery?.lanes ?? 16,
          workspaceLanes: options.delivery?.workspaceLanes ?? 4,
          // A receiver that did not answer within the attempt's timeout is tried again no sooner than twice that.
          afterTimeoutMs: 2 * (options.webhooks?.timeoutMs ?? 10_000),
          batch: 50,
          claims: Boolean(postgresUrl),
          jitter: Math.random,
        });

  // Claim leases end at their moment on this process's timer (and a sweep finds other processes' leases).
  const leases = leaseTimer(deps, log, options.leaseSweepMs === undefined ? {} : { sweepMs: options.leaseSweepMs });
  deps.leases = leases;

  let closing: Promise<void> | undefined;
  async function shutdown() {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // No lease sweep starts from here on; one under way may finish while the connections close, before the store goes.
    const leasesStopped = leases.stop();
    live.close();
    streams.close();
    const left = await inFlight.drain(options.shutdownTimeoutMs ?? 10_000);
    if (left > 0) log.warn({ left }, 'shutdown deadline passed with requests still running; closing their connections');
    await Promise.all([mcp.close(), moira.close()]);
    await worker?.stop();
    cache.stop();
    pipeline.stop();
    if ('closeAllConnections' in server) server.closeAllConnections();
    await closed;
    await leasesStopped;
    await writer.checkpointer?.stop();
    await Promise.all([writer.db.$disconnect(), reader.db.$disconnect(), pgLive?.disconnect()]);
  }

  return {
    url,
    services,
    firstRun,
    close: () => (closing ??= shutdown()),
    deliver: async () => worker?.kick(),
    expireLeases: () => leases.expireDue(),
  };
}
