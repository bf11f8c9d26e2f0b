// One query through the server's Prisma store vs the same query on raw better-sqlite3, on the server's own DB file.
import Database from 'better-sqlite3';
import type { App } from '@agent-tasks/server';
import { summarize, type Summary } from './stats.ts';

export interface QueryOverheadRow {
  query: string;
  prisma: Summary;
  raw: Summary;
}

async function timed(count: number, call: () => unknown): Promise<Summary> {
  for (let i = 0; i < Math.min(100, count); i++) await call();
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await call();
    latencies.push(performance.now() - t);
  }
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return summarize(latencies, wallMs, (cpu.user + cpu.system) / 1000);
}

/** Sequential reads of a session (by token hash), its latest update, and an empty transaction, both ways. */
export async function measureQueryOverhead(
  app: App,
  databaseFile: string,
  session: { id: string; token: string },
  count: number,
): Promise<QueryOverheadRow[]> {
  const { store, hasher } = app.services.deps;
  const tokenHash = hasher.hash(session.token);
  const db = new Database(databaseFile);
  try {
    db.pragma('busy_timeout = 5000');
    const bySessionHash = db.prepare('SELECT * FROM "Session" WHERE "tokenHash" = ? LIMIT 1');
    const latest = db.prepare('SELECT * FROM "TodoUpdate" WHERE "sessionId" = ? ORDER BY "revision" DESC LIMIT 1');
    const empty = db.transaction(() => undefined);
    return [
      {
        query: 'session by token hash (1 SELECT)',
        prisma: await timed(count, () => store.sessions.findByHash(tokenHash)),
        raw: await timed(count, () => bySessionHash.get(tokenHash)),
      },
      {
        query: 'latest update of a session (1 SELECT + JSON.parse)',
        prisma: await timed(count, () => store.todos.latest(session.id)),
        raw: await timed(count, () => {
          const row = latest.get(session.id) as { items: string; changes: string } | undefined;
          return row && { ...row, items: JSON.parse(row.items) as unknown, changes: JSON.parse(row.changes) as unknown };
        }),
      },
      {
        query: 'empty transaction (BEGIN + COMMIT, no write)',
        prisma: await timed(count, () => store.transaction(async () => null)),
        raw: await timed(count, () => empty()),
      },
    ];
  } finally {
    db.close();
  }
}
