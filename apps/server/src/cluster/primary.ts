// `serve --workers N`: the primary starts the writer worker alone (it migrates the file and creates the first workspace,
// as a single process does, and serves every request at first), says the server listens once it is ready, then forks
// the other workers (they share the port). It relays their messages, keeps the limits they share, replaces a worker
// that dies, and stops them all on SIGTERM/SIGINT; a writer that cannot start stops the server with its exit code.
import cluster, { type Worker } from 'node:cluster';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createHub } from './hub.ts';
import type { PoolName } from './limit-account.ts';
import { createLimitBank } from './limit-bank.ts';
import { type ToPrimary, isOurs } from './messages.ts';

/** Set in the environment of the one worker that runs the writes (cluster/writer.ts) and delivers notifications (so
 * each is delivered once). */
export const WRITER_ENV = 'AGENT_TASKS_WRITER';

/** Set in every worker's environment: the server's private directory (mode 0700) where the writer's socket is. */
export const SOCKET_DIR_ENV = 'AGENT_TASKS_SOCKET_DIR';

/**
 * Where the socket directory goes: the system's temporary directory, or /tmp when that path is too long for a Unix
 * socket's address (about 104 bytes, with `agent-tasks-XXXXXX/writer-NN.sock` after it).
 */
function socketBase(): string {
  const base = os.tmpdir();
  return Buffer.byteLength(base) <= 60 ? base : '/tmp';
}

/** More crashes than this within a minute and the primary gives up instead of forking forever. */
const MAX_CRASHES_PER_MINUTE = 10;

export function runPrimary(config: Config, log: Logger) {
  const hub = createHub();
  // Only this user may connect to the writer's socket; the directory goes when the primary exits.
  const socketDir = mkdtempSync(path.join(socketBase(), 'agent-tasks-'));
  process.once('exit', () => rmSync(socketDir, { recursive: true, force: true }));
  // The failed-authentication counters of every worker (auth/auth-guard.ts) live here.
  new RateLimiterClusterMaster();
  // The operator's limits, for all workers together (cluster/limit-account.ts lends them out).
  const bank = createLimitBank(
    {
      admission: config.maxConcurrent,
      unauthenticated: config.unauthenticated.maxConcurrent,
      bytes: config.bodies.maxBufferedBytes,
      unauthenticatedBodies: config.unauthenticated.maxBodies,
    } satisfies Record<PoolName, number>,
    (id, message) => {
      const worker = cluster.workers?.[id];
      if (worker?.isConnected()) worker.send(message);
    },
    config.workers,
  );
  const notifierOf = new Map<number, boolean>();
  const crashes: number[] = [];
  let stopping = false;
  /** Set once the first writer is ready (the server listens, and the other workers are forked). */
  let announced = false;
  /** The port the workers share, once one listens on it. */
  let port: number | undefined;

  function fork(notifier: boolean) {
    const worker = cluster.fork({ [SOCKET_DIR_ENV]: socketDir, ...(notifier ? { [WRITER_ENV]: '1' } : {}) });
    notifierOf.set(worker.id, notifier);
    hub.add(worker.id, (message) => {
      if (worker.isConnected()) worker.send(message);
    });
    // Asked back for credit once it says it hears those messages (`credit:hello`); not once it disconnects.
    worker.once('disconnect', () => bank.remove(worker.id));
    worker.on('message', (message: unknown) => {
      if (!isOurs(message)) return;
      if (message.at === 'write:ready') writerReady();
      if (!bank.receive(worker.id, message as ToPrimary)) hub.receive(worker.id, message as ToPrimary);
    });
    return worker;
  }

  cluster.on('listening', (_worker: Worker, address) => {
    port ??= address.port;
  });

  /** The writer listens for the others' writes: at the first, the server is ready (the first-run banner is out). */
  function writerReady() {
    if (announced || stopping) return;
    announced = true;
    const url = `http://${config.host}:${port ?? config.port}`;
    const readyMs = Math.round(performance.now());
    log.info(
      { url, workers: config.workers, database: config.databaseFile, readyMs },
      `agent-tasks listening on ${url} (${config.workers} workers, ready in ${readyMs} ms)`,
    );
    // Started now, not with the writer: on a machine with few cores, processes loading side by side slow each other.
    for (let i = 1; i < config.workers; i++) fork(false);
  }

  cluster.on('exit', (worker: Worker, code, signal) => {
    const notifier = notifierOf.get(worker.id) ?? false;
    notifierOf.delete(worker.id);
    hub.remove(worker.id);
    bank.remove(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log.info('stopped');
        process.exit(exitCode);
      }
      return;
    }
    // The first writer could not start (its error is on stderr, once): nothing to retry.
    if (!announced) process.exit(code || 1);
    if (code === 0 && signal === null) {
      // Stopped on its own request (or by an operator's signal to it alone): not replaced.
      log.warn({ worker: worker.id, pid: worker.process.pid }, 'worker exited');
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while (crashes.length > 0 && (crashes[0] ?? now) < now - 60_000) crashes.shift();
    if (crashes.length > MAX_CRASHES_PER_MINUTE) {
      log.fatal({ crashes: crashes.length }, 'workers keep dying; stopping the server');
      stop('crash loop', 1);
      return;
    }
    log.error({ worker: worker.id, pid: worker.process.pid, code, signal }, 'worker died; starting a new one');
    fork(notifier);
  });

  let exitCode = 0;
  function stop(reason: string, code = 0) {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    log.info({ signal: reason }, 'shutting down');
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    if (workers.length === 0) process.exit(exitCode);
    for (const worker of workers) worker.process.kill('SIGTERM');
    // A worker that does not finish its graceful shutdown in time is killed.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(exitCode || 1);
    }, config.shutdownTimeoutMs + 5_000).unref();
  }
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  // The writer first, alone: it migrates the file (only one process may run the schema engine) and creates the first
  // workspace; the others once it is ready.
  fork(true);
}
