// The stack's ratio measured so that a loaded machine skews both sides alike: the bare @hono/trpc-server baseline and
// the no-op mutation on our stack run at once, each its own process, and wrk alternates between them in short slices
// (the order flipped every round); each one's CPU µs per request is summed over its slices from /proc.
// `pnpm build` is not needed (both run from source); `BENCH_ROUNDS` (10) slices of `BENCH_SECONDS` (2) each.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ServerProcess, startBaseline } from './server-process.ts';
import { listAt } from './todo-lists.ts';
import { wrk, writeRequests } from './wrk.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-stack-'));
const file = path.join(dir, 'noop');
writeRequests(file, [{ method: 'POST', path: '/trpc/noop', token: 'x', body: { todos: listAt(5) } }]);

interface Side {
  name: string;
  server: ServerProcess;
  cpu: number;
  requests: number;
}

const loadavg = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
const sides: Side[] = [];
try {
  for (const [name, kind] of [
    ['bare @hono/trpc-server + zod mutation', 'bare-trpc'],
    ['no-op tRPC mutation, our stack', 'noop-trpc'],
  ] as const)
    sides.push({ name, server: await startBaseline(kind), cpu: 0, requests: 0 });
  process.stdout.write(`load average at the start: ${loadavg()}\n`);
  for (const side of sides) await wrk({ url: side.server.url, file, connections: 32, seconds: 2 });
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) {
      const before = side.server.cpuSeconds();
      const result = await wrk({ url: side.server.url, file, connections: 32, seconds });
      side.cpu += side.server.cpuSeconds() - before;
      side.requests += result.requests;
    }
  }
  const us = sides.map((side) => (side.cpu * 1e6) / side.requests);
  for (const [i, side] of sides.entries())
    process.stdout.write(
      `${side.name.padEnd(40)} ${Math.round(side.requests / (rounds * seconds))} req/s  ${Math.round(us[i] ?? 0)} µs CPU/req\n`,
    );
  process.stdout.write(`CPU per call, bare / our stack: ${((us[0] ?? 0) / (us[1] ?? 1)).toFixed(2)}x (target >= 0.85x)\n`);
  process.stdout.write(`load average at the end: ${loadavg()}\n`);
} finally {
  await Promise.all(sides.map((side) => side.server.stop()));
  rmSync(dir, { recursive: true, force: true });
}
