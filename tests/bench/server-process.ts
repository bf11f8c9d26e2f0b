// A server under test as its own process: `agent-tasks serve` (the built command) on a database, or one of the
// baselines; its URL, the pids of all its processes (primary and workers) and their CPU time.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const agentTasksBin = path.join(repoRoot, 'apps/server/bin/agent-tasks.mjs');
const baselineScript = path.join(import.meta.dirname, 'baseline-server.ts');

export interface ServerProcess {
  url: string;
  /** The process and its children (the workers of `--workers N`). */
  pids(): number[];
  /** User + system CPU seconds of all its processes so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

export function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
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

async function started(child: ChildProcess, what: string): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/listening on (http:\/\/[\d.:]+)/);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${output}`));
    });
  });
}

function handle(child: ChildProcess, url: string): ServerProcess {
  const pid = child.pid ?? 0;
  const pids = () => [pid, ...childrenOf(pid)];
  return {
    url,
    pids,
    cpuSeconds: () => pids().reduce((sum, p) => sum + cpuOf(p), 0),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
}

/** `agent-tasks serve` with its default logging (JSON lines at info, one per request), output discarded. */
export async function startAgentTasks(options: {
  /** A SQLite file, or (`databaseUrl`) a postgresql://… URL instead. */
  databaseFile: string;
  databaseUrl?: string;
  adminKey: string;
  workers: number;
  env?: Record<string, string>;
  /** Node flags for the server process, e.g. --cpu-prof. */
  nodeArgs?: string[];
}) {
  // BENCH_BIN: another build of the command (an older commit's, say) measured in the same sitting.
  const bin = process.env.BENCH_BIN ? path.resolve(process.env.BENCH_BIN) : agentTasksBin;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), bin, 'serve', '--workers', String(options.workers)], {
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
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A server that never says it listens is stopped, not left behind.
  const url = await started(child, 'agent-tasks serve').catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  // Keep reading (and dropping) its log so the pipe never fills.
  child.stdout?.resume();
  child.stderr?.resume();
  return handle(child, url);
}

/** A baseline server (baseline-server.ts): `bare` node:http, plain tRPC (`bare-trpc`) or a `noop-trpc` mutation on our stack. */
export async function startBaseline(kind: 'bare' | 'bare-trpc' | 'noop-trpc', nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', baselineScript, kind, '0'], {
    cwd: repoRoot,
    env: { ...process.env, LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await started(child, kind);
  child.stdout?.resume();
  child.stderr?.resume();
  return handle(child, url);
}
