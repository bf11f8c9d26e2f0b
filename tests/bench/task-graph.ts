// `pnpm bench -- --only tasks`: task-graph calls (edge add with its cycle check, ready list, claim-next, plan) at two list sizes.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentTasksClient, createClient } from '@agent-tasks/sdk';
import { startApp } from '@agent-tasks/server';
import { installSqlProbe } from './sql-probe.ts';
import { percentile, summarize, type Summary } from './stats.ts';
import { type GraphShape, prng, type SeededGraph, seedTaskGraph } from './task-graph-seed.ts';
import { fixed, textTable } from './text-table.ts';

export interface TaskBenchOptions {
  /** List sizes, smallest first; the growth ratio is last / first. */
  sizes: number[];
  /** Timed calls per operation and size (the plan gets a quarter of them, at least 10). */
  samples: number;
  log: (line: string) => void;
}

export const OPS = [
  'edge add, accepted',
  'edge add, refused (cycle)',
  'list readyOnly',
  'claim-next',
  'claim-next, newest ready *',
  'plan',
] as const;
export type Op = (typeof OPS)[number];

interface OpResult {
  summary: Summary;
  /** From a few extra calls with better-sqlite3 instrumented. */
  sqlStatements: number;
  sqlMs: number;
}

export interface SizeResult {
  size: number;
  shape: GraphShape;
  graph: { edges: number; seedMs: number; timestampFormat: string };
  plan: { waves: number; widest: number; criticalPath: number };
  /** Mean number of tasks downstream of the accepted edges' blocked ends (what the cycle walk must visit). */
  acceptedCone: number;
  /** p50 of the accepted edges whose cone is in the smallest / largest third. */
  acceptedByCone: { small: number; large: number; smallCone: number; largeCone: number };
  acceptedLevels: number;
  /** The same for the instrumented calls of table 7. */
  probedLevels: number;
  refusedLevels: number;
  ops: Map<Op, OpResult>;
}

const LIST = 'bench-graph';
const REVERSED_LIST = 'bench-graph-top-down';
const WINDOW = 40;
const WARMUP = 5;
const PROBED = 20;
const REFUSED_HOPS = 3;

const sizeLabel = (n: number) => (n % 1000 === 0 ? `${n / 1000}k` : String(n));

/** Tasks reachable from `from` along "blocks" edges, and the number of BFS levels that takes (the cycle walk's queries). */
function cone(blocks: readonly number[][], from: number): { size: number; levels: number } {
  const seen = new Set([from]);
  let frontier = [from];
  let levels = 0;
  while (frontier.length > 0) {
    levels++;
    const next: number[] = [];
    for (const at of frontier) {
      for (const to of blocks[at] ?? []) {
        if (seen.has(to)) continue;
        seen.add(to);
        next.push(to);
      }
    }
    frontier = next;
  }
  return { size: seen.size - 1, levels };
}

/** Levels of the walk from `from` until it meets `target` (the refused edge's cycle walk). */
function levelsTo(blocks: readonly number[][], from: number, target: number): number {
  const seen = new Set([from]);
  let frontier = [from];
  for (let level = 1; frontier.length > 0; level++) {
    const next: number[] = [];
    for (const at of frontier) {
      for (const to of blocks[at] ?? []) {
        if (to === target) return level;
        if (!seen.has(to)) {
          seen.add(to);
          next.push(to);
        }
      }
    }
    frontier = next;
  }
  return Number.NaN;
}

interface Timed {
  summary: Summary;
  /** Per call, in call order. */
  latencies: number[];
}

/**
 * Times `call` on every bed, taking turns call by call (1k, 10k, 1k, 10k…) so that drift in the machine's load hits
 * every size alike; `warmup` untimed turns first. CPU is summed per bed from the process's usage around each call.
 */
async function interleaved(
  beds: readonly Bed[],
  count: number,
  warmup: number,
  call: (bed: Bed, step: number) => Promise<unknown>,
): Promise<Timed[]> {
  for (let step = 0; step < warmup; step++) for (const bed of beds) await call(bed, step);
  const latencies = beds.map(() => [] as number[]);
  const cpuMs = beds.map(() => 0);
  for (let step = warmup; step < warmup + count; step++) {
    for (const [k, bed] of beds.entries()) {
      const cpuBefore = process.cpuUsage();
      const t = performance.now();
      await call(bed, step);
      latencies[k]!.push(performance.now() - t);
      const cpu = process.cpuUsage(cpuBefore);
      cpuMs[k]! += (cpu.user + cpu.system) / 1000;
    }
  }
  return beds.map((_, k) => {
    const own = latencies[k]!;
    return {
      summary: summarize(
        own,
        own.reduce((a, b) => a + b, 0),
        cpuMs[k],
      ),
      latencies: own,
    };
  });
}

/** A few more calls with better-sqlite3 instrumented: statements and time inside SQLite per call. */
async function probed(count: number, from: number, call: (step: number) => Promise<unknown>) {
  const probe = installSqlProbe();
  try {
    for (let step = from; step < from + count; step++) await call(step);
    const tally = probe.tally();
    return { sqlStatements: tally.statements / count, sqlMs: (tally.execMs + tally.prepareMs) / count };
  } finally {
    probe.uninstall();
  }
}

const refusal = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    if (error instanceof Error && error.message.includes('would close a cycle')) return;
    throw error;
  }
  throw new Error('an edge closing a cycle was accepted');
};

/** One list size: its own server and database file, a session, and the seeded list. */
interface Bed {
  size: number;
  databaseFile: string;
  close(): Promise<void>;
  client: AgentTasksClient;
  shape: GraphShape;
  graph: SeededGraph;
  /** [from, to), from this size's own PRNG. */
  pick(from: number, to: number): number;
  random(): number;
  accepted: { i: number; j: number }[];
  cones: { size: number; levels: number }[];
  refused: { i: number; a: number }[];
  reversed: SeededGraph | null;
  plan: { waves: number; widest: number; criticalPath: number };
  ops: Map<Op, OpResult>;
}

async function openBed(dir: string, size: number, samples: number, log: (line: string) => void): Promise<Bed> {
  const databaseFile = path.join(dir, `tasks-${size}.db`);
  const app = await startApp({ databaseFile, port: 0 });
  try {
    if (!app.firstRun) throw new Error('expected a first run on a fresh database (no admin key returned)');
    const admin = createClient({ url: app.url, token: app.firstRun.adminKey });
    const { token } = await admin.sessions.open({ title: `task graph ${size}`, agentName: 'bench-agent' });
    const client: AgentTasksClient = createClient({ url: app.url, token });

    // The list and its first task through the API (so the list row is the server's own), the rest straight into SQLite.
    const shape: GraphShape = { size, roots: WARMUP + samples + PROBED + 20, window: WINDOW, seed: 20261130 };
    if (size < shape.roots + 10 * WINDOW) throw new Error(`a list of ${size} tasks is too small for ${samples} samples`);
    const first = await client.tasks.create({ listName: LIST, subject: 'Bench task 1' });
    log(`tasks N=${size}: seeding ${size} tasks…`);
    const graph = seedTaskGraph(databaseFile, LIST, first.id, shape);
    const last = await client.tasks.get({ listName: LIST, id: graph.ids[size - 1]! });
    if (last.blockedBy.length !== graph.blockers[size - 1]!.length || last.status !== 'pending') {
      throw new Error(`seeded task reads back as ${JSON.stringify(last)}`);
    }
    const random = prng(size);
    return {
      size,
      databaseFile,
      close: () => app.close(),
      client,
      shape,
      graph,
      random,
      pick: (from, to) => from + Math.floor(random() * (to - from)),
      accepted: [],
      cones: [],
      refused: [],
      reversed: null,
      plan: { waves: 0, widest: 0, criticalPath: 0 },
      ops: new Map(),
    };
  } catch (error) {
    await app.close();
    throw error;
  }
}

/** Runs one operation on every bed (interleaved), then its instrumented calls bed by bed. */
async function measure(
  beds: readonly Bed[],
  op: Op,
  counts: { samples: number; warmup: number; probed: number },
  call: (bed: Bed, step: number) => Promise<unknown>,
  log: (line: string) => void,
): Promise<Timed[]> {
  log(`tasks ${beds.map((b) => sizeLabel(b.size)).join(' + ')}: ${op}…`);
  const timed = await interleaved(beds, counts.samples, counts.warmup, call);
  for (const [k, bed] of beds.entries()) {
    const sql = await probed(counts.probed, counts.warmup + counts.samples, (step) => call(bed, step));
    bed.ops.set(op, { summary: timed[k]!.summary, ...sql });
  }
  return timed;
}

export async function runTaskBench({ sizes, samples, log }: TaskBenchOptions): Promise<SizeResult[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-tasks-'));
  const beds: Bed[] = [];
  try {
    // One server and database file per size, so no list shares its tables with another; all up at once, so that
    // every operation can alternate between the sizes.
    for (const size of sizes) beds.push(await openBed(dir, size, samples, log));
    const planned = WARMUP + samples + PROBED;
    const counts = { samples, warmup: WARMUP, probed: PROBED };

    // Edge add, accepted: blocked i anywhere past the roots, blocker j among the 40 before it (not already an edge).
    // Every edge runs forward in creation order, so the walk from i never meets j and visits all of i's downstream.
    for (const bed of beds) {
      const { blockers, blocks } = bed.graph;
      while (bed.accepted.length < planned) {
        const i = bed.pick(bed.shape.roots + WINDOW, bed.size);
        const j = bed.pick(i - WINDOW, i);
        if (blockers[i]!.includes(j)) continue;
        blockers[i]!.push(j);
        blocks[j]!.push(i);
        bed.accepted.push({ i, j });
      }
      bed.cones = bed.accepted.map(({ i }) => cone(blocks, i));
    }
    const accepted = await measure(
      beds,
      'edge add, accepted',
      counts,
      async (bed, step) => {
        const { i, j } = bed.accepted[step]!;
        const { ids } = bed.graph;
        const task = await bed.client.tasks.update({ listName: LIST, id: ids[i]!, addBlockedBy: [ids[j]!] });
        if (!task.blockedBy.includes(ids[j]!)) throw new Error(`edge ${j} → ${i} not recorded`);
      },
      log,
    );

    // Edge add, refused: task i would block one of its ancestors 3 hops up, closing a short cycle.
    for (const bed of beds) {
      const { blockers } = bed.graph;
      bed.refused = Array.from({ length: planned }, () => {
        const i = bed.pick(bed.shape.roots + 4 * WINDOW, bed.size);
        let a = i;
        for (let hop = 0; hop < REFUSED_HOPS; hop++) {
          const up = blockers[a]!;
          a = up[Math.floor(bed.random() * up.length)]!;
        }
        return { i, a };
      });
    }
    await measure(
      beds,
      'edge add, refused (cycle)',
      counts,
      (bed, step) => {
        const { i, a } = bed.refused[step]!;
        const { ids } = bed.graph;
        return refusal(bed.client.tasks.update({ listName: LIST, id: ids[a]!, addBlockedBy: [ids[i]!] }));
      },
      log,
    );

    // The ready list: exactly the roots, as no edge above ends at a root.
    await measure(
      beds,
      'list readyOnly',
      counts,
      async (bed) => {
        const { tasks } = await bed.client.tasks.list({ listName: LIST, readyOnly: true });
        if (tasks.length !== bed.shape.roots || !tasks.every((t) => t.ready)) {
          throw new Error(`readyOnly answered ${tasks.length} tasks, expected the ${bed.shape.roots} roots`);
        }
      },
      log,
    );

    // Claim-next: the oldest ready task each time, i.e. the roots in creation order.
    await measure(
      beds,
      'claim-next',
      counts,
      async (bed, step) => {
        const { task } = await bed.client.tasks.claim({ listName: LIST });
        const expected = bed.graph.ids[step];
        if (task?.id !== expected) throw new Error(`claim ${step} took ${task?.id ?? 'nothing'}, expected ${expected}`);
      },
      log,
    );

    // The plan: the whole remaining graph (every task is pending or in progress).
    const planCounts = { samples: Math.max(10, Math.ceil(samples / 4)), warmup: 2, probed: 2 };
    await measure(
      beds,
      'plan',
      planCounts,
      async (bed) => {
        const answer = await bed.client.tasks.plan({ listName: LIST });
        const planned = answer.waves.reduce((n, wave) => n + wave.length, 0);
        if (planned !== bed.size) throw new Error(`plan holds ${planned} tasks, expected ${bed.size}`);
        bed.plan = {
          waves: answer.waves.length,
          widest: Math.max(...answer.waves.map((w) => w.length)),
          criticalPath: answer.criticalPathLength,
        };
      },
      log,
    );

    // Claim-next on a second list planned top-down: the oldest pending tasks wait on newer ones and the ready ones
    // are the newest, so the oldest-ready search passes every blocked pending task first.
    for (const bed of beds) {
      const top = await bed.client.tasks.create({ listName: REVERSED_LIST, subject: 'Bench task 1' });
      log(`tasks N=${bed.size}: seeding a list planned top-down…`);
      bed.reversed = seedTaskGraph(bed.databaseFile, REVERSED_LIST, top.id, { ...bed.shape, reversed: true });
    }
    await measure(
      beds,
      'claim-next, newest ready *',
      counts,
      async (bed, step) => {
        const { task } = await bed.client.tasks.claim({ listName: REVERSED_LIST });
        const expected = bed.reversed?.ids[bed.size - bed.shape.roots + step];
        if (task?.id !== expected) throw new Error(`claim ${step} took ${task?.id ?? 'nothing'}, expected ${expected}`);
      },
      log,
    );

    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    const median = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
    return beds.map((bed, k) => {
      const measured = bed.cones.slice(WARMUP, WARMUP + samples);
      // p50 of the accepted-edge calls grouped by how much of the graph their cycle walk had to visit.
      const byCone = measured.map((c, n) => ({ cone: c.size, ms: accepted[k]!.latencies[n]! })).sort((a, b) => a.cone - b.cone);
      const third = Math.max(1, Math.floor(byCone.length / 3));
      const smallest = byCone.slice(0, third);
      const largest = byCone.slice(-third);
      return {
        size: bed.size,
        shape: bed.shape,
        graph: { edges: bed.graph.edges, seedMs: bed.graph.seedMs, timestampFormat: bed.graph.timestampFormat },
        plan: bed.plan,
        acceptedCone: mean(measured.map((c) => c.size)),
        acceptedByCone: {
          small: median(smallest.map((c) => c.ms)),
          large: median(largest.map((c) => c.ms)),
          smallCone: mean(smallest.map((c) => c.cone)),
          largeCone: mean(largest.map((c) => c.cone)),
        },
        acceptedLevels: mean(measured.map((c) => c.levels)),
        probedLevels: mean(bed.cones.slice(WARMUP + samples).map((c) => c.levels)),
        refusedLevels: mean(bed.refused.slice(WARMUP, WARMUP + samples).map(({ i, a }) => levelsTo(bed.graph.blocks, a, i))),
        ops: bed.ops,
      };
    });
  } finally {
    for (const bed of beds) await bed.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportTaskBench(results: SizeResult[], seconds: number): string {
  const small = results[0];
  const large = results[results.length - 1];
  if (!small || !large) return '';
  const out: string[] = [];
  const growth = `${sizeLabel(large.size)}/${sizeLabel(small.size)}`;
  out.push(
    `6. task graph: one list of N tasks, ~2N edges, each call sequential over HTTP through the SDK (${small.ops.get('claim-next')?.summary.ops ?? '?'} timed calls each, plan ${small.ops.get('plan')?.summary.ops ?? '?'})`,
  );
  for (const r of results) {
    out.push(
      `  N=${r.size}: ${r.size} tasks (first ${r.shape.roots} without blockers, every later one blocked by 2 of the ${r.shape.window} before it), ` +
        `${r.graph.edges} edges, seeded in ${fixed(r.graph.seedMs, 0)} ms (DateTime as ${r.graph.timestampFormat.split(' (')[0]}); ` +
        `plan: ${r.plan.waves} waves, widest ${r.plan.widest}, critical path ${r.plan.criticalPath}`,
    );
  }
  const header = ['call'];
  for (const r of results) header.push(`p50 ${sizeLabel(r.size)}`, `p99 ${sizeLabel(r.size)}`);
  header.push(`p50 ${growth}`);
  out.push(
    textTable(
      header,
      OPS.map((op) => {
        const row: string[] = [op];
        for (const r of results) {
          const s = r.ops.get(op)?.summary;
          row.push(fixed(s?.p50, 2), fixed(s?.p99, 2));
        }
        const a = small.ops.get(op)?.summary.p50;
        const b = large.ops.get(op)?.summary.p50;
        row.push(a && b ? `${fixed(b / a, 2)}x` : '-');
        return row;
      }),
    ),
  );
  const sqlHeader = ['call'];
  for (const r of results)
    sqlHeader.push(`SQL stmts ${sizeLabel(r.size)}`, `in SQLite ms ${sizeLabel(r.size)}`, `CPU ms ${sizeLabel(r.size)}`);
  out.push(
    '  * claim-next on a second list of the same size planned top-down: the ready tasks are the newest, every older pending task is blocked',
    '  (each size runs on its own server and database file; the calls alternate between the sizes, so load drift hits both alike)',
    '',
    `7. per call: SQL statements and time inside SQLite from ${PROBED} more calls with better-sqlite3 instrumented (plan: 2); CPU is the process's, around the timed calls`,
    textTable(
      sqlHeader,
      OPS.map((op) => {
        const row: string[] = [op];
        for (const r of results) {
          const o = r.ops.get(op);
          row.push(fixed(o?.sqlStatements, 1), fixed(o?.sqlMs, 2), fixed(o?.summary.cpuMsPerOp, 2));
        }
        return row;
      }),
    ),
    ...results.map(
      (r) =>
        `  N=${r.size}: accepted edges: the cycle walk visits ${fixed(r.acceptedCone, 0)} downstream tasks on average in ${fixed(r.acceptedLevels, 1)} levels ` +
        `(one query per level; ${fixed(r.probedLevels, 1)} levels in the instrumented calls); p50 ${fixed(r.acceptedByCone.small, 2)} ms for the third ` +
        `with the smallest walks (${fixed(r.acceptedByCone.smallCone, 0)} tasks), ${fixed(r.acceptedByCone.large, 2)} ms for the largest (${fixed(r.acceptedByCone.largeCone, 0)}); ` +
        `refused edges meet the cycle after ${fixed(r.refusedLevels, 1)} levels; readyOnly answers the ${r.shape.roots} roots`,
    ),
    `task graph bench time ${seconds.toFixed(1)} s`,
  );
  return out.join('\n');
}
