// `pnpm bench:reads`: server CPU per read on the load bench's read rows — the ready page (tasks.list readyOnly, 50 of a
// 10,000-task list with ~20,000 edges) and the run view (runs.get of a 100-task run, half done) — and per step of its
// runs.step row (each connection walking 100-task runs of its own session, fresh runs every slice) and of todos.write,
// measured so that a loaded machine skews every side alike: with BENCH_BIN set to another build's command, or
// BENCH_WORKERS to worker counts (`1,2`), one server of each build and count (each its own database, made alike) runs at
// once and wrk alternates between them in short slices, the order turned every round. `BENCH_ROUNDS` (6) slices of
// `BENCH_SECONDS` (3) each, per server and scenario (`BENCH_ONLY` picks scenarios).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { readyRun } from './load-workload.ts';
import { todoWrites } from './todo-lists.ts';
import { type ServerProcess, agentTasksBin, startAgentTasks } from './server-process.ts';
import { seedTaskGraph } from './task-graph-seed.ts';
import { fixed, textTable } from './text-table.ts';
import { wrk, wrkVersion, writeRequests, writeRuns } from './wrk.ts';

const rounds = Number(process.env.BENCH_ROUNDS) > 0 ? Number(process.env.BENCH_ROUNDS) : 6;
const seconds = Number(process.env.BENCH_SECONDS) > 0 ? Number(process.env.BENCH_SECONDS) : 3;
const adminKey = `atk_bench_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-reads-ab-'));
/** `BENCH_WORKERS=1,2`: one server per worker count (and build), each its own database. */
const workerCounts = [...new Set((process.env.BENCH_WORKERS ?? '1').split(',').map(Number))];
if (!workerCounts.every((n) => Number.isInteger(n) && n >= 1)) throw new Error(`BENCH_WORKERS: worker counts of 1 or more, like 1,2`);
const builds = [{ name: 'this build', bin: agentTasksBin }];
if (process.env.BENCH_BIN) builds.unshift({ name: 'BENCH_BIN', bin: path.resolve(process.env.BENCH_BIN) });
const serversToStart = builds.flatMap((build) =>
  workerCounts.map((workers) => ({ ...build, workers, name: workerCounts.length > 1 ? `${build.name}, ${workers} workers` : build.name })),
);
const ALL_SCENARIOS = ['ready page', 'run view', 'runs.step', 'todos.write'] as const;
type Scenario = (typeof ALL_SCENARIOS)[number];
/** `BENCH_ONLY=runs.step` (names joined by commas) measures those scenarios alone. */
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const scenarios = ALL_SCENARIOS.filter((scenario) => !only || only.includes(scenario));
if (scenarios.length === 0) throw new Error(`BENCH_ONLY names none of: ${ALL_SCENARIOS.join(', ')}`);
const CONNECTIONS = 32;
/** Runs each connection may step through in one slice (about 2,000 steps a second would use two). */
const RUNS_PER_SLICE = 3;

interface Side {
  build: string;
  server: ServerProcess;
  files: Record<Scenario, string>;
  /** The run files of each runs.step slice, the warm-up's first: a slice's runs are not stepped again. */
  stepFiles: string[];
  cpu: Record<Scenario, number>;
  requests: Record<Scenario, number>;
  /** Each measured slice's p99 latency (ms), by scenario. */
  p99s: Record<Scenario, number[]>;
}

const query = (procedure: string, input: unknown) => `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`;
const loadavg = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');

/** A server of `bin` on its own database, with the load bench's read workload: 32 sessions, the list, four runs. */
async function prepare(b: number, bin: string, workers: number): Promise<Side> {
  const databaseFile = path.join(dir, `reads-${b}.db`);
  const server = await startAgentTasks({ databaseFile, adminKey, workers, bin });
  const admin = createClient({ url: server.url, token: adminKey });
  const agent = createClient({ url: server.url, token: (await admin.keys.create({ name: 'reads', role: 'agent' })).token });
  const sessions = await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => openSessionClient(agent, { title: `reader ${i}` })));
  const listName = 'bench-10k';
  const first = await sessions[0]!.client.tasks.create({ subject: 'Bench task 1', listName });
  seedTaskGraph(databaseFile, listName, first.id, { size: 10_000, roots: 145, window: 40, seed: 7 });
  // The seeding held the event loop past the server's keep-alive: let the client see the connections it closed.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const viewed = await Promise.all(sessions.slice(0, 4).map((s, i) => readyRun(s.client, `Viewed run ${i}`)));
  for (const [i, { runId, attemptId: start }] of viewed.entries()) {
    let attemptId = start;
    for (let task = 1; task <= 50; task++) {
      const stepped = await sessions[i]!.client.runs.step({
        runId,
        attemptId,
        evidence: `check ${task} passed`,
        progress_execution_outcome: `step ${task} verified`,
      });
      attemptId = stepped.attemptId ?? '';
    }
  }
  const stepFiles: string[] = [];
  for (let slice = 0; slice <= rounds; slice++) {
    const file = path.join(dir, `${b}-steps-${slice}`);
    const runs = await Promise.all(
      sessions.map(async (s, i) => {
        const ready = [];
        for (let r = 0; r < RUNS_PER_SLICE; r++) ready.push(await readyRun(s.client, `Stepped run ${slice}.${i}.${r}`));
        return ready.map((run) => ({ ...run, token: s.token }));
      }),
    );
    writeRuns(file, runs);
    stepFiles.push(file);
  }
  const files = {
    'ready page': path.join(dir, `${b}-ready`),
    'run view': path.join(dir, `${b}-view`),
    'runs.step': '',
    'todos.write': path.join(dir, `${b}-todos`),
  };
  writeRequests(files['todos.write'], todoWrites(sessions.map((s) => s.token)));
  writeRequests(
    files['ready page'],
    sessions.map((s) => ({ method: 'GET' as const, path: query('tasks.list', { listName, readyOnly: true, limit: 50 }), token: s.token })),
  );
  writeRequests(
    files['run view'],
    viewed.map(({ runId }, i) => ({ method: 'GET' as const, path: query('runs.get', { runId }), token: sessions[i]!.token })),
  );
  const zero = { 'ready page': 0, 'run view': 0, 'runs.step': 0, 'todos.write': 0 };
  return {
    build: serversToStart[b]!.name,
    server,
    files,
    stepFiles,
    cpu: { ...zero },
    requests: { ...zero },
    p99s: { 'ready page': [], 'run view': [], 'runs.step': [], 'todos.write': [] },
  };
}

const sides: Side[] = [];
try {
  if (!wrkVersion()) throw new Error('this bench needs wrk (a separate load generator): apt-get install -y wrk');
  for (const [b, build] of serversToStart.entries()) {
    process.stderr.write(`[bench] preparing ${build.name}…\n`);
    sides.push(await prepare(b, build.bin, build.workers));
  }
  process.stdout.write(`load average at the start: ${loadavg()}\n`);
  /** One slice of `scenario` on `side`: runs.step's `slice` (0 the warm-up) walks that slice's own runs. */
  const slice = (side: Side, scenario: Scenario, slice: number, length: number) =>
    scenario === 'runs.step'
      ? wrk({ url: side.server.url, file: side.stepFiles[slice]!, connections: CONNECTIONS, seconds: length, mode: 'run-steps' })
      : wrk({ url: side.server.url, file: side.files[scenario], connections: CONNECTIONS, seconds: length });
  for (const scenario of scenarios) {
    for (const side of sides) await slice(side, scenario, 0, 2);
    for (let round = 0; round < rounds; round++) {
      const order = sides.map((_, i) => sides[(i + round) % sides.length] as Side);
      for (const side of round % 2 ? order.reverse() : order) {
        const before = side.server.cpuSeconds();
        const result = await slice(side, scenario, round + 1, seconds);
        if (result.errors) throw new Error(`${side.build}, ${scenario}: ${result.errors} errors (${result.problems.join('; ')})`);
        side.cpu[scenario] += side.server.cpuSeconds() - before;
        side.requests[scenario] += result.requests;
        side.p99s[scenario].push(result.p99);
      }
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const us = (side: Side, scenario: Scenario) => (side.cpu[scenario] * 1e6) / Math.max(1, side.requests[scenario]);
  const rows = sides.flatMap((side) =>
    scenarios.map((scenario) => {
      const other = sides[0] as Side;
      return [
        side.build,
        scenario,
        fixed(side.requests[scenario] / (rounds * seconds), 0),
        fixed(us(side, scenario), 0),
        side === other ? '' : `${(us(other, scenario) / us(side, scenario)).toFixed(2)}x`,
        side === other ? '' : `${(side.requests[scenario] / Math.max(1, other.requests[scenario])).toFixed(2)}x`,
        fixed(median(side.p99s[scenario]), 1),
      ];
    }),
  );
  process.stdout.write(
    `${textTable(['build', 'scenario', 'req/s', 'server CPU µs/req', 'CPU: first ÷ this', 'req/s: this ÷ first', 'p99 ms (median slice)'], rows)}\n`,
  );
  process.stdout.write(
    `${rounds} rounds of ${seconds} s per server and scenario, ${CONNECTIONS} connections; load average at the end: ${loadavg()}\n`,
  );
} finally {
  await Promise.all(sides.map((side) => side.server.stop()));
  rmSync(dir, { recursive: true, force: true });
}
