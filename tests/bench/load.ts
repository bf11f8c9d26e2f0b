// `pnpm bench`: the server under load from a separate load generator (wrk), next to its baselines measured in the
// same run — bare node:http, a no-op tRPC mutation on the same HTTP stack, raw better-sqlite3 and the file-per-task +
// lock store — printed as one table with the ratios and the targets of issue 10; then the hook an agent waits for on
// each tool call (hook-latency.ts), spawn to exit, against issue 20's target. Options: BENCH_SECONDS (per measurement,
// default 10), BENCH_WORKERS (the "all cores" configuration, default: the number of cores), BENCH_HOOK_RUNS (timed runs
// per command, default 30); then full-text search on a 10,000-task list (task-search.ts, BENCH_SEARCH_QUERIES, default
// 300). `pnpm bench -- --only load|hook|search` (or BENCH_ONLY=…) runs one section; `--only workers` runs just our
// request rows, one process against BENCH_WORKERS; BENCH_BIN measures another build of the command.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_WORKERS } from '@agent-tasks/server';
import { fileStoreUpdates } from './file-task-store.ts';
import { hookLatencyBench, reportHookLatency } from './hook-latency.ts';
import { reportTaskSearch, taskSearchBench } from './task-search.ts';
import { probeNewConnections } from './new-connections.ts';
import { prepareWorkload, type Workload } from './load-workload.ts';
import { openRawStore } from './raw-sqlite.ts';
import { type ServerProcess, cpuOf, startAgentTasks, startBaseline } from './server-process.ts';
import { fixed, textTable } from './text-table.ts';
import { listAt } from './todo-lists.ts';
import { type Request, type WrkResult, wrk, wrkVersion, writeRequests, writeRuns } from './wrk.ts';

const envInt = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
const SECONDS = envInt('BENCH_SECONDS', 10);
const HOOK_RUNS = envInt('BENCH_HOOK_RUNS', 30);
const SEARCH_QUERIES = envInt('BENCH_SEARCH_QUERIES', 300);
const CORES = os.availableParallelism();
const WORKERS = envInt('BENCH_WORKERS', Math.max(2, CORES));
const ADMIN_KEY = `atk_bench_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

interface Row {
  system: string;
  scenario: string;
  workers: number | '-';
  connections: number | '-';
  perSecond: number;
  p50: number | null;
  p99: number | null;
  /** Server CPU per request, µs (all its processes). */
  cpuUs: number | null;
  errors: number;
}

const rows: Row[] = [];
/** Per row of several processes: each process's CPU µs per request, by its role (`--only workers` prints them). */
const splits = new Map<Row, { role: string; cpuUs: number }[]>();

/** A server process's role: the primary (first), the writer worker (AGENT_TASKS_WRITER in its environment), a worker. */
function roleOf(pid: number, index: number) {
  if (index === 0) return 'primary';
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes('AGENT_TASKS_WRITER=1') ? 'writer' : 'worker';
  } catch {
    return 'worker';
  }
}
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-load-'));

/** One wrk measurement of `server`, after a short warm-up on the same requests. */
async function measure(
  server: ServerProcess,
  label: { system: string; scenario: string; workers: number | '-' },
  requests: Request[] | { runs: { runId: string; attemptId: string; token: string }[][] },
  connections: number,
): Promise<WrkResult> {
  const file = path.join(dir, `${label.system}-${label.scenario}-${label.workers}`.replace(/[^\w.-]+/g, '_'));
  const steps = !Array.isArray(requests);
  if (steps) writeRuns(file, requests.runs);
  else writeRequests(file, requests);
  log(`${label.system} · ${label.scenario} · workers ${label.workers} · ${connections} connections…`);
  // Run steps are used up as they go: no warm-up on them.
  if (!steps) await wrk({ url: server.url, file, connections, seconds: 2 });
  const pids = server.pids();
  const pidCpu = pids.map((pid) => cpuOf(pid));
  const cpuBefore = server.cpuSeconds();
  const result = await wrk({ url: server.url, file, connections, seconds: SECONDS, mode: steps ? 'run-steps' : 'shared' });
  const cpu = server.cpuSeconds() - cpuBefore;
  const row: Row = {
    ...label,
    connections,
    perSecond: result.perSecond,
    p50: result.p50,
    p99: result.p99,
    cpuUs: result.requests ? (cpu * 1e6) / result.requests : null,
    errors: result.errors,
  };
  rows.push(row);
  if (pids.length > 1 && result.requests) {
    const perRequest = (pid: number, i: number) => ((cpuOf(pid) - (pidCpu[i] ?? 0)) * 1e6) / result.requests;
    splits.set(
      row,
      pids.map((pid, i) => ({ role: roleOf(pid, i), cpuUs: perRequest(pid, i) })),
    );
  }
  for (const problem of result.problems) log(`  ${problem}`);
  return result;
}

const find = (system: string, scenario: string, workers: number | '-') =>
  rows.find((r) => r.system === system && r.scenario === scenario && r.workers === workers);

/** The baselines' rows: bare node:http, plain tRPC on plain Hono (zod input), and the same no-op on our whole stack. */
const BASELINES = {
  bare: { system: 'bare node:http', path: '/trpc/todos.write' },
  'bare-trpc': { system: 'bare @hono/trpc-server + zod mutation', path: '/trpc/noop' },
  'noop-trpc': { system: 'no-op tRPC mutation, our stack', path: '/trpc/noop' },
} as const;

async function baselines() {
  const body = { todos: listAt(5) };
  for (const kind of ['bare', 'bare-trpc', 'noop-trpc'] as const) {
    const server = await startBaseline(kind);
    try {
      const { system, path } = BASELINES[kind];
      await measure(server, { system, scenario: '10-item body', workers: 1 }, [{ method: 'POST', path, token: 'x', body }], 32);
    } finally {
      await server.stop();
    }
  }
}

/** The rows every configuration measures, in order. */
function scenarioRows(workload: Workload, workers: number) {
  const system = 'agent-tasks';
  const at = (scenario: string) => ({ system, scenario, workers });
  return [
    (server: ServerProcess) => measure(server, at('todos.write, 10 items, 32 sessions'), workload.todoWrites, 32),
    (server: ServerProcess) => measure(server, at('tasks.update metadata, 10k tasks / 20k edges'), workload.taskUpdates, 32),
    (server: ServerProcess) => measure(server, at('runs.step, 100-task runs'), { runs: workload.runSteps(workers) }, 32),
    (server: ServerProcess) => measure(server, at('todos.get'), workload.todoGets, 32),
    (server: ServerProcess) => measure(server, at('tasks.list readyOnly, 50 of 10k'), workload.readyPages, 32),
    (server: ServerProcess) => measure(server, at('runs.get (run view, 100 tasks)'), workload.runViews, 32),
  ];
}

/**
 * The rows of each configuration (one process, `--workers N`), each row measured on one configuration right after the
 * other (both servers up on the same file, the idle one idle), so a change in the machine's other load between rows
 * does not fall on one configuration only; then, with `all`, the sequential and overload rows of each in turn.
 */
async function ours(workload: Workload, databaseFile: string, configurations: number[], only: 'all' | 'rows' = 'all') {
  const servers: [number, ServerProcess][] = [];
  try {
    for (const workers of configurations) servers.push([workers, await startAgentTasks({ databaseFile, adminKey: ADMIN_KEY, workers })]);
    const scenarios = servers.map(([workers]) => scenarioRows(workload, workers));
    for (let i = 0; i < (scenarios[0]?.length ?? 0); i++) {
      for (const [k, [, server]] of servers.entries()) await scenarios[k]?.[i]?.(server);
    }
    if (only === 'rows') return;
    for (const [workers, server] of servers) await sequentialRows(workload, workers, server);
  } finally {
    await Promise.all(servers.map(([, server]) => server.stop()));
  }
}

async function sequentialRows(workload: Workload, workers: number, server: ServerProcess) {
  const system = 'agent-tasks';
  if (workers === 1) {
    const edges = await measure(
      server,
      { system, scenario: 'edge add + cycle check, 10k tasks (sequential)', workers },
      workload.edgeAdds,
      1,
    );
    log(`  edge add p50 ${fixed(edges.p50)} ms`);
  }
  log(`overload: 200 connections writing, new connections probed (workers ${workers})…`);
  const probe = probeNewConnections({ url: server.url, token: workload.probeToken, seconds: Math.max(2, SECONDS - 3), delayMs: 3_000 });
  await measure(server, { system, scenario: 'todos.write, 200 connections (overload)', workers }, workload.todoWrites200, 200);
  const probed = await probe;
  rows.push({
    system,
    scenario: 'overload: first request of a new connection',
    workers,
    connections: 1,
    perSecond: probed.count / Math.max(2, SECONDS - 3),
    p50: probed.p50,
    p99: probed.max,
    cpuUs: null,
    errors: probed.errors,
  });
}

function rawBaselines() {
  log('raw better-sqlite3: the same todo write transaction, in-process…');
  const raw = openRawStore(path.join(dir, 'raw.db'), 32, { wal: true });
  try {
    const started = performance.now();
    let writes = 0;
    while (performance.now() - started < SECONDS * 500) raw.write(writes % 32, listAt(writes++));
    rows.push({
      system: 'raw better-sqlite3 (WAL)',
      scenario: 'todo write transaction, in-process',
      workers: '-',
      connections: '-',
      perSecond: writes / ((performance.now() - started) / 1000),
      p50: null,
      p99: null,
      cpuUs: null,
      errors: 0,
    });
  } finally {
    raw.close();
  }
}

async function fileStore() {
  for (const tasks of [1_000, 10_000]) {
    log(`file-per-task + lock store (proper-lockfile), ${tasks} tasks, in-process…`);
    const { perSecond } = await fileStoreUpdates(tasks, SECONDS / 2);
    rows.push({
      system: 'file-per-task + lock store',
      scenario: `task update, ${tasks / 1000}k tasks, in-process`,
      workers: '-',
      connections: '-',
      perSecond,
      p50: null,
      p99: null,
      cpuUs: null,
      errors: 0,
    });
  }
}

const fmt = (n: number | null, digits = 1) => (n === null ? '-' : fixed(n, digits));
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : '-');

/** Baselines, then ours by worker count (measured interleaved), then the in-process stores; each in measured order. */
function shownRows() {
  const rank = (r: Row) =>
    r.system === 'agent-tasks' ? 1 : rows.some((o) => o.system === 'agent-tasks' && rows.indexOf(o) < rows.indexOf(r)) ? 2 : 0;
  const keyed = rows.map((r, i) => ({ r, key: [rank(r), r.system === 'agent-tasks' ? Number(r.workers) : 0, i] }));
  keyed.sort((a, b) => a.key[0]! - b.key[0]! || a.key[1]! - b.key[1]! || a.key[2]! - b.key[2]!);
  return keyed.map((k) => k.r);
}

function rowsTable() {
  return textTable(
    ['system', 'scenario', 'workers', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'errors'],
    shownRows().map((r) => [
      r.system,
      r.scenario,
      String(r.workers),
      String(r.connections),
      fixed(r.perSecond, 0),
      fmt(r.p50, 2),
      fmt(r.p99, 2),
      fmt(r.cpuUs, 0),
      String(r.errors),
    ]),
  );
}

function header(startLoad: number[], workload?: Workload) {
  const cpus = os.cpus();
  return [
    `agent-tasks load bench — ${new Date().toISOString()}`,
    `machine: ${cpus.length} x ${cpus[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}; load generator: ${wrkVersion()} (-t1 for every row)`,
    `each measurement ${SECONDS} s after a 2 s warm-up; servers log at info (one JSON line per request) to a file${workload ? `; workload: ${workload.describe}` : ''}`,
    `load average (1/5/15 min) at the start: ${startLoad.map((v) => v.toFixed(2)).join(' / ')}; at the end: ${os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' / ')} (other work on the machine skews absolutes; ratios come from one run)`,
  ].join('\n');
}

const SCENARIOS = {
  todoWrite: 'todos.write, 10 items, 32 sessions',
  taskUpdate: 'tasks.update metadata, 10k tasks / 20k edges',
  runStep: 'runs.step, 100-task runs',
  todoGet: 'todos.get',
  readyPage: 'tasks.list readyOnly, 50 of 10k',
  runView: 'runs.get (run view, 100 tasks)',
} as const;

function report(startLoad: number[], workload: Workload) {
  const rate = (system: string, scenario: string, workers: number | '-') => find(system, scenario, workers)?.perSecond ?? 0;
  const ours = (scenario: string, workers: number) => rate('agent-tasks', scenario, workers);
  const bareTrpc = rate(BASELINES['bare-trpc'].system, '10-item body', 1);
  const noop = rate(BASELINES['noop-trpc'].system, '10-item body', 1);
  const bare = rate(BASELINES.bare.system, '10-item body', 1);
  const rawSqlite = rate('raw better-sqlite3 (WAL)', 'todo write transaction, in-process', '-');
  const files10k = rate('file-per-task + lock store', 'task update, 10k tasks, in-process', '-');
  const configured = (scenario: string) => ours(scenario, DEFAULT_WORKERS);
  const todoRow = find('agent-tasks', SCENARIOS.todoWrite, DEFAULT_WORKERS);
  const edge = find('agent-tasks', 'edge add + cycle check, 10k tasks (sequential)', 1);
  const overloadRow = find('agent-tasks', 'todos.write, 200 connections (overload)', WORKERS);
  const probeRow = find('agent-tasks', 'overload: first request of a new connection', WORKERS);
  const target = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const ratios = textTable(
    ['ratio', 'value'],
    [
      ['no-op on our stack / bare @hono/trpc-server', ratio(noop, bareTrpc)],
      ['bare @hono/trpc-server / bare node:http', ratio(bareTrpc, bare)],
      ['todos.write (1 process) / raw better-sqlite3 transaction', ratio(ours(SCENARIOS.todoWrite, 1), rawSqlite)],
      ...(WORKERS !== 1
        ? Object.values(SCENARIOS).map((scenario) => [
            `${scenario}: ${WORKERS} workers / 1 process`,
            ratio(ours(scenario, WORKERS), ours(scenario, 1)),
          ])
        : []),
    ],
  );
  // Every row of ours is judged in the default configuration (`serve` without --workers): the one measured fastest.
  const workersNeverLose = Object.values(SCENARIOS).every((scenario) => ours(scenario, WORKERS) >= 0.95 * ours(scenario, 1));
  const defaultFastest = Object.values(SCENARIOS).every(
    (scenario) => configured(scenario) >= 0.95 * Math.max(ours(scenario, 1), ours(scenario, WORKERS)),
  );
  const targets = textTable(
    [`target (issue 24; default configuration: ${DEFAULT_WORKERS} process${DEFAULT_WORKERS === 1 ? '' : 'es'})`, 'measured', ''],
    [
      ['no-op mutation, our stack: >= 0.85x bare @hono/trpc-server', ratio(noop, bareTrpc), target(noop >= 0.85 * bareTrpc)],
      [
        'todos.write: >= 0.5x bare @hono/trpc-server',
        ratio(configured(SCENARIOS.todoWrite), bareTrpc),
        target(configured(SCENARIOS.todoWrite) >= 0.5 * bareTrpc),
      ],
      ['  p99 <= 50 ms at 32 connections', fmt(todoRow?.p99 ?? null, 1), target((todoRow?.p99 ?? Infinity) <= 50)],
      [
        'tasks.update, 10k tasks: >= 2x the file-per-task store (10k)',
        ratio(configured(SCENARIOS.taskUpdate), files10k),
        target(configured(SCENARIOS.taskUpdate) >= 2 * files10k),
      ],
      [
        'runs.step: >= 0.4x bare @hono/trpc-server',
        ratio(configured(SCENARIOS.runStep), bareTrpc),
        target(configured(SCENARIOS.runStep) >= 0.4 * bareTrpc),
      ],
      ...[SCENARIOS.todoGet, SCENARIOS.readyPage, SCENARIOS.runView].map((scenario) => [
        `${scenario}: >= 0.6x bare @hono/trpc-server`,
        ratio(configured(scenario), bareTrpc),
        target(configured(scenario) >= 0.6 * bareTrpc),
      ]),
      ...(WORKERS !== 1
        ? [
            [`workers never lose: no row slower with ${WORKERS} workers than 1 process (5% noise)`, '', target(workersNeverLose)],
            ['the default configuration is the one measured fastest (5% noise)', `${DEFAULT_WORKERS}`, target(defaultFastest)],
          ]
        : []),
      ['edge add + cycle check, 10k tasks: p50 <= 5 ms', fmt(edge?.p50 ?? null, 2), target((edge?.p50 ?? Infinity) <= 5)],
      [
        'overload (200 connections): a new connection waits about as long as the others',
        `new p50 ${fmt(probeRow?.p50 ?? null, 0)} / max ${fmt(probeRow?.p99 ?? null, 0)} ms; others p99 ${fmt(overloadRow?.p99 ?? null, 0)} ms`,
        target((probeRow?.p99 ?? Infinity) <= 2 * Math.max(overloadRow?.p99 ?? 0, 1000)),
      ],
    ],
  );
  return [header(startLoad, workload), '', rowsTable(), '', ratios, '', targets].join('\n');
}

const SECTIONS = ['load', 'stack', 'workers', 'hook', 'search'];

/** Which sections to run: `--only load|hook` (also `--only=…`, comma-separated) or BENCH_ONLY; all by default. */
function selectedSections(): Set<string> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  let only = process.env.BENCH_ONLY;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--only') only = args[++i];
    else if (arg.startsWith('--only=')) only = arg.slice('--only='.length);
    else throw new Error(`unknown argument ${arg} (expected --only ${SECTIONS.join('|')})`);
  }
  const sections = new Set(
    (only ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p && p !== 'all'),
  );
  for (const section of sections) if (!SECTIONS.includes(section)) throw new Error(`--only ${section}: expected ${SECTIONS.join(' or ')}`);
  return sections.size ? sections : new Set(SECTIONS);
}

async function main() {
  const sections = selectedSections();
  if (sections.has('load')) await loadBench();
  else if (sections.has('stack')) await stackBench();
  if (!sections.has('load') && sections.has('workers')) await workersBench();
  if (sections.has('hook')) {
    const result = await hookLatencyBench({ runs: HOOK_RUNS, log });
    process.stdout.write(`${sections.has('load') ? '\n' : ''}${reportHookLatency(result)}\n`);
  }
  if (sections.has('search')) {
    const result = await taskSearchBench({ queries: SEARCH_QUERIES, log });
    process.stdout.write(`\n${reportTaskSearch(result)}\n`);
  }
  rmSync(dir, { recursive: true, force: true });
}

/** The three baselines alone (`--only stack`): what our HTTP stack costs against plain tRPC, in one run. */
async function stackBench() {
  if (!wrkVersion()) throw new Error('pnpm bench needs wrk (a separate load generator): apt-get install -y wrk');
  const startLoad = os.loadavg();
  await baselines();
  const rate = (kind: keyof typeof BASELINES) => find(BASELINES[kind].system, '10-item body', 1)?.perSecond ?? 0;
  process.stdout.write(
    `${header(startLoad)}\n\n${rowsTable()}\n\n${textTable(
      ['ratio', 'value'],
      [
        ['no-op on our stack / bare @hono/trpc-server (target >= 0.85x)', ratio(rate('noop-trpc'), rate('bare-trpc'))],
        ['bare @hono/trpc-server / bare node:http', ratio(rate('bare-trpc'), rate('bare'))],
      ],
    )}\n`,
  );
}

/** Our six request rows alone (`--only workers`), one process against BENCH_WORKERS workers, and their ratios. */
async function workersBench() {
  if (!wrkVersion()) throw new Error('pnpm bench needs wrk (a separate load generator): apt-get install -y wrk');
  const startLoad = os.loadavg();
  const databaseFile = path.join(dir, 'bench.db');
  log('preparing the workload (sessions, a 10,000-task list with ~20,000 edges, checklist runs)…');
  const workload = await prepareWorkload({ databaseFile, adminKey: ADMIN_KEY, seconds: SECONDS, workers: [1, WORKERS], log });
  await ours(workload, databaseFile, [1, WORKERS], 'rows');
  const rate = (scenario: string, workers: number) => find('agent-tasks', scenario, workers)?.perSecond ?? 0;
  const cpu = (scenario: string, workers: number) => find('agent-tasks', scenario, workers)?.cpuUs ?? 0;
  const ratios = textTable(
    [`${WORKERS} workers / 1 process`, 'req/s', 'CPU µs/req'],
    Object.values(SCENARIOS).map((s) => [s, ratio(rate(s, WORKERS), rate(s, 1)), ratio(cpu(s, WORKERS), cpu(s, 1))]),
  );
  const split = textTable(
    [`${WORKERS} workers: server CPU µs/req by process`, 'processes'],
    [...splits].map(([row, parts]) => [row.scenario, parts.map((p) => `${p.role} ${fixed(p.cpuUs, 0)}`).join(' / ')]),
  );
  process.stdout.write(`${header(startLoad, workload)}\n\n${rowsTable()}\n\n${ratios}\n\n${split}\n`);
}

async function loadBench() {
  if (!wrkVersion()) throw new Error('pnpm bench needs wrk (a separate load generator): apt-get install -y wrk');
  const startLoad = os.loadavg();
  const databaseFile = path.join(dir, 'bench.db');
  try {
    await baselines();
    log('preparing the workload (sessions, a 10,000-task list with ~20,000 edges, checklist runs)…');
    const workload = await prepareWorkload({ databaseFile, adminKey: ADMIN_KEY, seconds: SECONDS, workers: [1, WORKERS], log });
    await ours(workload, databaseFile, WORKERS === 1 ? [1] : [1, WORKERS]);
    rawBaselines();
    await fileStore();
    process.stdout.write(`${report(startLoad, workload)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
