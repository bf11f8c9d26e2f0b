// The slow-body probe: `agent-tasks serve` (built; one process) under 70 sockets that each send `POST /trpc/todos.write`
// with `Content-Length: 1000000`, `{"todos":[` and then 10 spaces every 5 s, no Authorization, reconnecting when cut;
// meanwhile one valid session writes its list, one call after another. Prints the calls served, their p50/p99/max and
// what the sockets were answered. `pnpm build && tsx tests/bench/slow-bodies.ts`; BENCH_SECONDS (default 25),
// BENCH_SOCKETS (default 70).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { quantile, slowBodyAttack } from '../support/slow-bodies.ts';
import { startAgentTasks } from './server-process.ts';

const seconds = Number(process.env.BENCH_SECONDS) || 25;
const sockets = Number(process.env.BENCH_SOCKETS) || 70;
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-slow-'));
const adminKey = `atk_bench_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const server = await startAgentTasks({ databaseFile: path.join(dir, 'bench.db'), adminKey, workers: 1 });
try {
  const admin = createClient({ url: server.url, token: adminKey });
  const { token } = await admin.keys.create({ name: 'bench agent', role: 'agent' });
  const { client } = await openSessionClient(createClient({ url: server.url, token }), { title: 'through the attack' });
  const attack = slowBodyAttack({ url: server.url, sockets });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const latencies: number[] = [];
  let failed = 0;
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    try {
      await client.todos.write({ todos: [{ content: `Write ${latencies.length + 1}`, status: 'pending' }] });
      latencies.push(performance.now() - started);
    } catch {
      failed += 1;
    }
  }
  attack.stop();
  const statuses = new Map<string, number>();
  for (const answer of attack.answers()) {
    const status = answer.slice(9, 12);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  process.stdout.write(
    [
      `slow-body attack: ${sockets} sockets, ${seconds} s, ${attack.connections()} connections opened`,
      `valid todos.write calls served: ${latencies.length} (${failed} failed)`,
      `latency p50 ${ms(quantile(latencies, 0.5))}, p99 ${ms(quantile(latencies, 0.99))}, max ${ms(quantile(latencies, 1))} (goal: p99 <= 500 ms)`,
      `attack sockets answered: ${[...statuses].map(([status, n]) => `${n} x ${status}`).join(', ')}`,
      '',
    ].join('\n'),
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
