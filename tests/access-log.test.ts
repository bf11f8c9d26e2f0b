// The log written to a file descriptor (stdout, in production; here the built server's stdout is a file): every answer
// finds its own access-log line already written (those lines go out once per turn of the event loop), any other line
// is written at once, and the access line keeps pino's shape.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@agent-tasks/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTasksBin, exitOf, freshDatabase } from './support/server.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-log-'));
const logFile = path.join(dir, 'server.log');
const adminKey = `atk_log_${Math.random().toString(36).slice(2)}_${Date.now()}`;
let fd: number;
let child: ChildProcess;
let url: string;

const lines = () =>
  readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  fd = openSync(logFile, 'a');
  const { databaseUrl } = await freshDatabase();
  // The built command with its stdout on a file: the server's own path for a log it writes to a file descriptor.
  child = spawn(process.execPath, [agentTasksBin, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      AGENT_TASKS_ADMIN_KEY: adminKey,
      AGENT_TASKS_WORKERS: '1',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', fd, 'inherit'],
  });
  const started = Date.now();
  while (!url) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (Date.now() - started > 60_000) throw new Error('server did not start');
    url = readFileSync(logFile, 'utf8').match(/listening on (http:\/\/[\d.:]+)/)?.[1] ?? '';
    if (!url) await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
afterAll(async () => {
  const exited = child ? exitOf(child) : null;
  child?.kill('SIGTERM');
  await exited;
  closeSync(fd);
});

describe('log lines to a file descriptor', () => {
  it('a line other than an access line is written at once, so it stays before what the process writes next', () => {
    const log = createLogger({ level: 'info', format: 'json' }, { fd } as unknown as NodeJS.WritableStream);
    log.warn({ n: 1 }, 'written at once');
    log.error({ n: 2 }, 'written at once');
    expect(
      lines()
        .filter((line) => line.msg === 'written at once')
        .map((line) => line.n),
    ).toEqual([1, 2]);
  });

  it('every answer finds its own access-log line already written, with 40 requests at once', async () => {
    const missing: string[] = [];
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const id = `order-${i}-${Date.now()}`;
        const res = await fetch(`${url}/trpc/workspaces.whoami`, { headers: { authorization: `Bearer ${adminKey}`, 'x-request-id': id } });
        // Read at the moment the answer arrives: its line must be in the file already.
        if (!readFileSync(logFile, 'utf8').includes(`"req":"${id}"`)) missing.push(id);
        expect(res.status).toBe(200);
        await res.text();
      }),
    );
    expect(missing).toEqual([]);
  });

  it("the access line has pino's own shape: the same keys in the same order as a pino line, never a token", async () => {
    const id = `shape-${Date.now()}`;
    const res = await fetch(`${url}/trpc/workspaces.whoami`, { headers: { authorization: `Bearer ${adminKey}`, 'x-request-id': id } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(id);
    const line = lines().find((l) => l.req === id);
    expect(Object.keys(line ?? {})).toEqual(['level', 'time', 'pid', 'req', 'method', 'route', 'actor', 'status', 'ms', 'msg']);
    expect(line).toMatchObject({ level: 30, pid: child.pid, method: 'GET', route: 'workspaces.whoami', status: 200, msg: 'request' });
    expect(typeof line?.actor).toBe('string');
    expect(typeof line?.ms).toBe('number');
    expect(Math.abs(Number(line?.time) - Date.now())).toBeLessThan(60_000);
    expect(readFileSync(logFile, 'utf8')).not.toContain(adminKey);
    // pino's own line for the same fields, for the order of its keys.
    const log = createLogger({ level: 'info', format: 'json' }, { fd } as unknown as NodeJS.WritableStream);
    log.info({ req: 'pino-shape', method: 'GET', route: 'r', actor: 'a', status: 200, ms: 1.5 }, 'request');
    await new Promise((resolve) => setImmediate(resolve));
    const pinoLine = lines().find((l) => l.req === 'pino-shape');
    expect(Object.keys(pinoLine ?? {})).toEqual(Object.keys(line ?? {}));
  });

  it('a request id of the caller that is no plain token of at most 64 characters is replaced by a new one', async () => {
    for (const given of ['has space', 'x'.repeat(65), 'semi;colon']) {
      const res = await fetch(`${url}/healthz`, { headers: { 'x-request-id': given } });
      const id = res.headers.get('x-request-id') ?? '';
      expect(id).not.toBe(given);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(lines().some((l) => l.req === id && l.route === '/healthz')).toBe(true);
    }
  });
});
