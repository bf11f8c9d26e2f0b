// Pack-and-install test of @agent-tasks/server: `pnpm pack` (prepack builds the server and the dashboard and stages the
// migrations and the dashboard into dist/), `npm install` of the tarball alone into a project outside the workspace,
// then the installed `agent-tasks serve` on a free port with a fresh SQLite file answers the dashboard at `/`, its
// assets, /healthz and tRPC; the installed command also carries the SDK's client commands (hook, hook install, mcp,
// tasks), and its opencode plugin is the package's own built copy.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '..');
const serverDir = path.join(repoRoot, 'apps/server');
const serverManifest = JSON.parse(readFileSync(path.join(serverDir, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
// Child processes get this environment without the npm_* and our own variables a test run may set, as a user's shell.
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !key.startsWith('npm_') && !key.startsWith('AGENT_TASKS_') && key !== 'DATABASE_URL'),
);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; input?: string }): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { cwd: options.cwd, env: { ...cleanEnv, ...options.env }, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? Number(error.code) : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

async function succeed(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const ran = await run(command, args, options);
  expect(ran.code, `${command} ${args.join(' ')}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
  return ran;
}

const timings: Record<string, number> = {};
async function timed<T>(name: string, step: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await step();
  } finally {
    timings[name] = Math.round(performance.now() - start);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

let work: string;
let project: string;
let tarball: string;
const installed = () => path.join(project, 'node_modules/@agent-tasks/server');
const bin = () => path.join(project, 'node_modules/.bin/agent-tasks');

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-server-package-'));
  project = path.join(work, 'host');
  mkdirSync(project);
  await timed('pnpm pack (prepack: build of the server and the dashboard, staging)', () =>
    succeed('pnpm', ['pack', '--pack-destination', work], { cwd: serverDir }),
  );
  tarball = path.join(work, readdirSync(work).find((name) => name.endsWith('.tgz')) ?? 'no tarball');
  expect(path.basename(tarball)).toBe(`agent-tasks-server-${serverManifest.version}.tgz`);
  // postpack removed what prepack staged: the workspace's own build finds the repository's migrations again.
  expect(existsSync(path.join(serverDir, 'dist/prisma'))).toBe(false);
  expect(existsSync(path.join(serverDir, 'dist/web'))).toBe(false);

  writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'server-host', private: true }, null, 2)}\n`);
  // npm 11 runs no dependency's install script unless allowed (`--allow-scripts=better-sqlite3`, docs/install.md):
  // better-sqlite3 then compiles SQLite from source, minutes on this machine. The test installs without scripts and
  // puts in the binding the workspace compiled for this very Node and better-sqlite3 version, unless
  // AGENT_TASKS_PACK_TEST_NATIVE=build asks for npm's own build.
  const build = process.env.AGENT_TASKS_PACK_TEST_NATIVE === 'build';
  await timed('npm install', () =>
    succeed(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        ...(build ? ['--allow-scripts=better-sqlite3'] : ['--ignore-scripts']),
        tarball,
      ],
      { cwd: project, env: { npm_config_nodedir: path.dirname(path.dirname(process.execPath)) } },
    ),
  );
  if (!build) {
    const workspaceSqlite = path.dirname(createRequire(path.join(serverDir, 'package.json')).resolve('better-sqlite3/package.json'));
    const installedSqlite = path.join(project, 'node_modules/better-sqlite3');
    const version = (dir: string) => (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    expect(version(installedSqlite)).toBe(version(workspaceSqlite));
    mkdirSync(path.join(installedSqlite, 'build/Release'), { recursive: true });
    copyFileSync(
      path.join(workspaceSqlite, 'build/Release/better_sqlite3.node'),
      path.join(installedSqlite, 'build/Release/better_sqlite3.node'),
    );
  }
}, 900_000);

afterAll(() => {
  console.info(`server-package timings (ms): ${JSON.stringify(timings)}`);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed @agent-tasks/server, installed with npm outside the workspace', () => {
  it('is a public package in the @agent-tasks scope, depending on no workspace package, with dist, migrations and the dashboard', () => {
    const manifest = JSON.parse(readFileSync(path.join(installed(), 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).not.toHaveProperty('private');
    expect(manifest).toMatchObject({
      name: '@agent-tasks/server',
      version: serverManifest.version,
      type: 'module',
      engines: { node: '>=20' },
    });
    expect(manifest.bin).toEqual({ 'agent-tasks': './bin/agent-tasks.mjs', 'agent-tasks-hook': './bin/agent-tasks-hook.cjs' });
    expect(manifest.dependencies).toEqual(serverManifest.dependencies);
    expect(Object.keys(manifest.dependencies as Record<string, string>).filter((name) => name.startsWith('@agent-tasks/'))).toEqual([]);
    for (const version of Object.values(manifest.dependencies as Record<string, string>))
      expect(version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    // Exports name only files the package has.
    expect(manifest.exports).toEqual({ './package.json': './package.json' });

    const modules = path.join(project, 'node_modules');
    expect(readdirSync(path.join(modules, '@agent-tasks'))).toEqual(['server']);
    expect(readdirSync(modules)).not.toContain('tsx');
    const dist = path.join(installed(), 'dist');
    for (const file of ['cli.js', 'hook.cjs', 'hook-loader.cjs', 'opencode.js', 'web/index.html', 'prisma/migrations/migration_lock.toml'])
      expect(existsSync(path.join(dist, file)), file).toBe(true);
    const migrations = (dir: string) =>
      readdirSync(dir)
        .filter((name) => name !== 'migration_lock.toml')
        .sort();
    expect(migrations(path.join(dist, 'prisma/migrations'))).toEqual(migrations(path.join(repoRoot, 'prisma/migrations')));
    expect(migrations(path.join(dist, 'prisma/migrations-postgres'))).toEqual(
      migrations(path.join(repoRoot, 'prisma/migrations-postgres')),
    );
    expect(readdirSync(dist).filter((name) => name.endsWith('.cache'))).toEqual([]);
    expect(existsSync(path.join(installed(), 'src'))).toBe(false);
  });

  it('runs `agent-tasks serve` on a free port with a fresh SQLite file: the dashboard at /, its assets, /healthz and tRPC', async () => {
    const port = await freePort();
    const database = path.join(work, 'data', 'agent-tasks.db');
    const child = spawn(bin(), ['serve', '--port', String(port), '--database', database, '--workers', '1', '--log-level', 'info'], {
      cwd: project,
      env: cleanEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const url = `http://127.0.0.1:${port}`;
      await timed('serve: until listening', async () => {
        const deadline = Date.now() + 120_000;
        for (;;) {
          if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}:\n${output}`);
          const ok = await fetch(`${url}/healthz`).then(
            (r) => r.ok,
            () => false,
          );
          if (ok) break;
          if (Date.now() > deadline) throw new Error(`serve never answered /healthz:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      });
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });

      const page = await fetch(`${url}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toMatch(/^<!doctype html>/i);
      expect(html).not.toContain('has not been built');
      const asset = /(?:src|href)="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(asset, html).toBeDefined();
      const script = await fetch(`${url}${asset}`);
      expect(script.status).toBe(200);
      expect(script.headers.get('cache-control')).toContain('immutable');

      // tRPC answers in its own shape: without a key, the refusal of an authenticated procedure.
      const trpc = await fetch(`${url}/trpc/workspaces.whoami`);
      expect(trpc.status).toBe(401);
      expect(await trpc.json()).toMatchObject({ error: { data: { code: 'UNAUTHORIZED' } } });

      // The database is the file given, migrated; nothing was written into the installed package.
      expect(existsSync(database)).toBe(true);
      expect(existsSync(path.join(installed(), 'data'))).toBe(false);
      expect(existsSync(path.join(project, 'data'))).toBe(false);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 180_000);

  it('carries the client commands: hook (fast path), hook install with its own opencode plugin, mcp and tasks', async () => {
    const help = await run(bin(), ['--help'], { cwd: project });
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const command of ['serve', 'keys', 'migrate', 'tasks', 'mcp', 'hook'])
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));

    // A hook against a server that is down: exit 0, one stderr line, nothing on stdout.
    const down = await run(bin(), ['hook', 'codex'], {
      cwd: project,
      env: { AGENT_TASKS_URL: 'http://127.0.0.1:9', AGENT_TASKS_TOKEN: 'atk_unused' },
      input: JSON.stringify({ session_id: 's', hook_event_name: 'SessionStart', cwd: project, source: 'startup' }),
    });
    expect(down).toMatchObject({ code: 0, stdout: '' });
    expect(down.stderr.trim().split('\n')).toHaveLength(1);

    // opencode's plugin file imports the package's own built plugin (no @agent-tasks/sdk is installed), which loads.
    const printed = await run(bin(), ['hook', 'install', 'opencode', '--print'], { cwd: project });
    expect(printed).toMatchObject({ code: 0, stderr: '' });
    const moduleUrl = /export \{ AgentTasksPlugin \} from "([^"]+)";/.exec(printed.stdout)?.[1];
    expect(moduleUrl).toMatch(/^file:\/\/.*\/node_modules\/@agent-tasks\/server\/dist\/opencode\.js$/);
    expect(existsSync(path.join(project, '.opencode'))).toBe(false);
    const loaded = await run(
      process.execPath,
      ['--input-type=module', '-e', `const m = await import(${JSON.stringify(moduleUrl)}); console.log(typeof m.AgentTasksPlugin);`],
      { cwd: project },
    );
    expect(loaded).toMatchObject({ code: 0, stdout: 'function\n' });

    const installedHook = await run(bin(), ['hook', 'install', 'codex'], { cwd: project });
    expect(installedHook).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(path.join(project, '.codex/hooks.json'), 'utf8')).toContain('node_modules/.bin/agent-tasks hook codex');

    const tasks = await run(bin(), ['tasks', '--help'], { cwd: project });
    expect(tasks).toMatchObject({ code: 0, stderr: '' });
    expect(tasks.stdout).toMatch(/^usage: agent-tasks tasks import\|export/);
    const mcp = await run(bin(), ['mcp'], { cwd: project });
    expect(mcp).toMatchObject({ code: 2, stdout: '' });
    expect(mcp.stderr).toContain('set AGENT_TASKS_TOKEN');
  });
});
