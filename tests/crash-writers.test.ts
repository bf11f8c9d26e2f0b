// Standing crash test: three rounds of kill -9 while concurrent writers record todo lists, create and update tasks and
// step checklist runs; after each restart every write the server acknowledged is there, with what it wrote, and a SQLite
// file passes SQLite's integrity and foreign-key checks.
import { type AgentTasksClient, createClient, openSessionClient } from '@agent-tasks/sdk';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { onPostgres, withQueries } from './support/database.ts';
import { adminClient, nameAndIntake } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer | undefined;
afterAll(() => server?.stop());

const ROUNDS = 3;
const WRITERS_PER_KIND = 4;
const RUN_TASKS = 60;

interface Acknowledged {
  todos: { sessionId: string; revision: number; content: string }[];
  tasks: Map<string, { listName: string; subject: string; version: number }>;
  steps: { runId: string; task: number; evidence: string }[];
}

/** Starts one writer of each kind per client and runs them until `stopped()`; every acknowledged write is recorded. */
function writers(clients: AgentTasksClient[], runs: string[], acknowledged: Acknowledged, round: number, stopped: () => boolean) {
  const todoWriter = async (client: AgentTasksClient, w: number) => {
    const { session } = await client.sessions.get();
    for (let n = 0; !stopped(); n++) {
      const content = `round ${round} writer ${w} list ${n}`;
      const { revision } = await client.todos.write({ todos: [{ content, status: 'in_progress' }] });
      acknowledged.todos.push({ sessionId: session.id, revision, content });
    }
  };
  const taskWriter = async (client: AgentTasksClient, w: number) => {
    const listName = `crash-${round}-${w}`;
    for (let n = 0; !stopped(); n++) {
      const created = await client.tasks.create({ listName, subject: `task ${n} of writer ${w}` });
      acknowledged.tasks.set(created.id, { listName, subject: created.subject, version: created.version });
      const updated = await client.tasks.update({
        listName,
        id: created.id,
        subject: `task ${n} of writer ${w}, updated`,
        expectedVersion: created.version,
      });
      acknowledged.tasks.set(updated.id, { listName, subject: updated.subject, version: updated.version });
    }
  };
  const stepWriter = async (client: AgentTasksClient, runId: string) => {
    for (let task = 1; task <= RUN_TASKS && !stopped(); task++) {
      const { attemptId, cursor } = await client.runs.get({ runId });
      const evidence = `round ${round}: task ${cursor} checked`;
      await client.runs.step({
        runId,
        attemptId: attemptId ?? 'none',
        task: cursor,
        evidence,
        progress_execution_outcome: `Task ${cursor} done`,
      });
      acknowledged.steps.push({ runId, task: cursor, evidence });
    }
  };
  const all = [
    ...clients.map((c, w) => todoWriter(c, w)),
    ...clients.map((c, w) => taskWriter(c, w)),
    ...clients.map((c, w) => stepWriter(c, runs[w] as string)),
  ];
  // A writer stops at its first failure: the server is gone, and that write was not acknowledged.
  return Promise.all(all.map((p) => p.catch(() => undefined)));
}

async function check(s: RunningServer, acknowledged: Acknowledged) {
  if (!onPostgres(s)) {
    // SQLite's own checks of the file (PostgreSQL recovers from its WAL and enforces foreign keys at every commit).
    const db = new Database(s.databaseFile, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
    } finally {
      db.close();
    }
  }
  await withQueries(s, async (query) => {
    const todo = 'SELECT "items" FROM "TodoUpdate" WHERE "sessionId" = ? AND "revision" = ?';
    for (const { sessionId, revision, content } of acknowledged.todos) {
      const [row] = await query<{ items: string }>(todo, sessionId, revision);
      expect(row, `todo ${sessionId}@${revision}`).toBeDefined();
      expect(JSON.parse(row?.items ?? '[]')).toEqual([{ content, status: 'in_progress' }]);
    }
    for (const [id, { subject, version }] of acknowledged.tasks) {
      const [row] = await query<{ subject: string; version: number }>('SELECT "subject", "version" FROM "Task" WHERE "id" = ?', id);
      expect(row, `task ${id}`).toBeDefined();
      expect(row?.version).toBeGreaterThanOrEqual(version);
      if (row?.version === version) expect(row.subject).toBe(subject);
    }
    const step = 'SELECT "evidence" FROM "RunStep" WHERE "runId" = ? AND "kind" = \'step\' AND "task" = ? ORDER BY "seq" DESC LIMIT 1';
    for (const { runId, task: n, evidence } of acknowledged.steps) {
      const [row] = await query<{ evidence: string }>(step, runId, n);
      expect(row?.evidence, `step ${runId} #${n}`).toBe(evidence);
    }
  });
}

describe('kill -9 under concurrent writers', () => {
  it(`${ROUNDS} rounds: the database is intact and every acknowledged todo, task and run step is there`, async () => {
    server = await startServer({ process: true });
    const running = server;
    const acknowledged: Acknowledged = { todos: [], tasks: new Map(), steps: [] };
    const agentKey = (await adminClient(running).keys.create({ name: 'crash writers', role: 'agent' })).token;
    const opened = [];
    for (let w = 0; w < WRITERS_PER_KIND; w++)
      opened.push(await openSessionClient(createClient({ url: running.url, token: agentKey }), { title: `writer ${w}` }));
    const tokens = opened.map((o) => o.token);

    for (let round = 1; round <= ROUNDS; round++) {
      const clients = tokens.map((token) => createClient({ url: running.url, token }));
      const runs: string[] = [];
      for (const client of clients) {
        const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
        const run = await client.runs.execute({ startAttemptId });
        const tasks = Array.from({ length: RUN_TASKS }, (_, i) => ({ action: `Step ${i + 1}`, expected_result: `Step ${i + 1} verified` }));
        await nameAndIntake(client, {
          runId: run.id,
          name: `Crash round ${round}`,
          progress_checklist_outcome: `${RUN_TASKS} steps`,
          tasks,
        });
        runs.push(run.id);
      }
      const before = acknowledged.todos.length + acknowledged.tasks.size + acknowledged.steps.length;
      let stopped = false;
      const done = writers(clients, runs, acknowledged, round, () => stopped);
      // Kill once each kind has had writes acknowledged this round (bounded: at most 20 s).
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const now = acknowledged.todos.length + acknowledged.tasks.size + acknowledged.steps.length;
        if (now - before >= 150 && acknowledged.steps.some((s) => runs.includes(s.runId))) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      running.process().kill('SIGKILL');
      await done;
      stopped = true;
      await running.restart();
      await check(running, acknowledged);
    }
    expect(acknowledged.todos.length).toBeGreaterThan(0);
    expect(acknowledged.tasks.size).toBeGreaterThan(0);
    expect(acknowledged.steps.length).toBeGreaterThan(0);
    // The restarted server answers from the same data.
    const last = acknowledged.todos.at(-1)!;
    expect((await adminClient(running).todos.get({ sessionId: last.sessionId })).revision).toBeGreaterThanOrEqual(last.revision);
  });
});
