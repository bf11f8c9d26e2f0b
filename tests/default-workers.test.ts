// Black-box test of `agent-tasks serve` without --workers on SQLite: a worker per core, at most four (the configuration
// measured fastest on 2 cores; one process on a single core), each request logged once, and a clean stop.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { createClient } from '@agent-tasks/sdk';
import { expect, it } from 'vitest';
import { sqliteOnly } from './support/database.ts';
import { agentTasksBin, exitOf, tempDatabaseFile } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';

/** The pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const expected = Math.min(os.availableParallelism(), 4);

sqliteOnly('agent-tasks serve without --workers', () => {
  it(`runs a worker per core, at most four (${expected} here); each request is logged once, every line is out when it stops`, async () => {
    const adminKey = `atk_test_${randomBytes(16).toString('hex')}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: `file:${tempDatabaseFile()}`,
      PORT: '0',
      HOST: '127.0.0.1',
      AGENT_TASKS_ADMIN_KEY: adminKey,
      LOG_FORMAT: 'json',
    };
    delete env.AGENT_TASKS_WORKERS;
    const child = spawn(process.execPath, [agentTasksBin, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const url = await waitFor(
        'listening',
        () =>
          expected === 1
            ? output.match(/listening on (http:\/\/\S+) \(ready in \d+ ms\)/)?.[1]
            : output.match(new RegExp(`listening on (http://\\S+) \\(${expected} workers, ready in \\d+ ms\\)`))?.[1],
        30_000,
      );
      // The writer starts alone; the server listens once it is ready, and the other workers are forked then.
      const children = expected === 1 ? 0 : expected;
      await waitFor('every worker', () => childrenOf(child.pid ?? 0).length >= children || null, 30_000);
      expect(childrenOf(child.pid ?? 0)).toHaveLength(children);
      const admin = createClient({ url, token: adminKey });
      await admin.keys.create({ name: 'logged', role: 'agent' });
      await waitFor('the access-log line', () => output.includes('"route":"keys.create"'), 1_000);
      for (let i = 0; i < 20; i++) await admin.keys.list();
      child.kill('SIGTERM');
      expect(await exitOf(child)).toBe(0);
      const lines = output.split('\n').filter((line) => line.includes('"route":"keys.list"'));
      expect(lines).toHaveLength(20);
      expect(output).toMatch(/"msg":"stopped"/);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
