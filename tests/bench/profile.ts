// `pnpm bench:profile`: a CPU profile of one server process (node --cpu-prof) under 32 connections of todos.write
// from wrk, and its top entries (self time by package and by function). BENCH_SECONDS sets the length (default 20).
// `pnpm bench:profile -- noop` profiles the no-op mutation on our stack instead (the bench's baseline server);
// `pnpm bench:profile -- bare-trpc` profiles the bare `@hono/trpc-server` baseline (nothing of ours) for comparison;
// `pnpm bench:profile -- postgres` the same todos.write on a PostgreSQL database (embedded) instead of SQLite;
// `pnpm bench:profile -- tasks-update` tasks.update (a metadata change) on a seeded 10,000-task list (SQLite), as the
// load bench's row (with `postgres`, on a 1,000-task list made through the API, as `pnpm bench:replicas`); `pnpm bench:profile -- ready-page` the ready page of that list (`tasks.list` readyOnly, 50 tasks);
// `pnpm bench:profile -- runs-step` steps through 100-task checklist runs (`runs.step`, 32 runs in flight, one step each);
// `pnpm bench:profile -- run-view` reads such a run's view (`runs.get`), as the load bench's run-view row.
// BENCH_PROFILE_WORKERS=2 runs the server with `--workers 2` and prints each process's profile (primary, workers).
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentTasksClient, createClient, openSessionClient } from '@agent-tasks/sdk';
import { createTestDatabase, stopTestPostgres } from '../support/postgres.ts';
import { summarize } from './cpu-profile-top.ts';
import { type ServerProcess, startAgentTasks, startBaseline } from './server-process.ts';
import { prng, seedTaskGraph } from './task-graph-seed.ts';
import { readyRun } from './load-workload.ts';
import { listAt, todoWrites } from './todo-lists.ts';
import { wrk, writeRequests, writeRuns } from './wrk.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-profile-'));
const adminKey = `atk_profile_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const bareTrpc = process.argv.slice(2).includes('bare-trpc');
const noop = bareTrpc || process.argv.slice(2).includes('noop');
const postgres = process.argv.slice(2).includes('postgres') ? await createTestDatabase() : null;
const taskUpdates = process.argv.slice(2).includes('tasks-update');
const readyPage = process.argv.slice(2).includes('ready-page');
const runSteps = process.argv.slice(2).includes('runs-step');
const runView = process.argv.slice(2).includes('run-view');
/** Tasks per run, as the load bench's (load-workload.ts). */
const RUN_TASKS = 100;

/** `count` tasks made on `listName`, 50 at a time: their ids. */
async function createTasks(client: AgentTasksClient, listName: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const made = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, k) => client.tasks.create({ subject: `Profile task ${i + k + 2}`, listName })),
    );
    ids.push(...made.map((t) => t.id));
  }
  return ids;
}

/** The no-op mutation on our whole stack, the same 10-item body as todos.write. */
async function noopRequests(server: ServerProcess, file: string) {
  void server;
  writeRequests(file, [{ method: 'POST', path: '/trpc/noop', token: 'x', body: { todos: listAt(5) } }]);
}

try {
  if (noop) {
    const server = await startBaseline(bareTrpc ? 'bare-trpc' : 'noop-trpc', ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    const file = path.join(dir, 'noop');
    await noopRequests(server, file);
    const result = await wrk({ url: server.url, file, connections: 32, seconds });
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const profile = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!profile) throw new Error('no .cpuprofile written');
    if (process.env.BENCH_PROFILE_KEEP) copyFileSync(path.join(dir, profile), process.env.BENCH_PROFILE_KEEP);
    process.stdout.write(
      `${bareTrpc ? 'bare @hono/trpc-server mutation' : 'no-op mutation on our stack'}, 32 connections, ${seconds} s: ${Math.round(result.perSecond)} req/s (profiler on)\n\n`,
    );
    process.stdout.write(`${summarize(JSON.parse(readFileSync(path.join(dir, profile), 'utf8')), 30)}\n`);
    process.exit(0);
  }
  const server = await startAgentTasks({
    databaseFile: path.join(dir, 'profile.db'),
    ...(postgres ? { databaseUrl: postgres.url } : {}),
    adminKey,
    // The workers inherit the primary's Node flags: each writes its own profile.
    workers: Number(process.env.BENCH_PROFILE_WORKERS ?? 1),
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  });
  const admin = createClient({ url: server.url, token: adminKey });
  const agent = createClient({ url: server.url, token: (await admin.keys.create({ name: 'profile', role: 'agent' })).token });
  const sessions = await Promise.all(Array.from({ length: 32 }, (_, i) => openSessionClient(agent, { title: `profiled ${i}` })));
  const file = path.join(dir, 'writes');
  if (runSteps || runView) {
    // As the load bench's runs.step row: 32 runs in flight, each step answering the run's attempt.
    const perConnection = runView ? 1 : Math.ceil((seconds * 1_500) / RUN_TASKS / sessions.length) + 1;
    const runs = await Promise.all(
      sessions.map(async ({ client, token }) => {
        const mine: { runId: string; attemptId: string; token: string }[] = [];
        for (let k = 0; k < perConnection; k++) mine.push({ ...(await readyRun(client, `Profiled run ${k}`)), token });
        return mine;
      }),
    );
    if (runSteps) writeRuns(file, runs);
    else
      writeRequests(
        file,
        runs.flat().map(({ runId, token }) => ({
          method: 'GET' as const,
          path: `/trpc/runs.get?input=${encodeURIComponent(JSON.stringify({ runId }))}`,
          token,
        })),
      );
  } else if (taskUpdates || readyPage) {
    // The load bench's tasks.update row: metadata changes on random tasks of a 10,000-task list with ~20,000 edges.
    const listName = 'profile-10k';
    const first = await sessions[0]!.client.tasks.create({ subject: 'Profile task 1', listName });
    // On PostgreSQL (no file to seed): a 1,000-task list made through the API, as `pnpm bench:replicas` has it.
    const seeded = postgres
      ? { ids: [first.id, ...(await createTasks(sessions[0]!.client, listName, 999))] }
      : seedTaskGraph(path.join(dir, 'profile.db'), listName, first.id, { size: 10_000, roots: 145, window: 40, seed: 7 });
    const random = prng(11);
    const input = encodeURIComponent(JSON.stringify({ listName, readyOnly: true, limit: 50 }));
    // The seeding held the event loop past the server's keep-alive: let the client see the connections it closed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (readyPage)
      writeRequests(
        file,
        sessions.map(({ token }) => ({ method: 'GET' as const, path: `/trpc/tasks.list?input=${input}`, token })),
      );
    else
      writeRequests(
        file,
        Array.from({ length: 4_000 }, (_, n) => ({
          method: 'POST' as const,
          path: '/trpc/tasks.update',
          token: sessions[n % sessions.length]!.token,
          body: { listName, id: seeded.ids[Math.floor(random() * seeded.ids.length)], metadata: { bench: n } },
        })),
      );
  } else {
    writeRequests(file, todoWrites(sessions.map((s) => s.token)));
  }
  const result = await wrk({ url: server.url, file, connections: 32, seconds, ...(runSteps ? { mode: 'run-steps' as const } : {}) });
  await server.stop();
  const profiles = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const profile = profiles[0];
  if (!profile) throw new Error('no .cpuprofile written');
  // BENCH_PROFILE_KEEP=<file>: keep the profile (for DevTools or a closer look at who called what); with workers, one
  // file per process (<file>.1, <file>.2, … in the order printed below).
  const keep = process.env.BENCH_PROFILE_KEEP;
  if (keep) {
    for (const [i, each] of profiles.entries()) copyFileSync(path.join(dir, each), profiles.length > 1 ? `${keep}.${i + 1}` : keep);
  }
  process.stdout.write(
    `${runView ? 'runs.get, 100-task runs' : runSteps ? 'runs.step, 100-task runs' : readyPage ? 'tasks.list readyOnly, 50 of 10k' : taskUpdates ? 'tasks.update, 10k tasks' : 'todos.write'}${postgres ? ' on PostgreSQL' : ''}, 32 connections, ${seconds} s: ${Math.round(result.perSecond)} writes/s, p50 ${result.p50} ms, p99 ${result.p99} ms (profiler on)\n\n`,
  );
  for (const each of profiles) {
    if (profiles.length > 1) process.stdout.write(`\n${each}\n`);
    process.stdout.write(`${summarize(JSON.parse(readFileSync(path.join(dir, each), 'utf8')), 25)}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (postgres) {
    await postgres.drop();
    await stopTestPostgres();
  }
}
