// One server for a test file on a fresh PostgreSQL database, reached through a wire counter (what the server sends is
// counted): made before the file's tests, stopped and dropped after them.
import { afterAll, beforeAll } from 'vitest';
import { type WireCounter, startWireCounter } from './pg-wire-counter.ts';
import { type TestDatabase, createTestDatabase, stopTestPostgres } from './postgres.ts';
import { type RunningServer, startServer } from './server.ts';

/** Registers the file's hooks; the server and its counter are there once the tests run. */
export function serverBehindWireCounter(): { readonly server: RunningServer; readonly wire: WireCounter; readonly database: TestDatabase } {
  let database: TestDatabase | undefined;
  let wire: WireCounter | undefined;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    wire = await startWireCounter(database.url);
    server = await startServer({ databaseUrl: wire.url });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await wire?.close();
    await database?.drop();
    await stopTestPostgres();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} is made before the tests run`);
    return value;
  };
  return {
    get server() {
      return ready(server, 'server');
    },
    get wire() {
      return ready(wire, 'wire counter');
    },
    get database() {
      return ready(database, 'database');
    },
  };
}
