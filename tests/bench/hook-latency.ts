// Bench section (`pnpm bench -- --only hook`): what an agent waits for on each hook. Claude Code runs the PostToolUse
// hook on every TodoWrite / TaskCreate / TaskUpdate and waits for it, so the figure is from spawning
// `node bin/agent-tasks.mjs hook claude-code` (the README's configured command) to its exit, against the built server
// on this machine; next to it the same hook through the whole command line (dist/cli.js, the way it ran before the fast
// path), `agent-tasks --help`, and `node -e 0` (what starting node costs here at all). Target (issue 20): hook p50 ≤ 150 ms.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@agent-tasks/sdk';
import { startAgentTasks } from './server-process.ts';
import { percentile } from './stats.ts';
import { fixed, textTable } from './text-table.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const bin = path.join(repoRoot, 'apps/server/bin/agent-tasks.mjs');
const fullCli = path.join(repoRoot, 'apps/server/dist/cli.js');
/** The target of issue 20 for a hook from spawn to exit, p50. */
export const HOOK_P50_TARGET_MS = 150;

export interface HookLatencyRow {
  what: string;
  runs: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
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
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['pipe', 'ignore', 'pipe'] });
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

export async function hookLatencyBench(options: { runs: number; log: (line: string) => void }): Promise<HookLatencyResult> {
  const loadStart = os.loadavg();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-hook-'));
  const adminKey = `atk_bench_hook_${randomUUID().replace(/-/g, '')}`;
  const server = await startAgentTasks({ databaseFile: path.join(dir, 'hook.db'), adminKey, workers: 1 });
  const rows: HookLatencyRow[] = [];
  try {
    const admin = createClient({ url: server.url, token: adminKey });
    const agentKey = (await admin.keys.create({ name: 'hook bench', role: 'agent' })).token;
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: agentKey };
    const sessionId = randomUUID();
    const measure = async (what: string, args: string[], stdin: (i: number) => string, runs = options.runs) => {
      options.log(`hook: ${what} × ${runs}…`);
      // Warm-up: the first hook writes the code cache; the OS caches the files.
      for (let i = 0; i < 3; i++) await timedRun(args, stdin(i), env);
      const times: number[] = [];
      let failures = 0;
      for (let i = 0; i < runs; i++) {
        const run = await timedRun(args, stdin(i), env);
        times.push(run.ms);
        if (!run.ok) {
          failures += 1;
          if (failures === 1) options.log(`  failed: ${run.stderr.trim()}`);
        }
      }
      times.sort((a, b) => a - b);
      rows.push({
        what,
        runs,
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        min: times[0] ?? NaN,
        max: times.at(-1) ?? NaN,
        failures,
      });
    };
    await measure('node -e 0 (starting node, nothing else)', ['-e', '0'], () => '');
    await measure('agent-tasks hook claude-code: PostToolUse TodoWrite', [bin, 'hook', 'claude-code'], (i) =>
      todoWritePayload(sessionId, i),
    );
    await measure('the same through the whole command line (dist/cli.js)', [fullCli, 'hook', 'claude-code'], (i) =>
      todoWritePayload(sessionId, i),
    );
    await measure('agent-tasks --help', [bin, '--help'], () => '');
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const hookP50 = rows.find((r) => r.what.startsWith('agent-tasks hook'))?.p50 ?? NaN;
  return { rows, hookP50, loadStart, loadEnd: os.loadavg() };
}

export function reportHookLatency(result: HookLatencyResult): string {
  const load = (values: number[]) => values.map((v) => v.toFixed(2)).join(' / ');
  return [
    `What an agent waits for on each hook: spawn to exit of \`node bin/agent-tasks.mjs …\` against the built server (${os.availableParallelism()} cores)`,
    textTable(
      ['command', 'runs', 'p50 ms', 'p99 ms', 'min', 'max', 'failures'],
      result.rows.map((r) => [
        r.what,
        String(r.runs),
        fixed(r.p50, 0),
        fixed(r.p99, 0),
        fixed(r.min, 0),
        fixed(r.max, 0),
        String(r.failures),
      ]),
    ),
    `target (issue 20): hook p50 <= ${HOOK_P50_TARGET_MS} ms: ${fixed(result.hookP50, 0)} ms, ${result.hookP50 <= HOOK_P50_TARGET_MS ? 'met' : 'NOT met'}`,
    `load average (1/5/15 min) at the start: ${load(result.loadStart)}; at the end: ${load(result.loadEnd)} (other work on the machine skews absolutes)`,
  ].join('\n');
}
