// Boots the real server on a temp SQLite file (or a fresh PostgreSQL database) over real HTTP: in this process through
// startApp (the default, on either database), or as a child process of the built `agent-tasks serve` (`process: true`:
// signals, crashes, workers, NODE_OPTIONS; a PostgreSQL server the test names itself); restarts it.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startInProcess } from './in-process-server.ts';
import { type DatabaseOf, onPostgres, testDatabase } from './database.ts';
import { type ManualClock, manualClock } from './manual-clock.ts';
import { createTestDatabase } from './postgres.ts';
import { guardMs } from './time-guard.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');
/** The `agent-tasks` command as shipped (`pnpm build` makes dist/cli.js; `pnpm test` runs the build first). */
export const agentTasksBin = path.join(repoRoot, 'apps/server/bin/agent-tasks.mjs');
/** How long a server process may take to print its address before the start counts as failed. */
const startGuardMs = guardMs(6_000);

export interface RunningServer {
  url: string;
  adminKey: string;
  databaseFile: string;
  /** The DATABASE_URL the server runs on: file:<databaseFile>, or postgresql://… */
  databaseUrl: string;
  output: () => string;
  /** The running server process (to send it signals); only with `process: true`. */
  process: () => ChildProcess;
  /** SIGTERM, then SIGKILL after 5 s; resolves with the exit code (null when killed by a signal). */
  stop(): Promise<number | null>;
  restart(): Promise<void>;
  /** With `manualTime`: the app's clock, which moves only when the test advances it. */
  clock?: ManualClock;
  /** Delivers the notifications due now and resolves when they are done (in process only; with `manualTime` the
   * outbox is not polled, so this is the only way they go out). */
  deliver(): Promise<void>;
  /** In process: returns the tasks whose claim lease ran out by the app's clock, and resolves when done. */
  expireLeases?(): Promise<number>;
}

export interface StartOptions {
  /** A SQLite file of the test's own (tests whose point is SQLite itself). */
  databaseFile?: string;
  /** Run on another server's database (its file, or its PostgreSQL database), as a second server or a later start. */
  database?: DatabaseOf;
  /** Run on a fresh PostgreSQL database (tests/support/postgres.ts) instead of a SQLite file; the default is true when
   * AGENT_TASKS_TEST_DATABASE=postgres (the suite's PostgreSQL pass) unless a databaseFile or database is given. */
  postgres?: boolean;
  /** A second replica: a server process on the PostgreSQL database another one runs on (its `databaseUrl`). */
  databaseUrl?: string;
  /** Passed as AGENT_TASKS_ADMIN_KEY; null to let the server generate one. */
  adminKey?: string | null;
  /** Extra environment variables for the server process (kept across restarts; a PORT keeps the address across them). */
  env?: Record<string, string>;
  /** Run the built command as a child process instead of the app in this process: for tests whose point is the
   * process (signals, kill -9, workers, first-run banner, NODE_OPTIONS). */
  process?: boolean;
  /** The app on a manual clock (`server.clock.advance(ms)`), its notifications sent by `server.deliver()`: for tests
   * of delays (retry backoff, maximum age, ticket lifetime) that advance time instead of sleeping. Always the app in
   * this process, on SQLite unless `postgres` is given. */
  manualTime?: boolean;
}

export const tempDatabaseFile = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-')), 'test.db');

/** A new database of this run's kind (a temp SQLite file, or an empty PostgreSQL database), for `{ database }`. */
export async function freshDatabase(): Promise<DatabaseOf> {
  if (testDatabase() === 'postgres') return { databaseFile: '', databaseUrl: (await createTestDatabase()).url };
  const databaseFile = tempDatabaseFile();
  return { databaseFile, databaseUrl: `file:${databaseFile}` };
}

function spawnMain(databaseUrl: string, adminKey: string | null, extraEnv: Record<string, string> = {}) {
  // One process unless a test asks for workers (TEST_WORKERS=2 runs the whole suite against `--workers 2`).
  // Test receivers listen on 127.0.0.1: allowed as an internal receiver unless a test sets its own allow-list.
  const workers = process.env.TEST_WORKERS ?? '1';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AGENT_TASKS_WORKERS: workers,
    AGENT_TASKS_CHANNEL_ALLOWLIST: '127.0.0.1',
    ...extraEnv,
    DATABASE_URL: databaseUrl,
    PORT: extraEnv.PORT ?? '0',
    HOST: '127.0.0.1',
  };
  if (adminKey) env.AGENT_TASKS_ADMIN_KEY = adminKey;
  else delete env.AGENT_TASKS_ADMIN_KEY;
  const child = spawn(process.execPath, [agentTasksBin, 'serve'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    // Target: ready well within a second on a quiet machine; the bound is its failure guard (60 s by default). A fixed
    // 30 s here failed whole files (every test skipped after beforeAll) while a second suite ran beside this one.
    const timer = setTimeout(() => reject(new Error(`server did not start within ${startGuardMs} ms:\n${output}`)), startGuardMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/listening on (http:\/\/\S+)(?: \((\d+) workers)?/);
      // With workers the server listens once its writer is ready; a test that pins requests to each worker waits for
      // all of them.
      const workers = Number(match?.[2] ?? 0);
      if (match?.[1] && (output.match(/"msg":"worker \d+ ready/g)?.length ?? 0) >= workers) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return { child, url, output: () => output };
}

/** Resolves with the process's exit code once it has exited (null when a signal ended it). */
export const exitOf = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = exitOf(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const { database } = options;
  const postgres = database
    ? onPostgres(database)
    : options.databaseUrl !== undefined || (options.postgres ?? (testDatabase() === 'postgres' && options.databaseFile === undefined));
  const databaseFile = database?.databaseFile ?? (postgres ? '' : (options.databaseFile ?? tempDatabaseFile()));
  const databaseUrl =
    database?.databaseUrl ?? options.databaseUrl ?? (postgres ? (await createTestDatabase()).url : `file:${databaseFile}`);
  const adminKey = options.adminKey === undefined ? `atk_test_${randomBytes(16).toString('hex')}` : options.adminKey;
  if (options.manualTime) {
    if (options.process) throw new Error('manualTime runs the app in this process: it cannot be combined with process: true');
    // Asked for PostgreSQL (`postgres` given): the app in this process runs on a fresh PostgreSQL database of its own.
    if (postgres && options.postgres !== undefined) return startInProcess('', adminKey, options.env, manualClock(), databaseUrl);
    return startInProcess(options.databaseFile ?? tempDatabaseFile(), adminKey, options.env, manualClock());
  }
  // In this process unless the process is the point: `process: true`, TEST_WORKERS, or a PostgreSQL server named by the
  // test itself (`postgres: true`, a `databaseUrl`: the replica and PostgreSQL tests signal and kill those).
  const named = options.postgres === true || options.databaseUrl !== undefined;
  if (!options.process && !named && process.env.TEST_WORKERS === undefined) {
    return startInProcess(databaseFile, adminKey, options.env, undefined, postgres ? databaseUrl : undefined);
  }
  let current = spawnMain(databaseUrl, adminKey, options.env);
  const server: RunningServer = {
    url: await current.url,
    adminKey: adminKey ?? '',
    databaseFile,
    databaseUrl,
    output: () => current.output(),
    process: () => current.child,
    stop: () => stopChild(current.child),
    deliver: () => Promise.reject(new Error('deliver() reaches the app in this process: not a server run as a process')),
    async restart() {
      await stopChild(current.child);
      current = spawnMain(databaseUrl, adminKey, options.env);
      server.url = await current.url;
    },
  };
  return server;
}
