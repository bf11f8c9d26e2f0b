// vitest globalSetup of the suite's PostgreSQL pass: one embedded cluster for the whole run (unless
// AGENT_TASKS_TEST_POSTGRES_URL already names a server), handed to every test process through that variable; each
// server under test gets a fresh database on it (tests/support/postgres.ts).
import { startEmbeddedPostgres } from './postgres.ts';

export default async function setup() {
  if (process.env.AGENT_TASKS_TEST_POSTGRES_URL) return undefined;
  const cluster = await startEmbeddedPostgres();
  process.env.AGENT_TASKS_TEST_POSTGRES_URL = cluster.url;
  return async () => {
    delete process.env.AGENT_TASKS_TEST_POSTGRES_URL;
    await cluster.stop();
  };
}
