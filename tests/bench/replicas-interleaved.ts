// PostgreSQL's server CPU per write against SQLite's, measured so that a loaded machine skews every side alike: one
// server on SQLite and one on PostgreSQL (each its own process and database) run at once, and wrk alternates between
// them in short slices, the order turned every round; each one's CPU µs per request is summed over its slices from
// /proc. With BENCH_BIN set to another build's command, that build runs beside this one on both databases (an A/B in
// one sitting). `BENCH_ROUNDS` (6) slices of `BENCH_SECONDS` (3) each, per side and scenario; run `pnpm build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, stopTestPostgres } from '../support/postgres.ts';
import { type Workload, prepareReplicaWorkload } from './replicas-workload.ts';
import { type ServerProcess, agentTasksBin, startAgentTasks } from './server-process.ts';
import { fixed, textTable } from './text-table.ts';
import { wrk, wrkVersion, writeRequests } from './wrk.ts';

const rounds = Number(process.env.BENCH_ROUNDS) > 0 ? Number(process.env.BENCH_ROUNDS) : 6;
/** `BENCH_CONNECTIONS` (32): fewer leave cores idle, so a process's CPU is measured without the others' contention. */
const connections = Number(process.env.BENCH_CONNECTIONS) > 0 ? Number(process.env.BENCH_CONNECTIONS) : 32;
const seconds = Number(process.env.BENCH_SECONDS) > 0 ? Number(process.env.BENCH_SECONDS) : 3;
const adminKey = `atk_bench_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-replicas-ab-'));
const builds = [{ name: 'this build', bin: agentTasksBin }];
if (process.env.BENCH_BIN) builds.unshift({ name: 'BENCH_BIN', bin: path.resolve(process.env.BENCH_BIN) });
/** `BENCH_DATABASES=SQLite` (or `PostgreSQL`): one database only, for an A/B of two builds on it. */
const databases = (['SQLite', 'PostgreSQL'] as const).filter((d) => (process.env.BENCH_DATABASES ?? d).split(',').includes(d));
const scenarios = [
  ['todos.write', 'todoWrites'],
  ['tasks.update', 'taskUpdates'],
] as const;

interface Side {
  build: string;
  database: 'SQLite' | 'PostgreSQL';
  server: ServerProcess;
  files: Record<keyof Workload, string>;
  cpu: Record<keyof Workload, number>;
  system: Record<keyof Workload, number>;
  requests: Record<keyof Workload, number>;
}

const loadavg = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
const sides: Side[] = [];
const drops: (() => Promise<void>)[] = [];
try {
  if (!wrkVersion()) throw new Error('this bench needs wrk (a separate load generator): apt-get install -y wrk');
  for (const [b, build] of builds.entries()) {
    for (const database of databases) {
      const pg = database === 'PostgreSQL' ? await createTestDatabase() : null;
      if (pg) drops.push(() => pg.drop());
      const target = { file: path.join(dir, `bench-${b}.db`), ...(pg ? { url: pg.url } : {}) };
      process.stderr.write(`[bench] preparing ${database} for ${build.name}…\n`);
      const workload = await prepareReplicaWorkload(target, adminKey);
      const files = { todoWrites: path.join(dir, `${b}-${database}-todos`), taskUpdates: path.join(dir, `${b}-${database}-tasks`) };
      writeRequests(files.todoWrites, workload.todoWrites);
      writeRequests(files.taskUpdates, workload.taskUpdates);
      const server = await startAgentTasks({
        databaseFile: target.file,
        ...(pg ? { databaseUrl: pg.url } : {}),
        adminKey,
        workers: 1,
        bin: build.bin,
      });
      sides.push({
        build: build.name,
        database,
        server,
        files,
        cpu: { todoWrites: 0, taskUpdates: 0 },
        system: { todoWrites: 0, taskUpdates: 0 },
        requests: { todoWrites: 0, taskUpdates: 0 },
      });
    }
  }
  process.stdout.write(`load average at the start: ${loadavg()}\n`);
  for (const [, key] of scenarios) {
    for (const side of sides) await wrk({ url: side.server.url, file: side.files[key], connections, seconds: 2 });
    for (let round = 0; round < rounds; round++) {
      const order = sides.map((_, i) => sides[(i + round) % sides.length] as Side);
      for (const side of round % 2 ? order.reverse() : order) {
        const before = side.server.cpuSeconds();
        const systemBefore = side.server.systemSeconds();
        const result = await wrk({ url: side.server.url, file: side.files[key], connections, seconds });
        side.cpu[key] += side.server.cpuSeconds() - before;
        side.system[key] += side.server.systemSeconds() - systemBefore;
        side.requests[key] += result.requests;
      }
    }
  }
  const us = (side: Side, key: keyof Workload) => (side.cpu[key] * 1e6) / Math.max(1, side.requests[key]);
  const systemUs = (side: Side, key: keyof Workload) => (side.system[key] * 1e6) / Math.max(1, side.requests[key]);
  const rows = sides.flatMap((side) =>
    scenarios.map(([name, key]) => {
      const sqlite = sides.find((s) => s.build === side.build && s.database === 'SQLite');
      const first = sides.find((s) => s.database === side.database) as Side;
      return [
        side.build,
        side.database,
        name,
        fixed(side.requests[key] / (rounds * seconds), 0),
        fixed(us(side, key), 0),
        fixed(systemUs(side, key), 0),
        side.database === 'SQLite' || !sqlite ? '' : `${(us(side, key) / us(sqlite, key)).toFixed(2)}x`,
        side === first ? '' : `${(us(side, key) / us(first, key)).toFixed(2)}x`,
      ];
    }),
  );
  process.stdout.write(
    `${textTable(['build', 'database', 'scenario', 'req/s', 'server CPU µs/req', 'of it in the kernel', 'PostgreSQL ÷ SQLite', 'CPU ÷ first build'], rows)}\n`,
  );
  process.stdout.write(
    `${rounds} rounds of ${seconds} s per side and scenario, ${connections} connections; load average at the end: ${loadavg()}\n`,
  );
} finally {
  await Promise.all(sides.map((side) => side.server.stop()));
  for (const drop of drops) await drop();
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
}
