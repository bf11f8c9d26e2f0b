// `pnpm bench:startup`: how soon the server is ready (listening, migrations applied) on an existing database, for the
// built command (its default: a worker per core on SQLite; and one process) against the same server run from
// TypeScript source through tsx; median of 10 starts each.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixed, ratio, textTable } from './text-table.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const RUNS = 10;
const ADMIN_KEY = `atk_startup_${randomBytes(16).toString('hex')}`;
const commands = {
  'built: node bin/agent-tasks.mjs serve': [path.join(repoRoot, 'apps/server/bin/agent-tasks.mjs'), 'serve'],
  'built, one process: … serve --workers 1': [path.join(repoRoot, 'apps/server/bin/agent-tasks.mjs'), 'serve', '--workers', '1'],
  'source: node --import tsx src/main.ts serve': ['--import', 'tsx', path.join(repoRoot, 'apps/server/src/main.ts'), 'serve'],
};

/** Spawns the server; resolves with ms from spawn until /readyz answers 200, and the server's own figure. */
function startOnce(args: string[], databaseFile: string): Promise<{ wallMs: number; readyMs: number }> {
  const started = performance.now();
  const env = {
    ...process.env,
    DATABASE_URL: `file:${databaseFile}`,
    PORT: '0',
    LOG_FORMAT: 'json',
    AGENT_TASKS_ADMIN_KEY: ADMIN_KEY,
  };
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void onData(chunk));
    const onData = async (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('listening on'));
      if (!line) return;
      child.stdout.removeAllListeners('data');
      const { url, readyMs } = JSON.parse(line) as { url: string; readyMs: number };
      const ready = await fetch(`${url}/readyz`);
      const wallMs = performance.now() - started;
      child.kill('SIGTERM');
      child.once('exit', () => (ready.ok ? resolve({ wallMs, readyMs }) : reject(new Error(`readyz ${ready.status}`))));
    };
    child.once('error', reject);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const databaseFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-startup-')), 'bench.db');
await startOnce(Object.values(commands)[0] ?? [], databaseFile); // first run: creates and migrates the file
const rows: string[][] = [];
const medians: number[] = [];
for (const [name, args] of Object.entries(commands)) {
  const runs = [];
  for (let i = 0; i < RUNS; i += 1) runs.push(await startOnce(args, databaseFile));
  const wall = runs.map((r) => r.wallMs);
  medians.push(median(wall));
  rows.push([
    name,
    fixed(median(wall), 0),
    fixed(Math.min(...wall), 0),
    fixed(Math.max(...wall), 0),
    fixed(median(runs.map((r) => r.readyMs)), 0),
  ]);
}
rows.forEach((row, i) => row.push(ratio(medians[i] ?? NaN, medians[0] ?? NaN)));
process.stdout.write(
  `Server start on an existing database (${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)}), ${RUNS} starts each:\n` +
    `${textTable(['command', 'spawn → /readyz p50 ms', 'min', 'max', 'server readyMs p50', 'vs built'], rows)}\n`,
);
