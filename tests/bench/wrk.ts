// Runs wrk (a separate load-generator process) on prepared requests (lua/replay.lua) and reads its figures.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  token: string;
  body?: unknown;
}

export interface WrkResult {
  requests: number;
  /** Connect/read/write errors, timeouts and non-2xx answers together. */
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** The first non-200 answers, for the report. */
  problems: string[];
}

const scripts = {
  replay: path.join(import.meta.dirname, 'lua', 'replay.lua'),
  runSteps: path.join(import.meta.dirname, 'lua', 'run-steps.lua'),
};

export function wrkVersion(): string | null {
  const ran = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (ran.error) return null;
  return `${ran.stdout}${ran.stderr}`.split('\n')[0]?.trim() ?? 'wrk';
}

const line = (r: Request) => `${r.method}\t${r.path}\t${r.token}\t${r.body === undefined ? '' : JSON.stringify(r.body)}`;

/** Writes requests for replay.lua, one a line. */
export function writeRequests(file: string, requests: Request[]) {
  writeFileSync(file, requests.map(line).join('\n'));
}

/** The runs run-steps.lua steps through, in files `<file>.<i>` (one per connection's session: the runs start in turns). */
export function writeRuns(file: string, runs: { runId: string; attemptId: string; token: string }[][]) {
  runs.forEach((list, i) => writeFileSync(`${file}.${i}`, list.map((r) => `${r.runId}\t${r.attemptId}\t${r.token}`).join('\n')));
}

export async function wrk(options: {
  url: string;
  file: string;
  connections: number;
  seconds: number;
  /** replay.lua (the default) or run-steps.lua; one wrk thread either way. */
  mode?: 'shared' | 'run-steps';
}): Promise<WrkResult> {
  const script = options.mode === 'run-steps' ? scripts.runSteps : scripts.replay;
  const args = [
    '-t',
    '1',
    '-c',
    String(options.connections),
    '-d',
    `${options.seconds}s`,
    '--latency',
    '--timeout',
    '30s',
    '-s',
    script,
    options.url,
    '--',
    options.file,
  ];
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  // 'close', not 'exit': the output may still be in the pipes when the process has exited.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const figures = out.match(/BENCH requests=(\d+) errors=(\d+) p50=([\d.]+) p90=([\d.]+) p99=([\d.]+) max=([\d.]+) duration_us=(\d+)/);
  if (code !== 0 || !figures) throw new Error(`wrk failed (${code}):\n${out}\n${err}`);
  const [, requests, errors, p50, p90, p99, max, duration] = figures.map(Number);
  const seconds = (duration ?? 0) / 1e6;
  return {
    requests: requests ?? 0,
    errors: errors ?? 0,
    seconds,
    perSecond: (requests ?? 0) / seconds,
    p50: p50 ?? 0,
    p90: p90 ?? 0,
    p99: p99 ?? 0,
    max: max ?? 0,
    problems: err
      .split('\n')
      .filter((l) => l.startsWith('status ') || l.startsWith('out of runs'))
      .slice(0, 3),
  };
}
