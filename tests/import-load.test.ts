// Black-box tests of large task imports under load (defect 2): four maximum-size imports (2,000 files each, four
// workspaces) at once leave the server answering health checks, another workspace's reads and its writes with p99 ≤
// 500 ms, each import all or nothing (staged out of sight, then shown at once); a second import into a workspace while
// one runs waits for it, for a bounded time: then it answers 409 with Retry-After; an import whose process died (kill
// -9) holds the next one up for its lease only (seconds, not minutes).
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, sessionClient } from './support/fixtures.ts';
import { execute, holdWriteLock, rowCounts, withQueries } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';
import { guardMs } from './support/time-guard.ts';

let server: RunningServer;
beforeAll(async () => {
  // A process of its own: latencies are the server's, not those of the test's own JSON work on the same event loop.
  server = await startServer({ env: { LOG_FORMAT: 'json' }, process: true });
});
afterAll(() => server.stop());

const files = (n: number, list: string) =>
  Array.from({ length: n }, (_, i) => ({
    name: `${i + 1}.json`,
    content: JSON.stringify({
      id: String(i + 1),
      subject: `${list} task ${i + 1}`,
      description: 'd'.repeat(300),
      status: 'pending',
      blocks: [],
      blockedBy: i > 0 && i % 10 !== 0 ? [String(i)] : [],
      metadata: { n: i },
    }),
  }));

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * 0.99) - 1)] ?? 0;

describe('maximum-size imports under load', () => {
  it('four at once: health checks, other reads and other writes keep answering (target p99 ≤ 500 ms); each import shows all or nothing', async () => {
    const importers = await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        const { adminKey } = await adminClient(server).workspaces.create({ name: `importer ${n}` });
        const agent = createClient({
          url: server.url,
          token: (await createClient({ url: server.url, token: adminKey }).keys.create({ name: 'i', role: 'agent' })).token,
        });
        return (await openSessionClient(agent, { title: `importer ${n}` })).client;
      }),
    );
    const bystander = await sessionClient(server, 'bystander');
    await bystander.client.tasks.create({ listName: 'mine', subject: 'Untouched' });
    const bodies = importers.map((_, n) => files(2_000, `w${n}`));

    const latencies: { health: number[]; read: number[]; write: number[] } = { health: [], read: [], write: [] };
    let loading = true;
    const timed = async (into: number[], call: () => Promise<unknown>) => {
      const t0 = performance.now();
      await call();
      into.push(performance.now() - t0);
    };
    // Three independent probes, each waiting for its own answer before the next.
    const probe = async (into: number[], call: () => Promise<unknown>) => {
      while (loading) {
        await timed(into, call);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    let i = 0;
    // From the database file: how many tasks each imported list shows (always 0 or 2,000), and whether rows were
    // staged out of sight meanwhile (written in several transactions, not one).
    const shown = new Set<number>();
    let stagedSeen = 0;
    const watchFile = () =>
      withQueries(server, async (query) => {
        while (loading) {
          const lists = await query<{ n: number | bigint | string }>(
            `SELECT COUNT(t."id") AS n FROM "TaskList" l LEFT JOIN "Task" t ON t."listId" = l."id" WHERE l."name" = 'imported' GROUP BY l."id"`,
          );
          for (const { n } of lists) shown.add(Number(n));
          const [staged] = await query<{ n: number | bigint | string }>(`SELECT COUNT(*) AS n FROM "TaskList" WHERE "staging" = true`);
          stagedSeen += Number(staged?.n ?? 0);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      });
    const probes = Promise.all([
      probe(latencies.health, () => fetch(`${server.url}/healthz`)),
      probe(latencies.read, () => bystander.client.tasks.list({ listName: 'mine' })),
      probe(latencies.write, () => bystander.client.todos.write({ todos: [{ content: `Probe ${i++}`, status: 'pending' }] })),
      watchFile(),
    ]);
    const imports = importers.map((client, n) => client.tasks.import({ listName: 'imported', format: 'claude', files: bodies[n]! }));
    const results = await Promise.all(imports);
    loading = false;
    await probes;

    expect(results.map((r) => r.imported)).toEqual([2_000, 2_000, 2_000, 2_000]);
    const figures = { health: p99(latencies.health), read: p99(latencies.read), write: p99(latencies.write) };
    console.log(`p99 during 4 imports (ms): ${JSON.stringify(figures)}, samples ${latencies.health.length}`);
    expect(latencies.health.length).toBeGreaterThan(5);
    expect(figures.health).toBeLessThanOrEqual(guardMs(500));
    expect(figures.read).toBeLessThanOrEqual(guardMs(500));
    // Writes take the writer between the imports' short transactions (a hundred rows or so each).
    expect(figures.write).toBeLessThanOrEqual(guardMs(500));
    expect([...shown].every((n) => n === 0 || n === 2_000)).toBe(true);
    expect(stagedSeen).toBeGreaterThan(0);
    expect(
      await countRows(server, 'Task', `"listId" IN (SELECT "id" FROM "TaskList" WHERE "name" = 'imported' AND "staging" = false)`),
    ).toBe(8_000);
    expect(await countRows(server, 'Task', `"listId" IN (SELECT "id" FROM "TaskList" WHERE "staging" = true)`)).toBe(0);
  }, 240_000);

  it('one import per workspace at a time: a second one waits for the first, then runs; each all or nothing', async () => {
    const { client } = await sessionClient(server, 'one at a time');
    // Another process holds the database, so the first import waits inside its transaction (up to the busy timeout).
    const release = await holdWriteLock(server);
    const finished: string[] = [];
    const first = client.tasks
      .import({ listName: 'first', format: 'claude', files: files(50, 'first') })
      .then((r) => (finished.push('first'), r));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = client.tasks
      .import({ listName: 'second', format: 'claude', files: files(3, 'again') })
      .then((r) => (finished.push('second'), r));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await countRows(server, 'Task', `"subject" LIKE 'again task%'`)).toBe(0);
    await release();
    expect((await first).imported).toBe(50);
    expect((await second).imported).toBe(3);
    expect(finished).toEqual(['first', 'second']);
  });

  it('one import per workspace at a time across server processes on one database: the second waits for the first', async () => {
    // A second server process on the same database (another worker or replica): the per-process queue cannot see
    // its imports, the database can.
    // It waits as long as the first takes here (by default an import waits 5 s, then answers 409 with Retry-After).
    const other = await startServer({
      database: server,
      adminKey: server.adminKey,
      env: { LOG_FORMAT: 'json', AGENT_TASKS_IMPORT_WAIT_MS: '120000' },
      process: true,
    });
    try {
      const { token } = await adminClient(server).keys.create({ name: 'two processes', role: 'agent' });
      const onFirst = createClient({ url: server.url, token });
      const onSecond = createClient({ url: other.url, token });
      let loading = true;
      let mostStaging = 0;
      const watch = (async () => {
        while (loading) {
          mostStaging = Math.max(mostStaging, await countRows(server, 'TaskList', `"staging" = true`));
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const first = onFirst.tasks.import({ listName: 'big', format: 'claude', files: files(2_000, 'big') });
      await waitFor('the first import staging', async () => (await countRows(server, 'TaskList', `"staging" = true`)) > 0, 30_000, 5);
      // When the second import is answered, the first has been published: it waited for it. (The order in which the
      // two answers reach this client is not the point: the first's answer can come after the second's under load.)
      let bigPublishedWhenSmallAnswered = -1;
      const second = onSecond.tasks.import({ listName: 'small', format: 'claude', files: files(3, 'small') }).then(async (r) => {
        bigPublishedWhenSmallAnswered = await countRows(server, 'TaskList', `"name" = 'big' AND "staging" = false`);
        return r;
      });
      expect((await first).imported).toBe(2_000);
      expect((await second).imported).toBe(3);
      loading = false;
      await watch;
      expect(bigPublishedWhenSmallAnswered).toBe(1);
      expect(mostStaging).toBe(1);
    } finally {
      await other.stop();
    }
  });
});

/** tasks.import over raw HTTP: the status, the Retry-After header and the refusal text. */
async function rawImport(s: RunningServer, token: string, input: unknown) {
  const res = await fetch(`${s.url}/trpc/tasks.import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { error?: { message: string; data: { appCode: string } } };
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    message: body.error?.message ?? null,
    appCode: body.error?.data.appCode ?? null,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an import whose process died', () => {
  it('a waiting import answers 409 with Retry-After after its wait, recording nothing; once the lease runs out the dead staging is removed', async () => {
    const s = await startServer({ process: true, env: { AGENT_TASKS_IMPORT_WAIT_MS: '500', AGENT_TASKS_IMPORT_LEASE_MS: '10000' } });
    try {
      const { adminKey, workspace } = await adminClient(s).workspaces.create({ name: 'dead import' });
      const { token } = await createClient({ url: s.url, token: adminKey }).keys.create({ name: 'importer', role: 'agent' });
      // The staging list a crashed import leaves: last written 2 s ago, never again.
      await execute(s, [
        `INSERT INTO "TaskList" ("id", "workspaceId", "name", "taskSeq", "changeSeq", "staging", "createdAt") VALUES (?, ?, ?, 0, 0, ?, ?)`,
        'tl_dead',
        workspace.id,
        ':import:dead',
        true,
        new Date(Date.now() - 2_000),
      ]);
      const input = { listName: 'after', format: 'claude', files: files(3, 'after') };
      const before = await rowCounts(s);
      const t0 = Date.now();
      const busy = await rawImport(s, token, input);
      // Answered after its 0.5 s wait (generous guard): not held open until the dead import's lease runs out.
      expect(Date.now() - t0).toBeLessThan(guardMs(4_000));
      expect(busy.status).toBe(409);
      const retryAfter = Number(busy.retryAfter);
      // The lease runs out 10 s after the last write, 2.5 s ago or a little more.
      expect(retryAfter).toBeGreaterThanOrEqual(3);
      expect(retryAfter).toBeLessThanOrEqual(8);
      expect(busy.message).toBe(`Error: another import into this workspace is in progress; try again in ${retryAfter} s.`);
      expect(busy.appCode).toBe('CONFLICT');
      expect(await rowCounts(s)).toEqual(before);

      await sleep(retryAfter * 1_000);
      const after = createClient({ url: s.url, token });
      expect((await after.tasks.import(input as never)).imported).toBe(3);
      expect(await countRows(s, 'TaskList', `"staging" = true`)).toBe(0);
      expect((await after.tasks.list({ listName: 'after' })).tasks).toHaveLength(3);
    } finally {
      await s.stop();
    }
  });

  it('kill -9 mid-import: after the restart the next import runs within seconds, and nothing of the dead one is left', async () => {
    const s = await startServer({ process: true, env: { LOG_FORMAT: 'json', AGENT_TASKS_IMPORT_WAIT_MS: '1000' } });
    try {
      const { token } = await adminClient(s).keys.create({ name: 'crash', role: 'agent' });
      const dying = createClient({ url: s.url, token })
        .tasks.import({ listName: 'dying', format: 'claude', files: files(2_000, 'dying') })
        .then(
          () => 'finished',
          () => 'killed',
        );
      await waitFor('the import staging', async () => (await countRows(s, 'Task', `"subject" LIKE 'dying task%'`)) > 0, 60_000, 5);
      s.process().kill('SIGKILL');
      expect(await dying).toBe('killed');
      await s.restart();
      const restarted = Date.now();
      expect(await countRows(s, 'TaskList', `"staging" = true`)).toBe(1);

      // A client that follows Retry-After: 409s while the dead import's lease (10 s by default) runs, then it runs.
      const input = { listName: 'after-crash', format: 'claude', files: files(3, 'after-crash') };
      const answers: Awaited<ReturnType<typeof rawImport>>[] = [];
      for (;;) {
        const answer = await rawImport(s, token, input);
        answers.push(answer);
        if (answer.status !== 409 || answers.length > 10) break;
        await sleep(Number(answer.retryAfter) * 1_000);
      }
      const took = Date.now() - restarted;
      console.log(
        `next import after kill -9 and restart: ${took} ms, answers ${answers.map((a) => `${a.status}/${a.retryAfter ?? '-'}`).join(' ')}`,
      );
      expect(answers.at(-1)?.status).toBe(200);
      // A generous guard: the lease is 10 s (before, the dead import held the next one up for 2 minutes).
      expect(took).toBeLessThan(30_000);
      for (const a of answers.slice(0, -1)) {
        expect(a.message).toBe(`Error: another import into this workspace is in progress; try again in ${a.retryAfter} s.`);
        expect(Number(a.retryAfter)).toBeLessThanOrEqual(10);
      }
      expect(await countRows(s, 'TaskList', `"staging" = true`)).toBe(0);
      expect(await countRows(s, 'Task', `"subject" LIKE 'dying task%'`)).toBe(0);
      expect(await countRows(s, 'TaskList', `"name" = 'dying'`)).toBe(0);
      expect((await createClient({ url: s.url, token }).tasks.list({ listName: 'after-crash' })).tasks).toHaveLength(3);
    } finally {
      await s.stop();
    }
  });
});
