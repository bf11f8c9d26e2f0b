// The server on PostgreSQL (DATABASE_URL=postgresql://…): it applies prisma/migrations-postgres at start with Prisma's
// bookkeeping and serves todos.write / todos.get and tasks over HTTP; the PostgreSQL schema and migrations stay in line.
import { createHash } from 'node:crypto';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDatabaseBusy } from '../apps/server/src/db/busy.ts';
import { openPostgresDb } from '../apps/server/src/db/postgres-client.ts';
import { claimDue } from '../apps/server/src/repositories/postgres-outbox-claim.ts';
import { createPostgresMigration, postgresDrift } from '../apps/server/src/db/postgres-migrations.ts';
import { postgresMigrationsDir, postgresSchemaFile, postgresSchemaOf } from '../apps/server/src/db/postgres-schema.ts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from './support/database.ts';
import { adminClient, oneOfEachState, refused, sessionClient } from './support/fixtures.ts';
import { initializeMcp, openMcpSessions } from './support/mcp-open.ts';
import { createTestDatabase, stopTestPostgres } from './support/postgres.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { guardMs } from './support/time-guard.ts';
import { waitFor } from './support/webhook-receiver.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const repoRoot = path.resolve(import.meta.dirname, '..');
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ postgres: true });
});
afterAll(async () => {
  await server?.stop();
  await stopTestPostgres();
});

async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const migrationDirs = () =>
  readdirSync(postgresMigrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

describe('the server on PostgreSQL', () => {
  it('applied every migration of prisma/migrations-postgres at start, recorded as Prisma does', async () => {
    expect(server.databaseUrl).toMatch(/^postgresql:\/\//);
    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }>(
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((row) => row.migration_name)).toEqual(migrationDirs());
    for (const row of rows) {
      const sql = readFileSync(path.join(postgresMigrationsDir, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
    }
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('records a todo list with todos.write and reads it back with todos.get', async () => {
    const s = await sessionClient(server);
    const answer = await s.client.todos.write({ todos: oneOfEachState });
    expect(answer).toEqual({
      message: 'Updated todo list: 1 pending, 1 in progress, 1 completed',
      revision: 1,
      counts: { pending: 1, inProgress: 1, completed: 1 },
    });
    await s.client.todos.write({ todos: [{ content: 'Run tests', status: 'in_progress' }] });
    const list = await s.client.todos.get();
    expect(list.items).toEqual([{ content: 'Run tests', status: 'in_progress' }]);
    expect(list.revision).toBe(2);
    const [row] = await query<{ n: string }>('SELECT COUNT(*) AS n FROM "TodoUpdate" WHERE "sessionId" = $1', [s.session.id]);
    expect(Number(row?.n)).toBe(2);
  });

  it('creates and updates tasks, with a blocker kept', async () => {
    const s = await sessionClient(server);
    const listName = 'pg-list';
    const build = await s.client.tasks.create({ listName, subject: 'Build' });
    const ship = await s.client.tasks.create({ listName, subject: 'Ship', blockedBy: [build.id] });
    expect(ship).toMatchObject({ status: 'pending', blockedBy: [build.id], blocks: [], threadID: s.session.id });
    const listed = await s.client.tasks.list({ listName });
    expect(listed.tasks.map((t) => [t.subject, t.status, t.blockedBy, t.ready])).toEqual([
      ['Build', 'pending', [], true],
      ['Ship', 'pending', [build.id], false],
    ]);
    const blocked = await refused(s.client.tasks.update({ listName, id: ship.id, status: 'in_progress' }));
    expect(blocked.message).toBe(`Error: task ${ship.id} is blocked by ${build.id}; it cannot be started until it is completed.`);
    expect(blocked.code).toBe('TASK_BLOCKED');
    expect((await s.client.tasks.get({ listName, id: ship.id })).status).toBe('pending');

    await s.client.tasks.update({ listName, id: build.id, status: 'completed' });
    const ready = await s.client.tasks.list({ listName, readyOnly: true });
    expect(ready.tasks.map((t) => t.id)).toEqual([ship.id]);
    expect((await s.client.tasks.update({ listName, id: ship.id, status: 'in_progress' })).status).toBe('in_progress');
    const all = await s.client.tasks.list({ listName, includeCompleted: true });
    expect(all.tasks.map((t) => [t.subject, t.status])).toEqual([
      ['Build', 'completed'],
      ['Ship', 'in_progress'],
    ]);
    const rows = await query<{ subject: string; status: string; version: number }>(
      'SELECT "subject", "status", "version" FROM "Task" ORDER BY "seq"',
    );
    expect(rows.map((row) => [row.subject, row.status])).toEqual([
      ['Build', 'completed'],
      ['Ship', 'in_progress'],
    ]);
  });

  it('re-ranks for an edge against creation order and refuses a cycle, recording nothing', async () => {
    const s = await sessionClient(server);
    const listName = 'pg-ranks';
    const a = await s.client.tasks.create({ listName, subject: 'A' });
    const b = await s.client.tasks.create({ listName, subject: 'B' });
    // B (created later, ranked higher) now blocks A: the ranks are rewritten in one UPDATE … CASE statement.
    await s.client.tasks.update({ listName, id: b.id, addBlocks: [a.id] });
    expect((await s.client.tasks.get({ listName, id: a.id })).blockedBy).toEqual([b.id]);
    expect((await s.client.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.id)).toEqual([b.id]);
    const ranks = await query<{ id: string; rank: number }>('SELECT "id", "rank" FROM "Task" WHERE "id" IN ($1, $2)', [a.id, b.id]);
    const rankOf = (id: string) => ranks.find((row) => row.id === id)?.rank ?? Number.NaN;
    expect(rankOf(b.id)).toBeLessThan(rankOf(a.id));

    const [before] = await query<{ n: string }>('SELECT COUNT(*) AS n FROM "TaskEdge"');
    const cycle = await refused(s.client.tasks.update({ listName, id: b.id, addBlockedBy: [a.id] }));
    expect(cycle.message).toBe(`Error: invalid dependency: it would close a cycle ${b.id} → ${a.id} → ${b.id}.`);
    expect(cycle.code).toBe('INVALID_DEPENDENCY');
    expect(await query('SELECT COUNT(*) AS n FROM "TaskEdge"')).toEqual([before]);
  });

  it('starts again on the same database without applying anything twice, and keeps its data', async () => {
    const before = await query<{ n: string }>('SELECT COUNT(*) AS n FROM _prisma_migrations');
    await server.restart();
    const after = await query<{ n: string }>('SELECT COUNT(*) AS n FROM _prisma_migrations');
    expect(after).toEqual(before);
    const [tasks] = await query<{ n: string }>('SELECT COUNT(*) AS n FROM "Task"');
    expect(Number(tasks?.n)).toBe(4);
  });

  it('task ids are scoped to their list: the same sisyphus ids in two lists, each with its own edges and ranks', async () => {
    const s = await sessionClient(server);
    const file = (id: string, subject: string, blockedBy: string[] = []) => ({
      name: `${id}.json`,
      content: JSON.stringify({ id, subject, description: '', status: 'pending', blocks: [], blockedBy }),
    });
    for (const listName of ['pg-scope-a', 'pg-scope-b']) {
      const files = [file('T-x', `${listName} x`), file('T-y', `${listName} y`, ['T-x']), file('T-z', `${listName} z`)];
      expect((await s.client.tasks.import({ listName, format: 'sisyphus', files })).imported).toBe(3);
    }
    // In b only: z (ranked last) now blocks x, re-ranked against creation order; then x completes there.
    await s.client.tasks.update({ listName: 'pg-scope-b', id: 'T-z', addBlocks: ['T-x'] });
    const readyIn = async (listName: string) => (await s.client.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.id);
    expect(await readyIn('pg-scope-a')).toEqual(['T-x', 'T-z']);
    expect(await readyIn('pg-scope-b')).toEqual(['T-z']);
    expect(await s.client.tasks.get({ listName: 'pg-scope-a', id: 'T-x' })).toMatchObject({ subject: 'pg-scope-a x', blockedBy: [] });
    const cycle = await refused(s.client.tasks.update({ listName: 'pg-scope-b', id: 'T-y', addBlocks: ['T-z'] }));
    expect(cycle.message).toBe('Error: invalid dependency: it would close a cycle T-z → T-x → T-y → T-z.');
    await s.client.tasks.update({ listName: 'pg-scope-a', id: 'T-y', addBlocks: ['T-z'] });
    expect(await readyIn('pg-scope-a')).toEqual(['T-x']);
    const taken = await refused(s.client.tasks.import({ listName: 'pg-scope-a', format: 'sisyphus', files: [file('T-y', 'again')] }));
    expect(taken.message).toBe('Error: invalid import: task T-y already exists.');
    const [count] = await query<{ n: string }>(`SELECT COUNT(*) AS n FROM "Task" WHERE "id" = 'T-y'`);
    expect(Number(count?.n)).toBe(2);
  });
});

describe('the PostgreSQL schema and migrations', () => {
  it('prisma/schema.postgres.prisma is prisma/schema.prisma with only the provider and client output changed', () => {
    const sqlite = readFileSync(path.join(repoRoot, 'prisma', 'schema.prisma'), 'utf8');
    expect(readFileSync(postgresSchemaFile, 'utf8')).toBe(postgresSchemaOf(sqlite));
  });

  it('prisma/migrations-postgres produce exactly prisma/schema.postgres.prisma', async () => {
    const scratch = await createTestDatabase();
    try {
      const drift = await postgresDrift({ url: scratch.url, schemaFile: postgresSchemaFile, migrationsDir: postgresMigrationsDir });
      expect(drift.script).toBe('-- This is an empty migration.\n');
      expect(drift.inSync).toBe(true);
      // The migrations were replayed on a shadow database, since dropped: the database named is left untouched.
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      try {
        expect((await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)).rows).toEqual([]);
        expect((await client.query(`SELECT datname FROM pg_database WHERE datname LIKE 'prisma_migrate_shadow_db_%'`)).rows).toEqual([]);
      } finally {
        await client.end();
      }
    } finally {
      await scratch.drop();
    }
  });

  it('a schema change becomes a new migration, after which they agree again; no change creates nothing', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-pg-migrations-'));
    const migrationsDir = path.join(dir, 'migrations');
    cpSync(postgresMigrationsDir, migrationsDir, { recursive: true });
    const schemaFile = path.join(dir, 'schema.prisma');
    writeFileSync(
      schemaFile,
      `${readFileSync(postgresSchemaFile, 'utf8')}\nmodel Probe {\n  id    String @id\n  count Int    @default(0)\n}\n`,
    );
    const scratch = await createTestDatabase();
    try {
      const created = await createPostgresMigration({ url: scratch.url, name: 'probe', schemaFile, migrationsDir });
      expect(created).toMatch(/^\d{14}_probe$/);
      const sql = readFileSync(path.join(migrationsDir, created ?? '', 'migration.sql'), 'utf8');
      expect(sql).toContain('CREATE TABLE "Probe"');
      expect(sql).toContain('"count" INTEGER NOT NULL DEFAULT 0');
      expect((await postgresDrift({ url: scratch.url, schemaFile, migrationsDir })).inSync).toBe(true);
      expect(await createPostgresMigration({ url: scratch.url, name: 'again', schemaFile, migrationsDir })).toBeNull();
    } finally {
      await scratch.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("PostgreSQL's conflicts read as busy", () => {
  // Real errors from the server's own PostgreSQL client (adapter-pg): each is the kind the server answers 503 busy.
  async function twoClients() {
    // A database of its own, so the probe table stays out of the server's.
    const { url } = await createTestDatabase();
    await execute(
      { databaseFile: '', databaseUrl: url },
      ['CREATE TABLE "ConflictProbe" ("id" INT PRIMARY KEY, "v" INT NOT NULL)'],
      ['INSERT INTO "ConflictProbe" VALUES (1, 0), (2, 0)'],
    );
    return Promise.all([openPostgresDb(url, { max: 1 }), openPostgresDb(url, { max: 1 })]);
  }

  /** Runs both transactions; answers the one error they end with (and the other must have committed). */
  async function oneFails(runs: Promise<unknown>[]) {
    const settled = await Promise.allSettled(runs);
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
    return (settled.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason as unknown;
  }

  // PostgreSQL's code as Prisma wraps it, or on the adapter's own error (thrown as is by a raw query in a transaction).
  const codeOf = (error: unknown) => {
    const e = error as { meta?: { driverAdapterError?: { cause?: { originalCode?: string } } }; cause?: { originalCode?: string } };
    return e.meta?.driverAdapterError?.cause?.originalCode ?? e.cause?.originalCode;
  };

  it('a deadlock (40P01) is busy', async () => {
    const [a, b] = await twoClients();
    try {
      let locked = 0;
      const bothLocked = () =>
        new Promise<void>((resolve) => {
          locked++;
          const wait = () => (locked >= 2 ? resolve() : setTimeout(wait, 5));
          wait();
        });
      const crossing = (db: typeof a, first: number, second: number) =>
        db.db.$transaction(async (tx) => {
          await tx.$executeRawUnsafe('UPDATE "ConflictProbe" SET "v" = "v" + 1 WHERE "id" = $1', first);
          await bothLocked();
          await tx.$executeRawUnsafe('UPDATE "ConflictProbe" SET "v" = "v" + 1 WHERE "id" = $1', second);
        });
      const error = await oneFails([crossing(a, 1, 2), crossing(b, 2, 1)]);
      expect(codeOf(error)).toBe('40P01');
      expect(isDatabaseBusy(error)).toBe(true);
    } finally {
      await Promise.all([a.db.$disconnect(), b.db.$disconnect()]);
    }
  });

  it('a serialization failure (40001) is busy', async () => {
    const [a, b] = await twoClients();
    try {
      let read = 0;
      const bothRead = () =>
        new Promise<void>((resolve) => {
          read++;
          const wait = () => (read >= 2 ? resolve() : setTimeout(wait, 5));
          wait();
        });
      // Each reads the row the other writes: under SERIALIZABLE one of the two must fail.
      const skewed = (db: typeof a, readId: number, writeId: number) =>
        db.db.$transaction(
          async (tx) => {
            await tx.$queryRawUnsafe('SELECT "v" FROM "ConflictProbe" WHERE "id" = $1', readId);
            await bothRead();
            await tx.$executeRawUnsafe('UPDATE "ConflictProbe" SET "v" = 1 WHERE "id" = $1', writeId);
          },
          { isolationLevel: 'Serializable' },
        );
      const error = await oneFails([skewed(a, 1, 2), skewed(b, 2, 1)]);
      // Found at a statement it carries PostgreSQL's code; found at COMMIT, Prisma's P2034 (write conflict or deadlock).
      expect(codeOf(error) ?? (error as { code?: string }).code, String(error)).toMatch(/^(40001|P2034)$/);
      expect(isDatabaseBusy(error)).toBe(true);
    } finally {
      await Promise.all([a.db.$disconnect(), b.db.$disconnect()]);
    }
  });
});

describe('outbox claims on PostgreSQL (several replicas)', () => {
  // Each claim leases its messages for an hour: longer than the whole file can take on a busy machine. With a minute's
  // lease, round 36 of the first test (68 s in, under load) saw round 0's leased message due again and took it.
  const LEASE_MS = 3_600_000;
  it("claims from two replicas' clients at once take a channel's first message once, never the one behind it", async () => {
    const { url } = await createTestDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const replicas = await Promise.all([openPostgresDb(url, { max: 16 }), openPostgresDb(url, { max: 16 })]);
    try {
      for (const dir of migrationDirs()) await admin.query(readFileSync(path.join(postgresMigrationsDir, dir, 'migration.sql'), 'utf8'));
      for (let round = 0; round < 60; round++) {
        const channel = `ch_${round}`;
        for (let i = 1; i <= 3; i++) {
          await admin.query(
            `INSERT INTO "OutboxMessage" ("id", "workspaceId", "channelId", "url", "runId", "kind", "payload", "idempotencyKey",
               "attempts", "nextAttemptAt", "createdAt") VALUES ($1, 'ws', $2, 'https://hooks.example.com/', 'run', 'checklist_ready', '{}', $1, 0,
               now() - interval '1 minute', now() - interval '1 minute' + $3 * interval '1 ms')`,
            [`msg_${round}_${i}`, channel, i],
          );
        }
        // 32 claims at once, as two replicas' workers polling together would.
        const claims = await Promise.all(Array.from({ length: 32 }, (_, i) => claimDue(replicas[i % 2]!.db, new Date(), 10, {}, LEASE_MS)));
        expect(claims.flat().map((m) => m.id)).toEqual([`msg_${round}_1`]);
      }
    } finally {
      await admin.end();
      await Promise.all(replicas.map((r) => r.db.$disconnect()));
    }
  });

  it('claims waiting their turn past the pool wait for a connection rather than fail after 2 s', async () => {
    // Under load, 32 claims at once waited on the claim lock holding every pool connection; those past the pool failed
    // P2028 ("Unable to start a transaction in the given time") after Prisma's default 2 s wait for a connection.
    const { url } = await createTestDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const replica = await openPostgresDb(url, { max: 2 });
    try {
      for (const dir of migrationDirs()) await admin.query(readFileSync(path.join(postgresMigrationsDir, dir, 'migration.sql'), 'utf8'));
      await admin.query(
        `INSERT INTO "OutboxMessage" ("id", "workspaceId", "channelId", "url", "runId", "kind", "payload", "idempotencyKey",
           "attempts", "nextAttemptAt", "createdAt") VALUES ('msg_1', 'ws', 'ch', 'https://hooks.example.com/', 'run', 'checklist_ready',
           '{}', 'msg_1', 0, now() - interval '1 minute', now() - interval '1 minute')`,
      );
      await admin.query('SELECT pg_advisory_lock(7411202613)');
      const claims = Array.from({ length: 6 }, () =>
        claimDue(replica.db, new Date(), 10, {}, LEASE_MS).then(
          (claimed) => claimed.map((m) => m.id),
          (error: unknown) => String(error).slice(0, 200),
        ),
      );
      await sleep(2_500);
      await admin.query('SELECT pg_advisory_unlock(7411202613)');
      expect((await Promise.all(claims)).flat()).toEqual(['msg_1']);
    } finally {
      await admin.end();
      await replica.db.$disconnect();
    }
  });

  it('a claim gives no workspace more channels than its share has room for; the workspaces take turns', async () => {
    const { url } = await createTestDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const replica = await openPostgresDb(url, { max: 4 });
    try {
      for (const dir of migrationDirs()) await admin.query(readFileSync(path.join(postgresMigrationsDir, dir, 'migration.sql'), 'utf8'));
      // Workspace "busy" has 20 due channels, older than the one each of "quiet" and "calm" has.
      const rows = [
        ...Array.from({ length: 20 }, (_, i) => ['busy', `ch_busy_${i}`, i]),
        ['quiet', 'ch_quiet', 100],
        ['calm', 'ch_calm', 101],
      ] as const;
      for (const [workspaceId, channel, order] of rows) {
        await admin.query(
          `INSERT INTO "OutboxMessage" ("id", "workspaceId", "channelId", "url", "runId", "kind", "payload", "idempotencyKey",
             "attempts", "nextAttemptAt", "createdAt") VALUES ($1, $2, $3, 'https://hooks.example.com/', 'run', 'checklist_ready', '{}', $1, 0,
             now() - interval '1 minute' + $4 * interval '1 ms', now() - interval '1 minute' + $4 * interval '1 ms')`,
          [`msg_${channel}`, workspaceId, channel, order],
        );
      }
      // "busy" already runs 3 of its 4 lanes: one more of its channels, then "quiet" and "calm", though theirs are newer.
      const share = { perWorkspace: 4, running: new Map([['busy', 3]]) };
      const claimed = await claimDue(replica.db, new Date(), 10, { share }, LEASE_MS);
      expect(claimed.map((m) => m.channelId).sort()).toEqual(['ch_busy_0', 'ch_calm', 'ch_quiet']);
      // At its share, "busy" gets nothing; nothing else is due (the others are leased).
      const full = { perWorkspace: 4, running: new Map([['busy', 4]]) };
      expect(await claimDue(replica.db, new Date(), 10, { share: full }, LEASE_MS)).toEqual([]);
      // Fewer free lanes than workspaces waiting: each workspace's first channel before anyone's second.
      await admin.query(`UPDATE "OutboxMessage" SET "nextAttemptAt" = now() - interval '1 minute'`);
      const two = await claimDue(replica.db, new Date(), 2, { share: { perWorkspace: 4, running: new Map() } }, LEASE_MS);
      expect(new Set(two.map((m) => m.workspaceId)).size).toBe(2);
    } finally {
      await admin.end();
      await replica.db.$disconnect();
    }
  });
});

/** A TCP relay in front of PostgreSQL: `cut()` closes it and every connection through it (the server is gone for the
 * app: connections refused), `open()` listens again on the same port. */
function relayTo(target: URL) {
  const sockets = new Set<Socket>();
  let relay: Server | undefined;
  let port = 0;
  const open = () =>
    new Promise<number>((resolve) => {
      relay = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname);
        const end = () => [client, upstream].forEach((s) => (s.destroy(), sockets.delete(s)));
        for (const s of [client, upstream]) sockets.add(s.on('error', end).on('close', end));
        client.pipe(upstream).pipe(client);
      });
      relay.listen(port, '127.0.0.1', () => resolve((port = (relay?.address() as AddressInfo).port)));
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      relay?.close(() => resolve());
    });
  return { open, cut };
}

describe('MCP session opens on PostgreSQL', () => {
  /** The advisory lock MCP opens count and insert under (repositories/prisma-mcp-session-repository.ts). */
  const OPEN_LOCK = 7411202611;
  const BUSY = 'Error: the database is busy (another process held its write lock too long); retry shortly.';

  /** A server of the test's own with this busy timeout (PostgreSQL's lock_timeout, and an open's longest wait for its turn). */
  const serverWithBusyTimeout = (ms: number) => startServer({ postgres: true, env: { AGENT_TASKS_BUSY_TIMEOUT_MS: String(ms) } });
  const agentKey = async (on: RunningServer, name: string) => {
    const { key, token } = await adminClient(on).keys.create({ name, role: 'agent' });
    return { id: key.id, token };
  };
  /** A connection of the test's holding the open lock, as another replica's open would. */
  const lockHolder = async (on: RunningServer) => {
    const holder = new pg.Client({ connectionString: on.databaseUrl });
    await holder.connect();
    await holder.query(`SELECT pg_advisory_lock(${OPEN_LOCK})`);
    return holder;
  };
  /** Resolves once an open of the server waits for the open lock (its transaction's pg_advisory_xact_lock). */
  const openWaitsForLock = (on: RunningServer, holder: pg.Client) =>
    waitFor(
      'an open waiting for the open lock',
      async () =>
        (
          await holder.query(
            `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
               AND (classid::bigint << 32) + objid::bigint = ${OPEN_LOCK}`,
          )
        ).rowCount,
      guardMs(2_000),
    );

  it('a flood of opens waiting on the open lock takes one connection: reads go on, and every open gets in once it is free', async () => {
    // Each open counts and inserts under one advisory lock (so replicas cannot pass a cap together). Held elsewhere,
    // 12 waiting opens once held all 10 of the pool's connections: reads waited with them, and the opens past the
    // pool failed after Prisma's 2 s wait for a connection (500, "Unable to start a transaction in the given time").
    // A server of its own whose busy timeout (its lock_timeout, and the longest wait for an open's turn) is far past how
    // long the lock is held here: the shared one's 5 s could answer an open 503 on a busy machine before it is freed.
    const on = await serverWithBusyTimeout(guardMs(30_000));
    let holder: pg.Client | undefined;
    try {
      const { id, token } = await agentKey(on, 'mcp flood');
      const reader = await sessionClient(on, 'reads beside the opens');
      holder = await lockHolder(on);
      const sent = Date.now();
      const opens = Array.from({ length: 12 }, () => initializeMcp(on, token));
      let read = false;
      const reading = reader.client.todos.get().then(() => (read = true));
      await Promise.race([reading, sleep(guardMs(2_000))]);
      // Held past Prisma's 2 s wait for a connection, read or not.
      await sleep(Math.max(0, 2_500 - (Date.now() - sent)));
      expect(read).toBe(true);
      await holder.query(`SELECT pg_advisory_unlock(${OPEN_LOCK})`);
      const answers = await Promise.all(opens);
      expect(answers.map((answer) => `${answer.status} ${answer.text.slice(0, 200)}`).filter((a) => !a.startsWith('200'))).toEqual([]);
      // This key's sessions only (the key's open sessions are all this test's).
      expect(await openMcpSessions(on, id)).toBe(12);
    } finally {
      await holder?.end();
      await on.stop();
    }
  });

  it('an open waiting its turn past the busy timeout is answered 503 busy and opens nothing', async () => {
    // Opens in a process take turns before taking the lock. While another replica holds it, the open at the head waits
    // up to the lock timeout, and the one behind it up to that again: the k-th answered after k of them. An open still
    // waiting for its turn past the busy timeout is refused busy instead (and opens nothing once the lock is free).
    const busyMs = 3_000;
    const on = await serverWithBusyTimeout(busyMs);
    let holder: pg.Client | undefined;
    try {
      const keys = await Promise.all(Array.from({ length: 5 }, (_, i) => agentKey(on, `mcp queued ${i}`)));
      holder = await lockHolder(on);
      // The head: it waits for the lock up to the lock timeout (then 503 busy), holding the turn meanwhile.
      const head = initializeMcp(on, keys[0]!.token);
      await openWaitsForLock(on, holder);
      const waitStarted = Date.now();
      // A third of the timeout later, four more line up behind it. When the head gives up, the first of them takes the
      // turn and waits for the lock; the others, still in line a busy timeout after they came, are refused busy.
      await sleep(busyMs / 3);
      const queued = keys.slice(1).map((k) => initializeMcp(on, k.token));
      // Freed after they were refused, and before the one holding the turn reaches its own lock timeout.
      await sleep(Math.max(0, (5 * busyMs) / 3 - (Date.now() - waitStarted)));
      await holder.query(`SELECT pg_advisory_unlock(${OPEN_LOCK})`);
      const first = await head;
      expect([first.status, JSON.parse(first.text).error?.message]).toEqual([503, BUSY]);
      const answers = await Promise.all(queued);
      const refusedBusy = answers.filter((a) => a.status === 503);
      expect(refusedBusy.length, answers.map((a) => `${a.status} ${a.text.slice(0, 200)}`).join('\n')).toBeGreaterThanOrEqual(1);
      for (const answer of refusedBusy) {
        expect(JSON.parse(answer.text).error.message).toBe(BUSY);
        expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      }
      expect(answers.filter((a) => a.status !== 503 && a.status !== 200)).toEqual([]);
      // Each key's sessions: one for an open answered 200, none for one refused (nor for the head).
      const held = await Promise.all(keys.map((k) => openMcpSessions(on, k.id)));
      expect(held).toEqual([0, ...answers.map((a) => (a.status === 200 ? 1 : 0))]);
    } finally {
      await holder?.end();
      await on.stop();
    }
  });

  it('an open whose client went away while it waited its turn opens no session once the lock is free', async () => {
    // Without the request's signal an open waiting its turn went on after its client had gone, and opened a session
    // nobody would use (each one counted against the key's and the workspace's caps until it went idle).
    const on = await serverWithBusyTimeout(guardMs(3_000));
    let holder: pg.Client | undefined;
    try {
      const [first, gone, after] = await Promise.all(['first', 'gone', 'after'].map((name) => agentKey(on, `mcp ${name}`)));
      holder = await lockHolder(on);
      const head = initializeMcp(on, first!.token);
      await openWaitsForLock(on, holder);
      // The second lines up behind the head; its client gives up before the lock is free.
      const abort = new AbortController();
      const abandoned = initializeMcp(on, gone!.token, { signal: abort.signal }).catch((error: unknown) => error);
      await sleep(500);
      abort.abort();
      expect(await abandoned).toBeInstanceOf(Error);
      // A third lines up after it: answered, the abandoned one's turn has come and gone.
      const next = initializeMcp(on, after!.token);
      await sleep(200);
      await holder.query(`SELECT pg_advisory_unlock(${OPEN_LOCK})`);
      expect((await head).status).toBe(200);
      expect((await next).status).toBe(200);
      expect(await Promise.all([first, gone, after].map((k) => openMcpSessions(on, k!.id)))).toEqual([1, 0, 1]);
    } finally {
      await holder?.end();
      await on.stop();
    }
  });
});

describe('a database that stops answering', () => {
  it('is answered 503 by /readyz and by calls, logged once per loop, not on every round; the server serves again once it is back', async () => {
    const database = await createTestDatabase();
    const relay = relayTo(new URL(database.url));
    const relayed = new URL(database.url);
    relayed.host = `127.0.0.1:${await relay.open()}`;
    const outage = await startServer({ databaseUrl: relayed.toString() });
    try {
      const before = await sessionClient(outage, 'before the outage');
      await before.client.todos.write({ todos: [{ content: 'Before', status: 'pending' }] });
      await relay.cut();
      await waitFor('readyz to answer 503', async () => (await fetch(`${outage.url}/readyz`)).status === 503 || null);
      // Calls are answered 503 with Retry-After, as a busy database is, not 500: a client or balancer retries elsewhere.
      for (const [procedure, token, method] of [
        ['todos.write', before.token, 'POST'],
        ['keys.list', outage.adminKey, 'GET'],
      ] as const) {
        const res = await fetch(`${outage.url}/trpc/${procedure}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(method === 'POST' ? { body: JSON.stringify({ todos: [] }) } : {}),
        });
        expect(res.status, procedure).toBe(503);
        expect(res.headers.get('retry-after'), procedure).toBe('1');
        expect(((await res.json()) as { error: { message: string } }).error.message, procedure).toBe(
          'Error: the database does not answer; retry shortly.',
        );
      }
      // Three seconds without the database: the revocation poll (every 100 ms), the outbox pass (every 250 ms) and the
      // LISTEN reconnection (every second) each fail on every round, but each is logged once.
      const from = outage.output().length;
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const lines = outage.output().slice(from);
      const count = (message: string) => lines.split('\n').filter((line) => line.includes(`"msg":"${message}"`)).length;
      expect(count('revocation poll failed')).toBeLessThanOrEqual(1);
      expect(count('notification delivery pass failed')).toBeLessThanOrEqual(1);
      expect(count('live events: reconnecting failed; trying again')).toBeLessThanOrEqual(1);

      await relay.open();
      await waitFor('readyz to answer 200', async () => (await fetch(`${outage.url}/readyz`)).status === 200 || null);
      expect((await before.client.todos.write({ todos: [{ content: 'Back', status: 'pending' }] })).revision).toBe(2);
    } finally {
      await outage.stop();
      await relay.cut();
      await database.drop();
    }
  });
});
