// `pnpm bench:replicas`: todos.write and tasks.update under load from wrk (separate processes) on one SQLite server, and
// on PostgreSQL with one and with two replicas on the same database, in one run. With two replicas each gets its own
// wrk with half the connections (no balancer in between to skew the figures): req/s summed, p50/p99 the worse of the
// two. PostgreSQL is the tests' embedded cluster (or AGENT_TASKS_TEST_POSTGRES_URL); its CPU is counted when embedded.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, stopTestPostgres, testPostgresPid } from '../support/postgres.ts';
import { type ServerProcess, childrenOf, cpuOf, startAgentTasks } from './server-process.ts';
import { fixed, textTable } from './text-table.ts';
import { type Workload, prepareReplicaWorkload as prepare } from './replicas-workload.ts';
import { type Request, wrk, wrkVersion, writeRequests } from './wrk.ts';

const SECONDS = Number(process.env.BENCH_SECONDS) > 0 ? Number(process.env.BENCH_SECONDS) : 10;
const CONNECTIONS = 32;
const ADMIN_KEY = `atk_bench_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-replicas-'));

interface Row {
  database: string;
  replicas: number;
  scenario: string;
  perSecond: number;
  p50: number;
  p99: number;
  serverCpuUs: number;
  databaseCpuUs: number | null;
  errors: number;
}
const rows: Row[] = [];

/** User + system CPU seconds of a process and its children (PostgreSQL's postmaster and its backends). */
const cpuOfTree = (pid: number | null) => (pid === null ? 0 : [pid, ...childrenOf(pid)].reduce((sum, p) => sum + cpuOf(p), 0));

/** Loads every server at once, each from its own wrk with its share of the connections, after a 2 s warm-up. */
async function measure(
  servers: ServerProcess[],
  label: Omit<Row, 'perSecond' | 'p50' | 'p99' | 'serverCpuUs' | 'databaseCpuUs' | 'errors'>,
  requests: Request[],
  pgPid: number | null,
) {
  const file = path.join(dir, `${label.database}-${label.replicas}-${label.scenario}`.replace(/[^\w.-]+/g, '_'));
  writeRequests(file, requests);
  const connections = CONNECTIONS / servers.length;
  log(`${label.database} · ${label.replicas} replica(s) · ${label.scenario} · ${CONNECTIONS} connections…`);
  await Promise.all(servers.map((s) => wrk({ url: s.url, file, connections, seconds: 2 })));
  const serverCpu = servers.reduce((sum, s) => sum + s.cpuSeconds(), 0);
  const databaseCpu = cpuOfTree(pgPid);
  const results = await Promise.all(servers.map((s) => wrk({ url: s.url, file, connections, seconds: SECONDS })));
  const requestsDone = results.reduce((sum, r) => sum + r.requests, 0);
  const perUs = (seconds: number) => (requestsDone ? (seconds * 1e6) / requestsDone : 0);
  rows.push({
    ...label,
    perSecond: results.reduce((sum, r) => sum + r.perSecond, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    serverCpuUs: perUs(servers.reduce((sum, s) => sum + s.cpuSeconds(), 0) - serverCpu),
    databaseCpuUs: pgPid === null ? null : perUs(cpuOfTree(pgPid) - databaseCpu),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  });
  for (const problem of results.flatMap((r) => r.problems)) log(`  ${problem}`);
}

async function run(database: string, replicas: number, workload: Workload, target: { file: string; url?: string }, pgPid: number | null) {
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < replicas; i++) {
      servers.push(
        await startAgentTasks({
          databaseFile: target.file,
          ...(target.url ? { databaseUrl: target.url } : {}),
          adminKey: ADMIN_KEY,
          workers: 1,
        }),
      );
    }
    await measure(servers, { database, replicas, scenario: 'todos.write, 10 items, 32 sessions' }, workload.todoWrites, pgPid);
    await measure(servers, { database, replicas, scenario: 'tasks.update metadata, 1k-task list' }, workload.taskUpdates, pgPid);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

async function main() {
  if (!wrkVersion()) throw new Error('pnpm bench:replicas needs wrk (a separate load generator): apt-get install -y wrk');
  const startLoad = os.loadavg();
  try {
    const sqlite = { file: path.join(dir, 'bench.db') };
    log('preparing the SQLite database…');
    const onSqlite = await prepare(sqlite, ADMIN_KEY);
    await run('SQLite', 1, onSqlite, sqlite, null);

    log('preparing the PostgreSQL database…');
    const pgDatabase = await createTestDatabase();
    const pg = { file: '', url: pgDatabase.url };
    const onPg = await prepare(pg, ADMIN_KEY);
    const pgPid = await testPostgresPid();
    await run('PostgreSQL', 1, onPg, pg, pgPid);
    await run('PostgreSQL', 2, onPg, pg, pgPid);
    await pgDatabase.drop();

    const cpus = os.cpus();
    const table = textTable(
      ['database', 'replicas', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'database CPU µs/req', 'errors'],
      rows.map((r) => [
        r.database,
        String(r.replicas),
        r.scenario,
        fixed(r.perSecond, 0),
        fixed(r.p50, 2),
        fixed(r.p99, 2),
        fixed(r.serverCpuUs, 0),
        r.databaseCpuUs === null ? '-' : fixed(r.databaseCpuUs, 0),
        String(r.errors),
      ]),
    );
    process.stdout.write(
      [
        `agent-tasks replicas bench — ${new Date().toISOString()}`,
        `machine: ${cpus.length} x ${cpus[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${wrkVersion()}; each measurement ${SECONDS} s after a 2 s warm-up, ${CONNECTIONS} connections in all (split between replicas)`,
        `load average (1/5/15 min) at the start: ${startLoad.map((v) => v.toFixed(2)).join(' / ')}; at the end: ${os
          .loadavg()
          .map((v) => v.toFixed(2))
          .join(' / ')}`,
        '',
        table,
        '',
      ].join('\n'),
    );
  } finally {
    await stopTestPostgres();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
