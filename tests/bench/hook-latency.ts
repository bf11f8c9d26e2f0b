// Bench section (`pnpm bench -- --only hook`): what an agent waits for on each hook. Claude Code runs the PostToolUse
// hook on every TodoWrite / TaskCreate / TaskUpdate and waits for it, so the figure is from spawning the small entry
// `node bin/agent-tasks-hook.cjs claude-code` to its exit, against the built server on this machine. Next to it: the
// same hook as `node bin/agent-tasks.mjs hook claude-code` (the same fast path, after Node's ES module loader), through
// the whole command line (dist/cli.js: commander and the SDK), `agent-tasks --help`, and `node -e 0` (what starting
// node costs here at all), and the Codex and Gemini CLI hooks on their recorded payloads. The commands take turns, run by run, so a change in the machine's load hits them alike; each
// process also reports its CPU time (cpu-at-exit.cjs, preloaded in every run alike). Target (issue 20): p50 ≤ 150 ms.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@agent-tasks/sdk';
import { startAgentTasks } from './server-process.ts';
import { percentile } from './stats.ts';
import { fixed, textTable } from './text-table.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const bin = path.join(repoRoot, 'apps/server/bin/agent-tasks.mjs');
const hookBin = path.join(repoRoot, 'apps/server/bin/agent-tasks-hook.cjs');
const fullCli = path.join(repoRoot, 'apps/server/dist/cli.js');
const cpuAtExit = path.join(import.meta.dirname, 'cpu-at-exit.cjs');
/** The target of issue 20 for a hook from spawn to exit, p50. */
export const HOOK_P50_TARGET_MS = 150;

export interface HookLatencyRow {
  what: string;
  runs: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
  /** CPU time of the process (user + system), median over the runs. */
  cpuP50: number;
  /** Runs that did not exit 0 with empty stderr (a hook that reported a problem). */
  failures: number;
}

export interface HookLatencyResult {
  rows: HookLatencyRow[];
  hookP50: number;
  loadStart: number[];
  loadEnd: number[];
}

/** Spawns `node ...args` with `stdin`; resolves with ms from spawn to exit, and whether it exited 0 with no stderr. */
function timedRun(args: string[], stdin: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; ok: boolean; stderr: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-r', cpuAtExit, ...args], { cwd: repoRoot, env, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ ms: performance.now() - started, ok: code === 0 && stderr === '', stderr }));
  });
}

/** A PostToolUse TodoWrite payload as Claude Code sends it: the whole list, `n` items done so far. */
function todoWritePayload(sessionId: string, n: number) {
  const todos = ['Reproduce the bug', 'Write the fix', 'Run the tests', 'Update the changelog'].map((content, i) => ({
    content,
    status: i < n % 4 ? 'completed' : i === n % 4 ? 'in_progress' : 'pending',
    activeForm: `Working on: ${content}`,
  }));
  return JSON.stringify({
    session_id: sessionId,
    transcript_path: `/home/dev/.claude/projects/-home-dev-projects-shop-api/${sessionId}.jsonl`,
    cwd: '/home/dev/projects/shop-api',
    permission_mode: 'default',
    hook_event_name: 'PostToolUse',
    tool_name: 'TodoWrite',
    tool_input: { todos },
    tool_response: { oldTodos: [], newTodos: todos },
    tool_use_id: `toolu_01${randomUUID().replace(/-/g, '').slice(0, 22)}`,
  });
}

/** A recorded hook payload of another runtime (tests/fixtures/<runtime>/<name>.json) for one session. */
function fixturePayload(runtime: string, name: string, sessionId: string) {
  const file = path.join(repoRoot, 'tests/fixtures', runtime, `${name}.json`);
  return JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), session_id: sessionId });
}

export async function hookLatencyBench(options: { runs: number; log: (line: string) => void }): Promise<HookLatencyResult> {
  const loadStart = os.loadavg();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-hook-'));
  const adminKey = `atk_bench_hook_${randomUUID().replace(/-/g, '')}`;
  const server = await startAgentTasks({ databaseFile: path.join(dir, 'hook.db'), adminKey, workers: 1 });
  const rows: HookLatencyRow[] = [];
  try {
    const admin = createClient({ url: server.url, token: adminKey });
    const agentKey = (await admin.keys.create({ name: 'hook bench', role: 'agent' })).token;
    const cpuFile = path.join(dir, 'cpu.txt');
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: agentKey, BENCH_CPU_FILE: cpuFile };
    const sessionId = randomUUID();
    const todoWrite = (i: number) => todoWritePayload(sessionId, i);
    const codexPlan = fixturePayload('codex', 'post-tool-use-update-plan', randomUUID());
    const geminiTodos = fixturePayload('gemini', 'after-tool-write-todos', randomUUID());
    const commands: { what: string; args: string[]; stdin: (i: number) => string }[] = [
      { what: 'node -e 0 (starting node, nothing else)', args: ['-e', '0'], stdin: () => '' },
      { what: 'agent-tasks-hook claude-code: PostToolUse TodoWrite', args: [hookBin, 'claude-code'], stdin: todoWrite },
      { what: 'agent-tasks hook claude-code: the same', args: [bin, 'hook', 'claude-code'], stdin: todoWrite },
      { what: 'the same through the whole command line (dist/cli.js)', args: [fullCli, 'hook', 'claude-code'], stdin: todoWrite },
      { what: 'agent-tasks-hook codex: PostToolUse update_plan', args: [hookBin, 'codex'], stdin: () => codexPlan },
      { what: 'agent-tasks-hook gemini: AfterTool write_todos', args: [hookBin, 'gemini'], stdin: () => geminiTodos },
      { what: 'agent-tasks --help', args: [bin, '--help'], stdin: () => '' },
    ];
    // Warm-up: the first hook writes the code cache; the OS caches the files.
    options.log(`hook: ${commands.length} commands, 3 warm-up runs and ${options.runs} timed runs each, taking turns…`);
    for (const c of commands) for (let i = 0; i < 3; i++) await timedRun(c.args, c.stdin(i), env);
    const samples = commands.map(() => ({ times: [] as number[], cpu: [] as number[], failures: 0 }));
    for (let i = 0; i < options.runs; i++) {
      for (const [n, c] of commands.entries()) {
        const sample = samples[n];
        if (!sample) continue;
        writeFileSync(cpuFile, '');
        const run = await timedRun(c.args, c.stdin(i), env);
        sample.times.push(run.ms);
        sample.cpu.push(Number(readFileSync(cpuFile, 'utf8').trim()));
        if (!run.ok && ++sample.failures === 1) options.log(`  ${c.what} failed: ${run.stderr.trim()}`);
      }
    }
    for (const [n, c] of commands.entries()) {
      const sample = samples[n];
      if (!sample) continue;
      const times = [...sample.times].sort((a, b) => a - b);
      rows.push({
        what: c.what,
        runs: options.runs,
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        min: times[0] ?? NaN,
        max: times.at(-1) ?? NaN,
        cpuP50: percentile(
          [...sample.cpu].sort((a, b) => a - b),
          50,
        ),
        failures: sample.failures,
      });
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const hookP50 = rows.find((r) => r.what.startsWith('agent-tasks-hook'))?.p50 ?? NaN;
  return { rows, hookP50, loadStart, loadEnd: os.loadavg() };
}

export function reportHookLatency(result: HookLatencyResult): string {
  const load = (values: number[]) => values.map((v) => v.toFixed(2)).join(' / ');
  return [
    `What an agent waits for on each hook: spawn to exit of \`node bin/…\` against the built server (${os.availableParallelism()} cores)`,
    textTable(
      ['command', 'runs', 'p50 ms', 'p99 ms', 'min', 'max', 'CPU p50 ms', 'failures'],
      result.rows.map((r) => [
        r.what,
        String(r.runs),
        fixed(r.p50, 0),
        fixed(r.p99, 0),
        fixed(r.min, 0),
        fixed(r.max, 0),
        fixed(r.cpuP50, 0),
        String(r.failures),
      ]),
    ),
    `target (issue 20): hook p50 <= ${HOOK_P50_TARGET_MS} ms through the small entry: ${fixed(result.hookP50, 0)} ms, ${result.hookP50 <= HOOK_P50_TARGET_MS ? 'met' : 'NOT met'}`,
    `load average (1/5/15 min) at the start: ${load(result.loadStart)}; at the end: ${load(result.loadEnd)} (other work on the machine skews absolutes)`,
  ].join('\n');
}
