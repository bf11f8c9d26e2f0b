// A server under test as its own process: `agent-tasks serve` (the built command) on a database, or one of the
// baselines; its URL, the pids of all its processes (primary and workers) and their CPU time.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../..');
export const agentTasksBin = path.join(repoRoot, 'apps/server/bin/agent-tasks.mjs');
const baselineScript = path.join(import.meta.dirname, 'baseline-server.ts');

export interface ServerProcess {
  url: string;
  /** The process and its children (the workers of `--workers N`). */
  pids(): number[];
  /** User + system CPU seconds of all its processes so far. */
  cpuSeconds(): number;
  /** The system (kernel) part of it: system calls, socket and file writes. */
  systemSeconds(): number;
  stop(): Promise<void>;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds of a process so far: user + system, or the system part alone. */
export function cpuOf(pid: number, only?: 'system'): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((only === 'system' ? 0 : Number(fields[11])) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

export function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Where a server's log goes: a file, as an operator's `agent-tasks serve >> server.log` (or a log collector) takes it.
 * Not a pipe into this process: reading a pipe with a Node stream costs this harness CPU that, on a 2-core machine,
 * the server and wrk share (measured: the no-op row at 0.70x of bare tRPC with its log piped here, 0.91x to a file,
 * the server's own CPU per request the same).
 */
function logFile() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-log-'));
  const file = path.join(dir, 'server.log');
  const fd = openSync(file, 'a');
  return { file, fd, remove: () => (closeSync(fd), rmSync(dir, { recursive: true, force: true })) };
}

/** The URL the server prints once it listens (in its log file or on stderr). */
async function started(child: ChildProcess, what: string, log: string): Promise<string> {
  let output = '';
  const listening = (text: string) => text.match(/listening on (http:\/\/[\d.:]+)/)?.[1];
  return new Promise((resolve, reject) => {
    const done = () => (clearTimeout(timer), clearInterval(poll));
    const timer = setTimeout(() => (done(), reject(new Error(`${what} did not start:\n${output}${readFileSync(log, 'utf8')}`))), 60_000);
    const poll = setInterval(() => {
      const url = listening(readFileSync(log, 'utf8'));
      if (!url) return;
      done();
      resolve(url);
    }, 20);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = listening(output);
      if (!url) return;
      done();
      resolve(url);
    });
    child.once('exit', (code) => {
      done();
      reject(new Error(`${what} exited with ${code}:\n${output}${readFileSync(log, 'utf8')}`));
    });
  });
}

function handle(child: ChildProcess, url: string, removeLog: () => void): ServerProcess {
  const pid = child.pid ?? 0;
  const pids = () => [pid, ...childrenOf(pid)];
  return {
    url,
    pids,
    cpuSeconds: () => pids().reduce((sum, p) => sum + cpuOf(p), 0),
    systemSeconds: () => pids().reduce((sum, p) => sum + cpuOf(p, 'system'), 0),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return (removeLog(), resolve());
        child.once('exit', () => (removeLog(), resolve()));
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
}

/**
 * `BENCH_SERVER_CPUS=0` (a taskset list): the server is started under taskset, so it and every worker it forks run on
 * those CPUs only. Run the bench itself under `taskset -c 1` and everything else (wrk, PostgreSQL) stays off them: each
 * side has a core of its own, and one's CPU per request is not inflated by the other's running on its core.
 */
const pinned = (command: string, args: string[]): [string, string[]] =>
  process.env.BENCH_SERVER_CPUS ? ['taskset', ['-c', process.env.BENCH_SERVER_CPUS, command, ...args]] : [command, args];

/** `agent-tasks serve` with its default logging (JSON lines at info, one per request) to a file, removed at its stop. */
export async function startAgentTasks(options: {
  /** A SQLite file, or (`databaseUrl`) a postgresql://… URL instead. */
  databaseFile: string;
  databaseUrl?: string;
  adminKey: string;
  workers: number;
  env?: Record<string, string>;
  /** Node flags for the server process, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** The command to run (another build's); else BENCH_BIN, else this build's. */
  bin?: string;
}) {
  // BENCH_BIN: another build of the command (an older commit's, say) measured in the same sitting.
  const bin = options.bin ?? (process.env.BENCH_BIN ? path.resolve(process.env.BENCH_BIN) : agentTasksBin);
  const log = logFile();
  const child = spawn(...pinned(process.execPath, [...(options.nodeArgs ?? []), bin, 'serve', '--workers', String(options.workers)]), {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...options.env,
      DATABASE_URL: options.databaseUrl ?? `file:${options.databaseFile}`,
      PORT: '0',
      HOST: '127.0.0.1',
      AGENT_TASKS_ADMIN_KEY: options.adminKey,
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', log.fd, 'pipe'],
  });
  // A server that never says it listens is stopped, not left behind.
  const url = await started(child, 'agent-tasks serve', log.file).catch((error: unknown) => {
    child.kill('SIGKILL');
    log.remove();
    throw error;
  });
  // Keep reading (and dropping) its stderr so the pipe never fills (it writes there only when something is wrong).
  child.stderr?.resume();
  return handle(child, url, log.remove);
}

/** A baseline server (baseline-server.ts): `bare` node:http, plain tRPC (`bare-trpc`) or a `noop-trpc` mutation on our stack. */
export async function startBaseline(kind: 'bare' | 'bare-trpc' | 'noop-trpc', nodeArgs: string[] = []) {
  const log = logFile();
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', baselineScript, kind, '0'], {
    cwd: repoRoot,
    env: { ...process.env, LOG_FORMAT: 'json' },
    stdio: ['ignore', log.fd, 'pipe'],
  });
  const url = await started(child, kind, log.file).catch((error: unknown) => {
    child.kill('SIGKILL');
    log.remove();
    throw error;
  });
  child.stderr?.resume();
  return handle(child, url, log.remove);
}
