// Black-box tests of the first run: migrations at start, the first workspace and admin key printed once.
import { createClient } from '@agent-tasks/sdk';
import { describe, expect, it } from 'vitest';
import { countRows, queryRows } from './support/database.ts';
import { refused } from './support/fixtures.ts';
import { freshDatabase, startServer } from './support/server.ts';

describe('first run', () => {
  it('applies migrations, creates a workspace and an admin key, prints the key once', async () => {
    const server = await startServer({ process: true, adminKey: null });
    try {
      const printed = server.output().match(/AGENT_TASKS_ADMIN_KEY=(atk_\S+)/)?.[1];
      expect(printed).toBeDefined();
      const admin = createClient({ url: server.url, token: printed ?? '' });
      expect(await admin.workspaces.whoami()).toMatchObject({ role: 'admin', workspace: { name: 'default' } });

      const migrations = await queryRows<{ finished_at: unknown }>(server, 'SELECT migration_name, finished_at FROM _prisma_migrations');
      expect(migrations.length).toBeGreaterThan(0);
      expect(migrations.every((m) => m.finished_at !== null)).toBe(true);

      await server.restart();
      expect(server.output()).not.toContain('AGENT_TASKS_ADMIN_KEY=');
      expect(await createClient({ url: server.url, token: printed ?? '' }).workspaces.whoami()).toMatchObject({ role: 'admin' });
      const res = await fetch(`${server.url}/healthz`);
      expect(await res.json()).toEqual({ ok: true });
    } finally {
      await server.stop();
    }
  });

  it('takes the admin key from AGENT_TASKS_ADMIN_KEY and does not print it', async () => {
    const server = await startServer({ process: true, adminKey: 'atk_from_the_environment_4f9c2e7a1d' });
    try {
      expect(server.output()).not.toContain('atk_from_the_environment_4f9c2e7a1d');
      const admin = createClient({ url: server.url, token: 'atk_from_the_environment_4f9c2e7a1d' });
      expect(await admin.workspaces.whoami()).toMatchObject({ role: 'admin' });
      expect((await refused(createClient({ url: server.url, token: 'atk_other' }).workspaces.whoami())).code).toBe('UNAUTHENTICATED');
    } finally {
      await server.stop();
    }
  });

  it('refuses to start with a too-short AGENT_TASKS_ADMIN_KEY and creates no workspace', async () => {
    const database = await freshDatabase();
    await expect(startServer({ process: true, database, adminKey: 'short' })).rejects.toThrow(
      'Error: AGENT_TASKS_ADMIN_KEY must be at least 24 characters.',
    );
    expect(await countRows(database, 'Workspace')).toBe(0);
  });
});
