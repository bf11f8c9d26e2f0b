// Builds the running service: database (migrated), dependencies, first-run bootstrap, and the HTTP server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Deps, workspaces } from '@agent-tasks/core';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { inProcessLiveEvents } from './adapters/live-events.ts';
import { nodeIds } from './adapters/node-ids.ts';
import { sha256Hasher } from './adapters/sha256-hasher.ts';
import { systemClock } from './adapters/system-clock.ts';
import { fetchWebhookSender } from './adapters/webhook-sender.ts';
import { serveRunLink } from './http/run-links.ts';
import { createMcpEndpoint } from './mcp/mcp-endpoint.ts';
import { moiraKit } from './mcp/mcp-server.ts';
import { startNotificationWorker } from './workers/notification-worker.ts';
import { createContextFactory, type Services } from './context.ts';
import { openDb } from './db/client.ts';
import { migrationsDir } from './db/database-file.ts';
import { applyMigrations } from './db/schema-engine.ts';
import { prismaStore } from './repositories/prisma-store.ts';
import { appRouter } from './routers/root.ts';

/** Largest request body accepted (an import of many task files is the biggest legitimate one). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface AppOptions {
  databaseFile: string;
  port?: number;
  host?: string;
  adminKey?: string | undefined;
  /** Base URL for links to run pages in notifications; defaults to the server's own URL. */
  publicUrl?: string | undefined;
  /** Notification delivery: first retry delay, longest delay, and how often the outbox is polled. */
  delivery?: { baseMs?: number; maxMs?: number; pollMs?: number };
}

export interface App {
  url: string;
  services: Services;
  /** Set when this start created the first workspace: its admin key, to print once. */
  firstRun: { workspaceId: string; adminKey: string; generated: boolean } | null;
  close(): Promise<void>;
}

export async function startApp(options: AppOptions): Promise<App> {
  await applyMigrations({ databaseFile: options.databaseFile, migrationsDir });
  const writer = await openDb(options.databaseFile);
  const reader = await openDb(options.databaseFile);
  const live = inProcessLiveEvents();
  const deps: Deps = {
    store: prismaStore(writer, reader),
    clock: systemClock,
    ids: nodeIds,
    hasher: sha256Hasher,
    events: live,
    publicUrl: options.publicUrl ?? '',
  };
  const services: Services = { deps, live };
  const firstRun = await workspaces.bootstrap(deps, options.adminKey);

  const trpc = createHTTPHandler({
    router: appRouter,
    createContext: createContextFactory(services),
    basePath: '/trpc/',
    maxBodySize: MAX_BODY_BYTES,
  });
  const mcp = createMcpEndpoint(services);
  const moira = createMcpEndpoint(services, moiraKit);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    } else if (path?.startsWith('/runs/')) {
      serveRunLink(deps, path, res);
    } else if (path === '/mcp') {
      void mcp.handle(req, res);
    } else if (path === '/mcp/moira') {
      void moira.handle(req, res);
    } else if (path?.startsWith('/trpc/')) {
      trpc(req, res);
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  deps.publicUrl ||= url;
  const worker = startNotificationWorker(deps, fetchWebhookSender(), {
    baseMs: options.delivery?.baseMs ?? 1_000,
    maxMs: options.delivery?.maxMs ?? 60_000,
    pollMs: options.delivery?.pollMs ?? 250,
    batch: 50,
  });

  return {
    url,
    services,
    firstRun,
    async close() {
      await worker.stop();
      await Promise.all([mcp.close(), moira.close()]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([writer.$disconnect(), reader.$disconnect()]);
    },
  };
}
