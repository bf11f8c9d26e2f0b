// Bench section: a 100-task checklist run driven step by step over HTTP — steps per second, p50/p99 per step, and
// whether a step's cost grows with the cursor (first ten steps against the last ten).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { startApp } from '@agent-tasks/server';
import { percentile, summarize } from './stats.ts';
import { fixed, textTable } from './text-table.ts';

export async function runStepsBench(options: { runs: number; tasks: number; log: (line: string) => void }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-runs-'));
  const app = await startApp({ databaseFile: path.join(dir, 'bench.db'), port: 0 });
  try {
    const admin = createClient({ url: app.url, token: app.firstRun?.adminKey ?? '' });
    const { token } = await admin.keys.create({ name: 'bench', role: 'agent' });
    const { client } = await openSessionClient(createClient({ url: app.url, token }), { title: 'run bench' });
    const checklist = Array.from({ length: options.tasks }, (_, i) => ({
      action: `Perform step ${i + 1} of the release checklist and record what was checked`,
      expected_result: `Step ${i + 1} is verified by its check`,
    }));
    const all: number[] = [];
    const first: number[] = [];
    const last: number[] = [];
    let wall = 0;
    for (let r = 0; r < options.runs + 1; r++) {
      const warmup = r === 0;
      options.log(`run steps: ${warmup ? 'warm-up' : `run ${r}/${options.runs}`} (${options.tasks} tasks)…`);
      const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
      const run = await client.runs.execute({ startAttemptId });
      await client.runs.name({ runId: run.id, name: `Bench run ${r}` });
      let view = await client.runs.intake({ runId: run.id, tasks: checklist, progress_checklist_outcome: `${options.tasks} tasks` });
      const started = performance.now();
      for (let task = 1; task <= options.tasks; task++) {
        const t0 = performance.now();
        // Each step answers with the run's next step attempt.
        view = await client.runs.step({
          runId: run.id,
          attemptId: view.attemptId ?? '',
          task,
          evidence: `check ${task} passed`,
          progress_execution_outcome: `step ${task} verified`,
        });
        const ms = performance.now() - t0;
        if (warmup) continue;
        all.push(ms);
        if (task <= 10) first.push(ms);
        if (task > options.tasks - 10) last.push(ms);
      }
      if (!warmup) wall += performance.now() - started;
      const done = await client.runs.get({ runId: run.id });
      if (done.status !== 'completed') throw new Error(`run ${run.id} did not complete`);
    }
    const summary = summarize(all, wall);
    const p50 = (xs: number[]) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        50,
      );
    return { summary, firstP50: p50(first), lastP50: p50(last), runs: options.runs, tasks: options.tasks };
  } finally {
    await app.close();
  }
}

export function reportRunSteps(r: Awaited<ReturnType<typeof runStepsBench>>) {
  return [
    `checklist run: ${r.runs} runs of ${r.tasks} tasks, each stepped to completion over HTTP (SDK > tRPC > Prisma > SQLite), sequential`,
    textTable(
      ['steps', 'steps/s', 'p50 ms', 'p99 ms', 'mean ms', 'p50 steps 1-10', `p50 steps ${r.tasks - 9}-${r.tasks}`, 'last/first'],
      [
        [
          String(r.summary.ops),
          fixed(r.summary.perSecond, 0),
          fixed(r.summary.p50),
          fixed(r.summary.p99),
          fixed(r.summary.mean),
          fixed(r.firstP50),
          fixed(r.lastP50),
          `${(r.lastP50 / r.firstP50).toFixed(2)}x`,
        ],
      ],
    ),
  ].join('\n');
}
