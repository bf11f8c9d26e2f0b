// `pnpm bench:alloc`: what the server allocates per request, by function, under 32 connections of wrk (a separate
// process): runs.step through 100-task runs (the default), or `-- todos-write`. The server runs in this process so the
// inspector's sampling heap profiler can count every allocation, those the young generation collects too (Node's
// --heap-prof keeps only what is still alive). Garbage is time: the young generation is collected every 16 MB or so.
// BENCH_SECONDS sets how long allocations are sampled (default 5), after a 1.5 s warm-up.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { startApp } from '@agent-tasks/server';
import { readyRun } from './load-workload.ts';
import { todoWrites } from './todo-lists.ts';
import { writeRequests, writeRuns } from './wrk.ts';

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const todos = process.argv.slice(2).includes('todos-write');
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-alloc-'));
const adminKey = `atk_alloc_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const app = await startApp({ databaseFile: path.join(dir, 'alloc.db'), adminKey, port: 0 });
const admin = createClient({ url: app.url, token: adminKey });
const agent = createClient({ url: app.url, token: (await admin.keys.create({ name: 'alloc', role: 'agent' })).token });
const sessions = await Promise.all(Array.from({ length: 32 }, (_, i) => openSessionClient(agent, { title: `allocating ${i}` })));
const file = path.join(dir, 'requests');
let script = path.join(import.meta.dirname, 'lua', 'replay.lua');
if (todos) writeRequests(file, todoWrites(sessions.map((s) => s.token)));
else {
  // Enough runs for 3,000 steps a second per process (run-steps.lua sends each run's next step on any connection).
  const perConnection = Math.ceil(((seconds + 3) * 3_000) / 100 / sessions.length) + 1;
  const runs = await Promise.all(
    sessions.map(async ({ client, token }) => {
      const mine: { runId: string; attemptId: string; token: string }[] = [];
      for (let k = 0; k < perConnection; k++) mine.push({ ...(await readyRun(client, `Allocating run ${k}`)), token });
      return mine;
    }),
  );
  writeRuns(file, runs);
  script = path.join(import.meta.dirname, 'lua', 'run-steps.lua');
}
const load = spawn('wrk', ['-t1', '-c32', `-d${seconds + 3}s`, '--timeout', '30s', '-s', script, app.url, '--', file]);
load.once('error', (error) => {
  process.stderr.write(`wrk did not start (${error.message}): install Debian's wrk (apt-get install wrk)\n`);
  process.exit(1);
});
let output = '';
load.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
load.stderr.resume();
const inspector = new Session();
inspector.connect();
await new Promise((resolve) => setTimeout(resolve, 1_500));
const before = Date.now();
await inspector.post('HeapProfiler.startSampling', {
  samplingInterval: 4_096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
} as never);
await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
const { profile } = (await inspector.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SampleNode } };
const sampledMs = Date.now() - before;
await new Promise((resolve) => load.once('exit', resolve));
await app.close();
rmSync(dir, { recursive: true, force: true });

const requests = Number(output.match(/BENCH requests=(\d+)/)?.[1] ?? Number.NaN);
const perSecond = requests / (seconds + 3);
const sampledRequests = (perSecond * sampledMs) / 1_000;
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
const nameOf = (n: SampleNode) =>
  `${n.callFrame.functionName || '(anonymous)'}  ${n.callFrame.url.split('/').slice(-2).join('/') || '(native)'}:${n.callFrame.lineNumber + 1}`;
function walk(node: SampleNode, onStack: Set<string>): number {
  const name = nameOf(node);
  self.set(name, (self.get(name) ?? 0) + node.selfSize);
  total += node.selfSize;
  const counted = !onStack.has(name);
  if (counted) onStack.add(name);
  let sum = node.selfSize;
  for (const child of node.children) sum += walk(child, onStack);
  if (counted) {
    onStack.delete(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + sum);
  }
  return sum;
}
walk(profile.head, new Set());
const kb = (bytes: number) => `${(bytes / sampledRequests / 1024).toFixed(1).padStart(6)} KB`;
const what = todos ? 'todos.write, 10 items' : 'runs.step, 100-task runs';
process.stdout.write(
  `${what}, 32 connections: ${Math.round(perSecond)} req/s (profiler on); allocated ${kb(total).trim()} per request\n\n`,
);
process.stdout.write('top 25 by allocations of their own, per request:\n');
for (const [name, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) process.stdout.write(`${kb(bytes)}  ${name}\n`);
process.stdout.write('\ntop 25 by allocations with their callees, per request:\n');
for (const [name, bytes] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 27)) {
  if (name.startsWith('(root)') || name.startsWith('(anonymous)  (native)')) continue;
  process.stdout.write(`${kb(bytes)}  ${name}\n`);
}
process.exit(0);
