// `agent-tasks serve`: starts the server from the configuration — one process, or a primary and N workers sharing
// the port (`--workers N`) — prints the first-run key once, stops gracefully.
import cluster from 'node:cluster';
import path from 'node:path';
import { isDomainError } from '@agent-tasks/core';
import type { App } from '../app.ts';
import { type PrimaryLink, type ToWorker, isOurs } from '../cluster/messages.ts';
import { SOCKET_DIR_ENV, WRITER_ENV, runPrimary } from '../cluster/primary.ts';
import { type ConfigInput, ConfigError, loadConfig } from '../config.ts';
import { createLogger, flushLines } from '../logger.ts';

export interface ServeFlags {
  port?: string;
  host?: string;
  database?: string;
  publicUrl?: string;
  logLevel?: string;
  workers?: string;
}

/** The first-run key is a one-time banner on stdout, deliberately not a log line (logs are often shipped elsewhere). */
function printBanner(firstRun: App['firstRun']) {
  if (firstRun?.generated) {
    process.stdout.write(`First run: created workspace ${firstRun.workspaceId} with an admin key (shown only now):\n`);
    process.stdout.write(`  AGENT_TASKS_ADMIN_KEY=${firstRun.adminKey}\n`);
  } else if (firstRun) {
    process.stdout.write(`First run: created workspace ${firstRun.workspaceId}; its admin key is AGENT_TASKS_ADMIN_KEY.\n`);
  }
}

/** A worker's end of the IPC channel to its primary. */
function primaryLink(): PrimaryLink {
  const id = cluster.worker?.id ?? 0;
  return {
    id,
    send: (message) => {
      if (process.connected) process.send?.(message);
    },
    onMessage: (handler) => process.on('message', (message: unknown) => isOurs(message) && handler(message as ToWorker)),
  };
}

export async function serve(flags: ServeFlags): Promise<void> {
  const given: Partial<Record<keyof ConfigInput, string>> = {
    PORT: flags.port,
    HOST: flags.host,
    DATABASE_URL: flags.database,
    AGENT_TASKS_PUBLIC_URL: flags.publicUrl,
    LOG_LEVEL: flags.logLevel,
    AGENT_TASKS_WORKERS: flags.workers,
  };
  let config;
  try {
    config = loadConfig(process.env, Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const log = createLogger(config.log);
  // The banner is written straight to stdout: the log lines before it go out first.
  const printFirstRun = (firstRun: App['firstRun']) => {
    flushLines(log);
    printBanner(firstRun);
  };
  /** A start that failed: a refusal's own text on stderr, anything else logged with its stack; exit 1. */
  const cannotStart: (error: unknown) => never = (error) => {
    if (isDomainError(error)) process.stderr.write(`${error.message}\n`);
    else log.fatal({ err: error }, 'the server could not start');
    process.exit(1);
  };
  if (config.workers > 1 && cluster.isPrimary) {
    runPrimary(config, log);
    return;
  }

  const link = cluster.isWorker ? primaryLink() : null;
  // Loaded here, not by the primary of `--workers N` (it stays light, and starts the writer at once).
  const [
    { startApp },
    { clusterLiveEvents },
    { clusterCounts, clusterPools },
    { clusterWriteLock },
    writerModule,
    { writerLink },
    { appRouter },
  ] = await Promise.all([
    import('../app.ts'),
    import('../cluster/cluster-live-events.ts'),
    import('../cluster/limit-account.ts'),
    import('../cluster/write-lock.ts'),
    import('../cluster/writer.ts'),
    import('../cluster/writer-link.ts'),
    import('../routers/root.ts'),
  ]);
  const { serveWrites, writerRevocations } = writerModule;
  // One worker writes (and delivers notifications); the others hand it their mutations.
  const isWriter = link !== null && process.env[WRITER_ENV] === '1';
  let app: App;
  // The writer's revocations go to the primary (for the other workers) and with the answer to the call that made them.
  const revocations = writerRevocations();
  const forget = (tokenHashes?: string[]) => app.services.actors.forget(tokenHashes);
  try {
    app = await startApp({
      ...config,
      log,
      ...(link
        ? {
            live: clusterLiveEvents(link),
            writeGate: clusterWriteLock(link),
            notifications: isWriter,
            ...(isWriter ? {} : { writer: writerLink(link, appRouter, { holdMs: config.busyTimeoutMs, log, forget }) }),
            revoked: (tokenHashes) => {
              if (isWriter) revocations.record(tokenHashes);
              link.send({ at: 'auth:revoked', ...(tokenHashes ? { tokenHashes } : {}) });
            },
            // The operator's limits are the server's, not each worker's: the primary keeps them.
            shared: { pools: clusterPools(link), counts: clusterCounts(link), workers: config.workers },
          }
        : {}),
    });
  } catch (error) {
    cannotStart(error);
  }
  // performance.now() counts from the process's start: the figure covers module loading, migrations and listening.
  const readyMs = Math.round(performance.now());
  let writes: Awaited<ReturnType<typeof serveWrites>> | undefined;
  if (link) {
    link.onMessage((message) => {
      if (message.at === 'auth:forget') forget(message.tokenHashes);
    });
    if (isWriter) {
      // The first writer ran the first-run bootstrap (a later one finds the workspace there): its banner, before the
      // primary says the server listens (on this writer's `write:ready`).
      printFirstRun(app.firstRun);
      const dir = process.env[SOCKET_DIR_ENV];
      if (!dir) cannotStart(new Error(`${SOCKET_DIR_ENV} is not set: a writer worker is started by \`agent-tasks serve\``));
      const address = path.join(dir, `writer-${link.id}.sock`);
      writes = await serveWrites(link, app.services, appRouter, address, revocations).catch(cannotStart);
    }
    log.info({ worker: link.id, writer: isWriter, readyMs }, `worker ${link.id} ready (${readyMs} ms)`);
  } else {
    printFirstRun(app.firstRun);
    log.info(
      { url: app.url, database: config.databaseFile || 'postgresql', readyMs },
      `agent-tasks listening on ${app.url} (ready in ${readyMs} ms)`,
    );
  }

  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    // The writer answers the calls it is running for other workers before its store closes.
    Promise.resolve(writes?.stop())
      .then(() => app.close())
      .then(
        () => {
          log.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // A worker whose primary is gone (killed) stops too, rather than hold the database open without a listener.
  if (link) process.once('disconnect', () => stop('primary gone'));
}
