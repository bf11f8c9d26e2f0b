// `pnpm bench:write-statements`: the statements (and, on PostgreSQL, the round trips) one todos.write and one
// tasks.update cost on SQLite and on PostgreSQL, one call at a time and in bursts of 32 at once (where the store's
// group commit may share a transaction; of 32 sessions, or of 4 with 8 writes each), with the server's CPU per call.
// SQLite's statements are counted in this process (sql-probe.ts); PostgreSQL's on the wire, through a relay in front
// of the embedded cluster.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentTasksClient, createClient, openSessionClient } from '@agent-tasks/sdk';
import { startApp } from '@agent-tasks/server';
import { startWireCounter } from '../support/pg-wire-counter.ts';
import { createTestDatabase, stopTestPostgres } from '../support/postgres.ts';
import { installSqlProbe } from './sql-probe.ts';
import { fixed, textTable } from './text-table.ts';
import { listAt } from './todo-lists.ts';

const CALLS = Number(process.env.BENCH_CALLS) > 0 ? Number(process.env.BENCH_CALLS) : 320;
const SESSIONS = 32;
const adminKey = `atk_bench_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-write-statements-'));

interface Counter {
  reset(): void;
  statements(): Map<string, number>;
  /** Statement texts since the last reset, in order. */
  texts(): string[];
  roundTrips(): number | null;
}

interface Row {
  database: string;
  call: string;
  shape: string;
  perCall: Map<string, number>;
  roundTrips: number | null;
  cpuUs: number;
  perSecond: number;
}
const rows: Row[] = [];

async function measure(database: string, url: string, counter: Counter) {
  const app = await startApp(
    url.startsWith('file:')
      ? { databaseFile: url.slice('file:'.length), port: 0, adminKey }
      : { databaseFile: '', postgresUrl: url, port: 0, adminKey },
  );
  try {
    const admin = createClient({ url: app.url, token: adminKey });
    const agent = createClient({ url: app.url, token: (await admin.keys.create({ name: 'bench', role: 'agent' })).token });
    const sessions: AgentTasksClient[] = [];
    for (let i = 0; i < SESSIONS; i++) sessions.push((await openSessionClient(agent, { title: `writer ${i}` })).client);
    const listName = 'bench-statements';
    const ids: string[] = [];
    for (let i = 0; i < 64; i++) ids.push((await sessions[i % SESSIONS]!.tasks.create({ listName, subject: `Task ${i}` })).id);
    let step = 0;
    const calls = {
      'todos.write': (s: AgentTasksClient) => s.todos.write({ todos: listAt(step++ % 11) }),
      'tasks.update': (s: AgentTasksClient) => s.tasks.update({ listName, id: ids[step++ % ids.length]!, metadata: { n: step } }),
    };
    for (const [call, run] of Object.entries(calls)) {
      for (const shape of ['one at a time', `${SESSIONS} at once`, `${SESSIONS} at once, 4 sessions`]) {
        // Warm: the sessions' lists cached, every statement prepared.
        await Promise.all(sessions.map((s) => run(s)));
        counter.reset();
        const cpu = process.cpuUsage();
        const start = performance.now();
        if (shape === 'one at a time') for (let i = 0; i < CALLS; i++) await run(sessions[i % SESSIONS]!);
        else if (shape === `${SESSIONS} at once`) for (let i = 0; i < CALLS; i += SESSIONS) await Promise.all(sessions.map((s) => run(s)));
        // As the load bench's todos.write sends them: several writes of one session in one batch.
        else for (let i = 0; i < CALLS; i += SESSIONS) await Promise.all(sessions.map((_, k) => run(sessions[k % 4]!)));
        const used = process.cpuUsage(cpu);
        const perSecond = (CALLS * 1000) / (performance.now() - start);
        const perCall = new Map([...counter.statements()].map(([kind, n]) => [kind, n / CALLS]));
        const roundTrips = counter.roundTrips();
        rows.push({
          database,
          call,
          shape,
          perCall,
          roundTrips: roundTrips === null ? null : roundTrips / CALLS,
          cpuUs: (used.user + used.system) / CALLS,
          perSecond,
        });
      }
      if (process.env.BENCH_SHOW) {
        // BENCH_SHOW=1: the statements of two calls, one after the other.
        counter.reset();
        for (let i = 0; i < 2; i++) await run(sessions[i]!);
        process.stdout.write(
          `${database} ${call}, two calls:\n  ${counter
            .texts()
            .map((t) => t.replace(/\s+/g, ' ').slice(0, 160))
            .join('\n  ')}\n`,
        );
      }
    }
  } finally {
    await app.close();
  }
}

try {
  const probe = installSqlProbe();
  await measure('SQLite', `file:${path.join(dir, 'bench.db')}`, {
    reset: () => probe.reset(Boolean(process.env.BENCH_SHOW)),
    statements: () => probe.tally().byKind,
    texts: () => probe.tally().sources,
    roundTrips: () => null,
  });
  probe.uninstall();

  const database = await createTestDatabase();
  const wire = await startWireCounter(database.url);
  await measure('PostgreSQL', wire.url, {
    reset: () => wire.reset(),
    statements: () => wire.tally().statements,
    texts: () => wire.tally().texts,
    roundTrips: () => wire.tally().roundTrips,
  });
  await wire.close();
  await database.drop();

  const kinds = [...new Set(rows.flatMap((r) => [...r.perCall.keys()]))].sort();
  process.stdout.write(
    [
      `statements per call (${CALLS} calls each, ${SESSIONS} sessions; client and server in this process, so CPU includes the client) — ${new Date().toISOString()}`,
      `load average: ${os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(' / ')}`,
      '',
      textTable(
        ['database', 'call', 'shape', 'calls/s', 'round trips', ...kinds, 'CPU µs/call'],
        rows.map((r) => [
          r.database,
          r.call,
          r.shape,
          fixed(r.perSecond, 0),
          r.roundTrips === null ? '-' : fixed(r.roundTrips, 2),
          ...kinds.map((k) => fixed(r.perCall.get(k) ?? 0, 2)),
          fixed(r.cpuUs, 0),
        ]),
      ),
      '',
    ].join('\n'),
  );
} finally {
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
}
