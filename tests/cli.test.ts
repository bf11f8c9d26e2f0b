// Black-box tests of the `agent-tasks` command: help and usage errors, configuration refusals, keys and migrate.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { createClient, refusalOf } from '@agent-tasks/sdk';
import { describe, expect, it } from 'vitest';
import { testDatabase } from './support/database.ts';
import { countRows } from './support/fixtures.ts';
import { agentTasksBin, freshDatabase, startServer, tempDatabaseFile } from './support/server.ts';
import { guardMs } from './support/time-guard.ts';
import { waitFor } from './support/webhook-receiver.ts';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `agent-tasks <args>` to completion with the given environment additions. */
function agentTasks(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_FORMAT: 'json', ...env };
    delete childEnv.AGENT_TASKS_ADMIN_KEY;
    if (!('DATABASE_URL' in env)) delete childEnv.DATABASE_URL;
    execFile(process.execPath, [agentTasksBin, ...args], { env: childEnv, timeout: guardMs(10_000) }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('agent-tasks --help', () => {
  it.each([
    [[], 'Usage: agent-tasks [options] [command]'],
    [['serve'], 'Usage: agent-tasks serve [options]'],
    [['keys'], 'Usage: agent-tasks keys [options] [command]'],
    [['keys', 'create'], 'Usage: agent-tasks keys create [options]'],
    [['keys', 'list'], 'Usage: agent-tasks keys list [options]'],
    [['keys', 'revoke'], 'Usage: agent-tasks keys revoke [options] <id>'],
    [['migrate'], 'Usage: agent-tasks migrate [options] [command]'],
    [['migrate', 'apply'], 'Usage: agent-tasks migrate apply [options]'],
    [['migrate', 'check'], 'Usage: agent-tasks migrate check [options]'],
    [['hook'], 'Usage: agent-tasks hook [options] [command]'],
    [['hook', 'claude-code'], 'Usage: agent-tasks hook claude-code [options]'],
    [['hook', 'codex'], 'Usage: agent-tasks hook codex [options]'],
    [['hook', 'gemini'], 'Usage: agent-tasks hook gemini [options]'],
    [['hook', 'install'], 'Usage: agent-tasks hook install [options] <runtime>'],
    [['hook', 'uninstall'], 'Usage: agent-tasks hook uninstall [options] <runtime>'],
    [['tasks'], 'usage: agent-tasks tasks import|export --format claude|sisyphus [--dir <folder>]'],
    [['tasks'], 'agent-tasks tasks mirror [--dir <folder>]'],
    [['mcp'], 'Usage: agent-tasks mcp [options]'],
  ])('%j --help prints its usage and exits 0', async (args, usage) => {
    const ran = await agentTasks([...args, '--help']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain(usage);
  });

  it('refuses an unknown flag or command with a clear error and exit code 2', async () => {
    const flag = await agentTasks(['serve', '--bogus']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("Error: unknown option '--bogus'");
    const command = await agentTasks(['keys', 'mint']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("Error: unknown command 'mint'");
  });
});

describe('configuration refusals', () => {
  it.each([
    [{ PORT: 'abc' }, [], 'Error: invalid configuration: PORT must be a whole number from 0 to 65535 (got "abc").'],
    [{ PORT: '70000' }, [], 'Error: invalid configuration: PORT must be a whole number from 0 to 65535 (got "70000").'],
    [{}, ['--port', '-1'], 'Error: invalid configuration: --port (PORT) must be a whole number from 0 to 65535 (got "-1").'],
    [
      { LOG_LEVEL: 'loud' },
      [],
      'Error: invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud").',
    ],
    [{ LOG_FORMAT: 'xml' }, [], 'Error: invalid configuration: LOG_FORMAT must be json or pretty (got "xml").'],
    [
      { AGENT_TASKS_PUBLIC_URL: 'tasks.example.com' },
      [],
      'Error: invalid configuration: AGENT_TASKS_PUBLIC_URL must be an absolute http:// or https:// URL (got "tasks.example.com").',
    ],
    [
      {},
      ['--public-url', 'ftp://x'],
      'Error: invalid configuration: --public-url (AGENT_TASKS_PUBLIC_URL) must be an absolute http:// or https:// URL (got "ftp://x").',
    ],
    [
      { AGENT_TASKS_CORS_ORIGINS: 'https://ok.example.com,https://bad.example.com/path' },
      [],
      'Error: invalid configuration: AGENT_TASKS_CORS_ORIGINS must be a comma-separated list of origins such as https://dash.example.com (scheme and host, no path), or * (got "https://ok.example.com,https://bad.example.com/path").',
    ],
    [
      { AGENT_TASKS_TRUSTED_PROXIES: '10.0.0.5,proxy.internal' },
      [],
      'Error: invalid configuration: AGENT_TASKS_TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges such as 127.0.0.1,10.0.0.0/8,::1 (got "10.0.0.5,proxy.internal").',
    ],
    [
      { AGENT_TASKS_AUTH_IPV6_PREFIX: '129' },
      [],
      'Error: invalid configuration: AGENT_TASKS_AUTH_IPV6_PREFIX must be a whole number from 1 to 128 (got "129").',
    ],
    [
      { AGENT_TASKS_BODY_MIN_BYTES_PER_S: '0' },
      [],
      'Error: invalid configuration: AGENT_TASKS_BODY_MIN_BYTES_PER_S must be a whole number from 1 to 1000000000 (got "0").',
    ],
    [
      { AGENT_TASKS_OUTBOX_POLL_MS: '5' },
      [],
      'Error: invalid configuration: AGENT_TASKS_OUTBOX_POLL_MS must be a whole number from 10 to 600000 (got "5").',
    ],
    [
      { AGENT_TASKS_STREAMS_PER_KEY: '0' },
      [],
      'Error: invalid configuration: AGENT_TASKS_STREAMS_PER_KEY must be a whole number from 1 to 100000 (got "0").',
    ],
    [
      { AGENT_TASKS_MCP_SESSIONS_PER_WORKSPACE: 'many' },
      [],
      'Error: invalid configuration: AGENT_TASKS_MCP_SESSIONS_PER_WORKSPACE must be a whole number from 1 to 100000 (got "many").',
    ],
    [
      { AGENT_TASKS_SHUTDOWN_TIMEOUT_MS: 'soon' },
      [],
      'Error: invalid configuration: AGENT_TASKS_SHUTDOWN_TIMEOUT_MS must be a whole number from 0 to 600000 (got "soon").',
    ],
    [
      { DATABASE_URL: 'mysql://db/x' },
      [],
      'Error: invalid configuration: DATABASE_URL must be file:<path> (SQLite), a file path, or postgresql://… (PostgreSQL) (got "mysql://db/x").',
    ],
    [
      { DATABASE_URL: 'postgresql://db/x', AGENT_TASKS_WORKERS: '2' },
      [],
      'Error: invalid configuration: AGENT_TASKS_WORKERS must be 1 with a PostgreSQL DATABASE_URL (got "2").',
    ],
    [
      { DATABASE_URL: 'postgresql://db/x' },
      ['--workers', '3'],
      'Error: invalid configuration: --workers (AGENT_TASKS_WORKERS) must be 1 with a PostgreSQL DATABASE_URL (got "3").',
    ],
  ])('%j %j stops the start before anything is created', async (env, flags, message) => {
    const databaseFile = tempDatabaseFile();
    const ran = await agentTasks(['serve', ...flags], { DATABASE_URL: `file:${databaseFile}`, ...env });
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim()).toBe(message);
    expect(existsSync(databaseFile)).toBe(false);
  });
});

describe('agent-tasks keys and migrate', () => {
  it('applies migrations to a new database, then finds nothing to do; the schema and migrations agree', async () => {
    const database = await freshDatabase();
    // The database as the command names it: the file, or the URL without its password.
    const url = new URL(database.databaseUrl);
    const password = url.password;
    url.password = '';
    const label = database.databaseFile || url.toString();
    const first = await agentTasks(['migrate', '--database', database.databaseUrl]);
    expect(first.code).toBe(0);
    const [, count, named, names] = first.stdout.match(/^Applied (\d+) migration\(s\) to (\S+): (.+)\n$/) ?? [];
    expect(named).toBe(label);
    expect(names?.split(', ')).toHaveLength(Number(count));
    const again = await agentTasks(['migrate', 'apply'], { DATABASE_URL: database.databaseUrl });
    expect(again.stdout).toBe(`${label} is up to date.\n`);
    expect(password === '' || !(first.stdout + again.stdout).includes(password)).toBe(true);
    expect(await countRows(database, 'Workspace')).toBe(0);
    const check = await agentTasks(['migrate', 'check']);
    expect(check.code).toBe(0);
    expect(check.stdout).toBe('prisma/schema.prisma and prisma/migrations agree.\n');
  });

  it('a PostgreSQL server it cannot reach is one `Error:` line naming the database without its password, exit 1', async () => {
    // A port nothing listens on: taken, then let go.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: taken } = probe.address() as { port: number };
        probe.close(() => resolve(taken));
      });
    });
    for (const args of [['keys', 'list'], ['keys', 'create', '--name', 'ci', '--role', 'agent'], ['migrate']]) {
      const ran = await agentTasks([...args, '--database', `postgresql://operator:s3cret-word@127.0.0.1:${port}/agent_tasks`]);
      expect(ran.code, args.join(' ')).toBe(1);
      expect(ran.stderr, args.join(' ')).toBe(
        `Error: cannot open postgresql://operator@127.0.0.1:${port}/agent_tasks: Can't reach database server at \`127.0.0.1:${port}\`\n`,
      );
      expect(ran.stdout).toBe('');
    }
  });

  it('refuses keys on a database with no workspace yet, recording nothing', async () => {
    const database = await freshDatabase();
    const ran = await agentTasks(['keys', 'create', '--name', 'ci', '--role', 'agent', '--database', database.databaseUrl]);
    expect(ran.code).toBe(1);
    expect(ran.stderr.trim()).toBe('Error: this database has no workspace yet; start the server once (agent-tasks serve) to create it.');
    expect(await countRows(database, 'ApiKey')).toBe(0);
  });

  it('creates a key whose token works once printed, lists it, and revokes it', async () => {
    const server = await startServer();
    try {
      const database = server.databaseUrl;
      const badRole = await agentTasks(['keys', 'create', '--name', 'x', '--role', 'boss', '--database', database]);
      expect(badRole.code).toBe(2);
      expect(badRole.stderr.trim()).toBe('Error: --role must be admin, agent, member or viewer (got "boss").');
      expect(await countRows(server, 'ApiKey', 'name = ?', 'x')).toBe(0);
      const missing = await agentTasks(['keys', 'create', '--role', 'agent', '--database', database]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("Error: required option '--name <name>' not specified");

      const created = await agentTasks(['keys', 'create', '--name', 'night runner', '--role', 'agent', '--database', database]);
      expect(created.code).toBe(0);
      const [, id, token] =
        created.stdout.match(/^Created agent key (key_\w+) "night runner"\. Its token \(shown only now\):\n(atk_\S+)\n$/) ?? [];
      expect(token).toBeDefined();
      const agent = createClient({ url: server.url, token: token ?? '' });
      expect(await agent.workspaces.whoami()).toMatchObject({ role: 'agent', keyId: id });

      const listed = await agentTasks(['keys', 'list', '--json', '--database', database]);
      const keys = JSON.parse(listed.stdout) as { id: string; name: string; role: string; revokedAt: string | null }[];
      expect(keys.find((k) => k.id === id)).toMatchObject({ name: 'night runner', role: 'agent', revokedAt: null });
      expect(listed.stdout).not.toContain(token);

      const revoked = await agentTasks(['keys', 'revoke', id ?? '', '--database', database]);
      expect(revoked.stdout).toBe(`Revoked key ${id} "night runner".\n`);
      // The running server caches callers; a revocation made by another process reaches it within a second.
      const refusal = await waitFor(
        'the revoked key refused',
        async () => {
          try {
            await agent.workspaces.whoami();
            return null;
          } catch (error) {
            return refusalOf(error);
          }
        },
        1_000,
      );
      expect(refusal.message).toBe('Error: unauthorized: this API key has been revoked.');
      const twice = await agentTasks(['keys', 'revoke', id ?? '', '--database', database]);
      expect(twice.code).toBe(1);
      expect(twice.stderr.trim()).toBe(`Error: API key ${id} is already revoked.`);
    } finally {
      await server.stop();
    }
  });

  it('creates a member key for a person: it writes tasks, and is refused sessions and keys with nothing recorded', async () => {
    const server = await startServer();
    try {
      const created = await agentTasks(['keys', 'create', '--name', 'Ada (person)', '--role', 'member', '--database', server.databaseUrl]);
      expect(created.code).toBe(0);
      const [, id, token] =
        created.stdout.match(/^Created member key (key_\w+) "Ada \(person\)"\. Its token \(shown only now\):\n(atk_\S+)\n$/) ?? [];
      const member = createClient({ url: server.url, token: token ?? '' });
      expect(await member.workspaces.whoami()).toMatchObject({ role: 'member', keyId: id });
      const task = await member.tasks.create({ listName: 'people', subject: 'Written by a person' });
      expect(task.threadID).toBe(id);
      const sessionsBefore = await countRows(server, 'Session');
      const refused = await member.sessions.open({ title: 'no' }).catch((error: unknown) => refusalOf(error));
      expect(refused).toMatchObject({ message: 'Error: forbidden: this call needs an agent key (this key is member).' });
      expect(await countRows(server, 'Session')).toBe(sessionsBefore);
      const keysBefore = await countRows(server, 'ApiKey');
      const noKeys = await member.keys.create({ name: 'x', role: 'viewer' }).catch((error: unknown) => refusalOf(error));
      expect(noKeys).toMatchObject({ message: 'Error: forbidden: this call needs an admin key (this key is member).' });
      expect(await countRows(server, 'ApiKey')).toBe(keysBefore);
      const listed = await agentTasks(['keys', 'list', '--database', server.databaseUrl]);
      expect(listed.stdout).toMatch(new RegExp(`^${id}  member  active\\s+Ada \\(person\\)$`, 'm'));
    } finally {
      await server.stop();
    }
  });
});

describe.runIf(testDatabase() === 'postgres')('agent-tasks keys and migrate on a PostgreSQL server that refuses them', () => {
  it('a wrong password or a missing database is one `Error:` line without the password, exit 1', async () => {
    const database = await freshDatabase();
    const wrong = new URL(database.databaseUrl);
    wrong.password = 'not-the-password';
    const missing = new URL(database.databaseUrl);
    missing.pathname = '/agent_tasks_missing';
    const cases = [
      [
        wrong,
        /^Error: cannot open postgresql:\/\/\w+@[\d.:]+\/\w+: Authentication failed against database server, the provided database credentials for `\w+` are not valid\.\n$/,
      ],
      [missing, /^Error: cannot open postgresql:\/\/\w+@[\d.:]+\/agent_tasks_missing: Database `agent_tasks_missing` does not exist\n$/],
    ] as const;
    for (const [url, text] of cases) {
      for (const args of [['keys', 'list'], ['migrate']]) {
        const ran = await agentTasks([...args, '--database', url.toString()]);
        expect(ran.code).toBe(1);
        expect(ran.stderr).toMatch(text);
        expect(ran.stderr).not.toContain(url.password);
      }
    }
  });
});
