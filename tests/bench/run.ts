// `pnpm bench`: todo_write throughput/latency (1 and 32 sessions) against bare-HTTP and raw-SQLite baselines, and a history-growth check;
// then the task graph at two list sizes (task-graph.ts), checklist runs, and what a model reads in tokens (token-budget.ts).
// `pnpm bench -- --only todo|tasks|runs|tokens` or BENCH_ONLY=… runs one part.
import { reportRunSteps, runStepsBench } from './run-steps.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentTasksClient, createClient } from '@agent-tasks/sdk';
import { startApp } from '@agent-tasks/server';
import Database from 'better-sqlite3';
import { startBareServer } from './bare-http-server.ts';
import { seedHistory } from './history-seed.ts';
import { measureQueryOverhead, type QueryOverheadRow } from './query-overhead.ts';
import { openRawStore } from './raw-sqlite.ts';
import { runLoad, settle } from './run-load.ts';
import { installSqlProbe, type SqlTally } from './sql-probe.ts';
import { type Summary, summarize } from './stats.ts';
import { reportTaskBench, runTaskBench } from './task-graph.ts';
import { reportTokenBudget, tokenBudgetBench } from './token-budget.ts';
import { fixed, ratio, textTable } from './text-table.ts';
import { LIST_SIZE, listAt } from './todo-lists.ts';

const envInt = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
const WRITES = envInt('BENCH_WRITES', 2000); // measured writes per scenario
const PARALLEL = envInt('BENCH_SESSIONS', 32);
const HISTORY = envInt('BENCH_HISTORY', 5000);
const SAMPLES = envInt('BENCH_SAMPLES', 300); // per operation in the history check and the SQL breakdown
const TASK_SAMPLES = envInt('BENCH_TASK_SAMPLES', 100); // timed calls per task-graph operation and list size
const TASK_SIZES = (process.env.BENCH_TASK_SIZES ?? '1000,10000').split(',').map(Number);

/** Which parts to run: `--only todo|tasks` (also `--only=…`, comma-separated) or BENCH_ONLY; both by default. */
function selectedParts(): Set<string> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  let only = process.env.BENCH_ONLY;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--only') only = args[++i];
    else if (arg.startsWith('--only=')) only = arg.slice('--only='.length);
    else throw new Error(`unknown argument ${arg} (expected --only todo|tasks|runs|tokens)`);
  }
  const parts = new Set(
    (only ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p && p !== 'all'),
  );
  for (const part of parts)
    if (!['todo', 'tasks', 'runs', 'tokens'].includes(part)) throw new Error(`--only ${part}: expected todo, tasks, runs or tokens`);
  return parts.size ? parts : new Set(['todo', 'tasks', 'runs', 'tokens']);
}

interface Scenario {
  label: string;
  workers: number;
  perWorker: number;
  warmupPerWorker: number;
}
const scenarios: Scenario[] = [
  { label: '1 session, sequential', workers: 1, perWorker: WRITES, warmupPerWorker: Math.ceil(WRITES / 10) },
  {
    label: `${PARALLEL} sessions in parallel`,
    workers: PARALLEL,
    perWorker: Math.ceil(WRITES / PARALLEL),
    warmupPerWorker: Math.max(2, Math.ceil(WRITES / 10 / PARALLEL)),
  },
];

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

interface Row {
  scenario: Scenario;
  system: string;
  summary: Summary;
}

async function main() {
  const parts = selectedParts();
  if (!TASK_SIZES.every((n) => Number.isInteger(n) && n > 0)) throw new Error('BENCH_TASK_SIZES: comma-separated list sizes');
  if (parts.has('todo')) await todoBench();
  if (parts.has('tasks')) {
    const started = performance.now();
    if (!parts.has('todo')) process.stdout.write(`agent-tasks bench (task graph only) — ${new Date().toISOString()}\n${machineLine()}\n\n`);
    const results = await runTaskBench({ sizes: TASK_SIZES, samples: TASK_SAMPLES, log });
    process.stdout.write(`${parts.has('todo') ? '\n' : ''}${reportTaskBench(results, (performance.now() - started) / 1000)}\n`);
    process.stdout.write(`${loadLine()}\n`);
  }
  if (parts.has('runs')) {
    const result = await runStepsBench({ runs: envInt('BENCH_RUNS', 5), tasks: 100, log });
    process.stdout.write(`\n${reportRunSteps(result)}\n${loadLine()}\n`);
  }
  if (parts.has('tokens')) process.stdout.write(`\n${reportTokenBudget(await tokenBudgetBench(log))}\n`);
}

function machineLine() {
  const cpus = os.cpus();
  return `machine: ${cpus.length} x ${cpus[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
}

function loadLine() {
  return `load average at the end (1/5/15 min): ${os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' / ')}  (other work on the machine skews the figures)`;
}

async function todoBench() {
  const started = performance.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-'));
  const databaseFile = path.join(dir, 'server.db');
  const app = await startApp({ databaseFile, port: 0 });
  const rows: Row[] = [];
  try {
    if (!app.firstRun) throw new Error('expected a first run on a fresh database (no admin key returned)');
    const admin = createClient({ url: app.url, token: app.firstRun.adminKey });
    const openSessions = async (count: number, title: string) =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const { session, token } = await admin.sessions.open({ title: `${title} ${i + 1}` });
          return { id: session.id, token, client: createClient({ url: app.url, token }) };
        }),
      );

    // Sizes of one real write on the wire, for the bare-HTTP baseline.
    const [sizing] = await openSessions(1, 'sizing');
    if (!sizing) throw new Error('no sizing session');
    const requestBody = JSON.stringify({ todos: listAt(5) });
    const sized = await fetch(`${app.url}/trpc/todos.write`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${sizing.token}` },
      body: requestBody,
    });
    const responseBody = await sized.text();
    if (!sized.ok) throw new Error(`sizing write failed: ${sized.status} ${responseBody}`);

    // (a) and (b) against the real server, through the SDK.
    for (const scenario of scenarios) {
      const sessions = await openSessions(scenario.workers, scenario.label);
      log(`ours: ${scenario.label}…`);
      const summary = await runLoad({
        ...scenario,
        op: (worker, step) => sessions[worker]!.client.todos.write({ todos: listAt(step) }),
      });
      rows.push({ scenario, system: 'ours: SDK > tRPC > Prisma > SQLite', summary });
    }

    // Baseline (i): bare node:http, same body sizes, same client concurrency, plain fetch.
    const bare = await startBareServer(responseBody);
    try {
      for (const scenario of scenarios) {
        log(`bare http: ${scenario.label}…`);
        const summary = await runLoad({
          ...scenario,
          op: async (_worker, step) => {
            const res = await fetch(`${bare.url}/trpc/todos.write`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${sizing.token}` },
              body: JSON.stringify({ todos: listAt(step) }),
            });
            if (!res.ok) throw new Error(`bare server: ${res.status}`);
            return res.json();
          },
        });
        rows.push({ scenario, system: 'base: bare node:http, no DB', summary });
      }
    } finally {
      await bare.close();
    }

    // Baseline (ii): raw better-sqlite3, same rows, same counts; SQLite defaults as in the server, then WAL for reference.
    const rawPragmas: string[] = [];
    for (const wal of [false, true]) {
      const raw = openRawStore(path.join(dir, wal ? 'raw-wal.db' : 'raw.db'), PARALLEL, { wal });
      rawPragmas.push(raw.pragmas());
      try {
        for (const scenario of scenarios) {
          log(`raw sqlite${wal ? ' (WAL)' : ''}: ${scenario.label}…`);
          const summary = await runLoad({ ...scenario, op: (worker, step) => raw.write(worker, listAt(step)) });
          rows.push({ scenario, system: wal ? 'ref: raw better-sqlite3, WAL' : 'base: raw better-sqlite3', summary });
        }
      } finally {
        raw.close();
      }
    }

    await settle();
    log(`history check (${HISTORY} prior updates)…`);
    const history = await historyCheck(databaseFile, openSessions);
    log('SQL breakdown…');
    const breakdown = await sqlBreakdown(openSessions);
    log('per-query overhead…');
    const overhead = await measureQueryOverhead(app, databaseFile, breakdown.session, SAMPLES * 5);

    const serverJournal = (() => {
      const db = new Database(databaseFile, { readonly: true });
      try {
        return String(db.pragma('journal_mode', { simple: true }));
      } finally {
        db.close();
      }
    })();

    report({
      rows,
      history,
      breakdown,
      overhead,
      requestBytes: Buffer.byteLength(requestBody),
      responseBytes: Buffer.byteLength(responseBody),
      rawPragmas,
      serverJournal,
      seconds: (performance.now() - started) / 1000,
    });
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface BenchSession {
  id: string;
  token: string;
  client: AgentTasksClient;
}
type OpenSessions = (count: number, title: string) => Promise<BenchSession[]>;

interface HistoryRow {
  op: string;
  small: Summary;
  large: Summary;
}

/** Same calls on a fresh session and on one with HISTORY prior updates, interleaved so drift hits both alike. */
async function historyCheck(databaseFile: string, openSessions: OpenSessions): Promise<HistoryRow[]> {
  const [first, second] = await openSessions(2, 'history');
  if (!first || !second) throw new Error('no history sessions');
  const fresh: BenchSession = first;
  const seeded: BenchSession = second;
  seedHistory(databaseFile, seeded.id, HISTORY);
  const check = await seeded.client.todos.get();
  if (check.revision !== HISTORY || check.items.length !== LIST_SIZE) {
    throw new Error(`seeded session reads back revision ${check.revision}, ${check.items.length} items`);
  }
  await fresh.client.todos.write({ todos: listAt(0) }); // so both reads return a 10-item list

  const steps = new Map<BenchSession, number>([
    [fresh, 1],
    [seeded, HISTORY],
  ]);
  const ops: [string, (s: BenchSession) => Promise<unknown>][] = [
    ['todos.get', (s) => s.client.todos.get()],
    ['sessions.get', (s) => s.client.sessions.get()],
    [
      'todos.write',
      (s) => {
        const step = steps.get(s) ?? 0;
        steps.set(s, step + 1);
        return s.client.todos.write({ todos: listAt(step) });
      },
    ],
  ];
  const rows: HistoryRow[] = [];
  for (const [op, call] of ops) {
    if (op !== 'todos.write') for (let i = 0; i < 20; i++) await Promise.all([call(fresh), call(seeded)]);
    const times = { small: [] as number[], large: [] as number[] };
    const wall = { small: 0, large: 0 };
    for (let i = 0; i < SAMPLES; i++) {
      for (const [key, session] of [
        ['small', fresh],
        ['large', seeded],
      ] as const) {
        const start = performance.now();
        await call(session);
        const ms = performance.now() - start;
        times[key].push(ms);
        wall[key] += ms;
      }
    }
    rows.push({ op, small: summarize(times.small, wall.small), large: summarize(times.large, wall.large) });
  }
  return rows;
}

interface BreakdownRow {
  op: string;
  clientMeanMs: number;
  cpuMs: number;
  tally: SqlTally;
  calls: number;
}

/** Sequential calls with better-sqlite3 instrumented: statements per call and time spent inside SQLite. */
async function sqlBreakdown(openSessions: OpenSessions): Promise<{ rows: BreakdownRow[]; writeSql: string[]; session: BenchSession }> {
  const [session] = await openSessions(1, 'breakdown');
  if (!session) throw new Error('no breakdown session');
  let step = 0;
  const ops: [string, () => Promise<unknown>][] = [
    ['todos.write', () => session.client.todos.write({ todos: listAt(step++) })],
    ['todos.get', () => session.client.todos.get()],
    ['sessions.get', () => session.client.sessions.get()],
  ];
  const probe = installSqlProbe();
  try {
    const rows: BreakdownRow[] = [];
    for (const [op, call] of ops) {
      for (let i = 0; i < 20; i++) await call();
      probe.reset();
      const cpuBefore = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < SAMPLES; i++) await call();
      const clientMeanMs = (performance.now() - start) / SAMPLES;
      const cpu = process.cpuUsage(cpuBefore);
      rows.push({ op, clientMeanMs, cpuMs: (cpu.user + cpu.system) / 1000 / SAMPLES, tally: probe.tally(), calls: SAMPLES });
    }
    probe.reset(true);
    await session.client.todos.write({ todos: listAt(step++) });
    return { rows, writeSql: probe.tally().sources, session };
  } finally {
    probe.uninstall();
  }
}

function report(r: {
  rows: Row[];
  history: HistoryRow[];
  breakdown: { rows: BreakdownRow[]; writeSql: string[] };
  overhead: QueryOverheadRow[];
  requestBytes: number;
  responseBytes: number;
  rawPragmas: string[];
  serverJournal: string;
  seconds: number;
}) {
  const out: string[] = [];
  out.push(
    `agent-tasks bench — ${new Date().toISOString()}`,
    machineLine(),
    `todo_write: ${LIST_SIZE}-item lists, statuses change every write; request body ${r.requestBytes} B, response body ${r.responseBytes} B`,
    `server DB: journal_mode=${r.serverJournal}, server connections as openDb sets them (apps/server/src/db/client.ts); raw baselines: ${r.rawPragmas.join(' | ')}`,
    `client and server share one Node process (one event loop); CPU ms/op is the whole process (client + server)`,
    loadLine(),
    '',
  );

  out.push('1. todo_write throughput and latency');
  out.push(
    textTable(
      ['scenario / system', 'writes', 'writes/s', 'p50 ms', 'p99 ms', 'mean ms', 'CPU ms/op'],
      r.rows.map(({ scenario, system, summary: s }) => [
        `${scenario.label.padEnd(24)} ${system}`,
        String(s.ops),
        fixed(s.perSecond, 0),
        fixed(s.p50, 3),
        fixed(s.p99, 3),
        fixed(s.mean, 3),
        fixed(s.cpuMsPerOp, 3),
      ]),
    ),
    '',
  );

  out.push('2. ratios, ours / baseline (throughput < 1x means slower; p50 > 1x means slower)');
  const ratioRows: string[][] = [];
  for (const scenario of scenarios) {
    const of = (prefix: string) => r.rows.find((row) => row.scenario === scenario && row.system.startsWith(prefix))?.summary;
    const ours = of('ours');
    if (!ours) continue;
    for (const [name, prefix] of [
      ['bare node:http', 'base: bare'],
      ['raw better-sqlite3', 'base: raw'],
      ['raw better-sqlite3, WAL (ref)', 'ref: raw'],
    ] as const) {
      const base = of(prefix);
      if (base)
        ratioRows.push([`${scenario.label.padEnd(24)} vs ${name}`, ratio(ours.perSecond, base.perSecond), ratio(ours.p50, base.p50)]);
    }
  }
  out.push(
    textTable(['scenario', 'throughput', 'p50'], ratioRows),
    `  (HTTP latencies at ${PARALLEL} sessions include queueing behind the other sessions' requests; raw SQLite latencies are`,
    '   one transaction each, the sessions taking turns on one connection, so that p50 ratio compares response time to service time)',
    '',
  );

  out.push(`3. history growth: fresh session vs one with ${HISTORY} prior updates (${SAMPLES} interleaved calls each)`);
  out.push(
    textTable(
      ['call', 'p50 fresh', `p50 ${HISTORY}`, 'p50 ratio', 'p99 fresh', `p99 ${HISTORY}`, 'mean ratio'],
      r.history.map(({ op, small, large }) => [
        op,
        fixed(small.p50, 3),
        fixed(large.p50, 3),
        fixed(large.p50 / small.p50, 2),
        fixed(small.p99, 3),
        fixed(large.p99, 3),
        fixed(large.mean / small.mean, 2),
      ]),
    ),
    `  (fresh: a new session given 1 update first, so both sides read the same 10-item list; reads are measured first,`,
    `   then writes take fresh from revision 1 and the other from ${HISTORY}, ${SAMPLES} writes each)`,
    '',
  );

  out.push(`4. where a call's time goes: 1 session, sequential, ${SAMPLES} calls, better-sqlite3 instrumented`);
  out.push(
    textTable(
      ['call', 'client ms', 'CPU ms', 'SQL stmts', 'by kind', 'in SQLite ms', 'of which COMMIT', 'prepare ms', 'outside SQLite ms'],
      r.breakdown.rows.map(({ op, clientMeanMs, cpuMs, tally, calls }) => {
        const kinds = [...tally.byKind.entries()]
          .map(([k, n]) => `${k} ${fixed(n / calls, Number.isInteger(n / calls) ? 0 : 2)}`)
          .join(', ');
        const inSqlite = (tally.execMs + tally.prepareMs) / calls;
        return [
          op,
          fixed(clientMeanMs, 3),
          fixed(cpuMs, 3),
          fixed(tally.statements / calls, 1),
          kinds,
          fixed(inSqlite, 3),
          fixed((tally.execMsByKind.get('COMMIT') ?? 0) / calls, 3),
          fixed(tally.prepareMs / calls, 3),
          fixed(clientMeanMs - inSqlite, 3),
        ];
      }),
    ),
    '  SQL of one todo_write, in order:',
    ...r.breakdown.writeSql.map((sql, i) => `   ${String(i + 1).padStart(2)}. ${sql.replace(/\s+/g, ' ').slice(0, 150)}`),
    '  (client ms: mean wall time of one call; CPU ms: process CPU per call; "in SQLite" includes prepare; all means)',
    '',
    `5. one query through the server's Prisma store vs raw better-sqlite3 (same DB file, sequential, ${SAMPLES * 5} each)`,
    textTable(
      ['query', 'Prisma p50 ms', 'raw p50 ms', 'Prisma mean', 'raw mean', 'Prisma CPU ms', 'raw CPU ms', 'p50 ratio'],
      r.overhead.map(({ query, prisma, raw }) => [
        query,
        fixed(prisma.p50, 3),
        fixed(raw.p50, 3),
        fixed(prisma.mean, 3),
        fixed(raw.mean, 3),
        fixed(prisma.cpuMsPerOp, 3),
        fixed(raw.cpuMsPerOp, 3),
        ratio(prisma.p50, raw.p50),
      ]),
    ),
    '',
    `total bench time ${r.seconds.toFixed(1)} s`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((error: unknown) => {
  const causes: unknown[] = [];
  for (let e: unknown = error; e instanceof Error && causes.length < 5; e = e.cause) causes.push(e);
  const text = causes.map((e) => (e as Error).stack ?? String(e)).join('\ncaused by: ');
  process.stderr.write(`bench failed: ${text || String(error)}\n`);
  process.exitCode = 1;
});
