// Pack-and-install test of @agent-tasks/sdk: `pnpm pack` (which builds it), publint and attw on the tarball, `npm install`
// of the tarball into a project outside the workspace, a strict type-check (wrong argument types must fail), the
// compiled program run against a real server, and the installed `agent-tasks-mcp` bin speaking MCP over stdio. Then
// `npm install -g` of the tarball (into a prefix of its own): its `agent-tasks` command runs Codex's hook against the
// server, installs hooks pointing at itself, and refuses the server package's `agent-tasks` beside it (npm's EEXIST).
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { toolKit } from '@agent-tasks/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { guardMs } from './support/time-guard.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const sdkDir = path.join(repoRoot, 'packages/sdk');
const sdkManifest = JSON.parse(readFileSync(path.join(sdkDir, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const TOOL_NAMES = toolKit.map((s) => s.name);

// Child processes get this environment without the npm_* variables a `pnpm test` run sets, as a user's shell would.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: { ...cleanEnv, ...options.env }, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? Number(error.code) : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
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

let server: RunningServer;
let work: string;
let tarball: string;
let project: string;
let compiled: Ran;
const installed = () => path.join(project, 'node_modules/@agent-tasks/sdk');
const tsc = (args: string[]) => run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), ...args], { cwd: project });

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-sdk-package-'));
  project = path.join(work, 'consumer');
  mkdirSync(project);
  const packed = timed('pnpm pack (prepack: turbo build of the SDK)', () =>
    succeed('pnpm', ['pack', '--pack-destination', work], { cwd: sdkDir }),
  );
  [server] = await Promise.all([startServer(), packed]);
  tarball = path.join(work, readdirSync(work).find((name) => name.endsWith('.tgz')) ?? 'no tarball');
  expect(path.basename(tarball)).toBe(`agent-tasks-sdk-${sdkManifest.version}.tgz`);

  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: false,
        types: ['node'],
        outDir: 'out',
      },
      files: ['agent.ts'],
    }),
  );
  copyFileSync(path.join(repoRoot, 'tests/support/sdk-consumer.ts'), path.join(project, 'agent.ts'));
  await timed('npm install', () =>
    succeed(
      'npm',
      ['install', '--save-exact', '--no-audit', '--no-fund', '--prefer-offline', tarball, 'typescript@5.9.3', '@types/node@20.19.43'],
      {
        cwd: project,
      },
    ),
  );
  // One strict compile (type-check and emit to out/), asserted by the type-check test, run by the server test.
  compiled = await timed('tsc -p . (strict, skipLibCheck false)', () => tsc(['-p', '.']));
}, 600_000);

afterAll(async () => {
  console.info(`sdk-package timings (ms): ${JSON.stringify(timings)}`);
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('passes publint (strict) and attw with the ESM-only profile', async () => {
    const publint = await succeed('pnpm', ['exec', 'publint', 'run', tarball, '--strict'], { cwd: sdkDir });
    expect(publint.stdout).toContain('All good!');

    const attw = await succeed('pnpm', ['exec', 'attw', tarball, '--profile', 'esm-only', '--format', 'json'], { cwd: sdkDir });
    const report = JSON.parse(attw.stdout) as {
      analysis: { entrypoints: Record<string, unknown>; problems: { resolutionKind?: string }[] };
    };
    expect(Object.keys(report.analysis.entrypoints).sort()).toEqual([
      '.',
      './cli',
      './mcp',
      './opencode',
      './package.json',
      './stream-link',
    ]);
    // The ESM-only profile ignores CommonJS `require` and node10 resolution; nothing else may be reported.
    expect(report.analysis.problems.filter((p) => !['node10', 'node16-cjs'].includes(p.resolutionKind ?? ''))).toEqual([]);
  });
});

describe('installed with npm in a project outside the workspace', () => {
  it('brings no workspace package, no server code and no tsx; its files import only its declared dependencies', () => {
    const manifest = JSON.parse(readFileSync(path.join(installed(), 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).not.toHaveProperty('private');
    expect(manifest).toMatchObject({ name: '@agent-tasks/sdk', version: sdkManifest.version, type: 'module', engines: { node: '>=20' } });
    expect(manifest.bin).toEqual({
      'agent-tasks': './bin/agent-tasks.cjs',
      'agent-tasks-mcp': './bin/agent-tasks-mcp.js',
      'agent-tasks-files': './bin/agent-tasks-files.js',
    });
    expect(manifest.dependencies).toEqual(sdkManifest.dependencies);
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
      expect(
        Object.keys((manifest[field] as Record<string, string> | undefined) ?? {}).filter((name) => name.startsWith('@agent-tasks/')),
      ).toEqual([]);
    }
    for (const version of Object.values(manifest.dependencies as Record<string, string>)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);

    const modules = path.join(project, 'node_modules');
    expect(readdirSync(path.join(modules, '@agent-tasks'))).toEqual(['sdk']);
    for (const absent of ['tsx', '@prisma', 'prisma', 'better-sqlite3']) expect(readdirSync(modules)).not.toContain(absent);

    // Every import of the built files, JS and .d.ts: a node builtin, a declared dependency, or a file of dist itself.
    const dist = path.join(installed(), 'dist');
    const files = readdirSync(dist);
    expect(files.filter((f) => f.endsWith('.d.ts')).sort()).toEqual([
      'cli.d.ts',
      'index.d.ts',
      'mcp.d.ts',
      'opencode.d.ts',
      'stream-link.d.ts',
    ]);
    const allowed = new Set([...Object.keys(sdkManifest.dependencies), ...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    for (const file of files) {
      const text = readFileSync(path.join(dist, file), 'utf8');
      const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g)].map((m) => m[1] as string);
      for (const specifier of specifiers) {
        if (specifier.startsWith('.')) {
          expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[\w.-]+\.js$/);
          expect(files, `${file} imports ${specifier}`).toContain(specifier.slice(2));
          continue;
        }
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] as string);
        expect(allowed.has(name) || allowed.has(specifier), `${file} imports ${specifier}`).toBe(true);
      }
      // Its help names the server package (public too); no other package of ours, no server code.
      expect(text, file).not.toMatch(/@agent-tasks\/(?!sdk|server\b)|prisma|apps\/server|\btsx\b/i);
      if (file === 'index.d.ts') expect(specifiers).toContain('@trpc/client');
    }
  });

  it('type-checks a strict program using the client and the tool kit, and fails on each wrong argument type', async () => {
    expect(compiled, compiled.stdout).toMatchObject({ code: 0, stdout: '' });

    // Without its @ts-expect-error lines the same program must not compile: one error per wrong call, at that call.
    const source = readFileSync(path.join(project, 'agent.ts'), 'utf8').split('\n');
    const directive = (line: string) => line.trimStart().startsWith('// @ts-expect-error');
    const expected = source.flatMap((line, i) => (directive(line) ? [i + 1] : []));
    expect(expected).toHaveLength(3);
    writeFileSync(path.join(project, 'unchecked.ts'), source.map((line) => (directive(line) ? '' : line)).join('\n'));
    const unchecked = await timed('tsc unchecked.ts', () =>
      tsc([
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'ES2022',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        '--types',
        'node',
        'unchecked.ts',
      ]),
    );
    expect(unchecked.code).not.toBe(0);
    const errorLines = [...unchecked.stdout.matchAll(/^unchecked\.ts\((\d+),\d+\): error TS\d+/gm)].map((m) => Number(m[1]) - 1);
    expect(errorLines, unchecked.stdout).toEqual(expected);
    // The status union, in whatever order the declaration bundle spells it.
    expect(unchecked.stdout).toMatch(
      /Type '"done"' is not assignable to type '(?=[^']*"pending")(?=[^']*"in_progress")(?=[^']*"completed")[^']*'/,
    );
  });

  it('compiled with tsc, runs against a real server: a todo list, a two-task graph, a checklist run stepped', async () => {
    expect(compiled.code).toBe(0);
    const { token } = await adminClient(server).keys.create({ name: 'installed SDK', role: 'agent' });
    const ran = await timed('run the compiled program', () =>
      succeed(process.execPath, ['out/agent.js'], { cwd: project, env: { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: token } }),
    );
    const seen = JSON.parse(ran.stdout);

    expect(seen.toolNames).toEqual({ openai: TOOL_NAMES, anthropic: TOOL_NAMES });
    expect(seen.todo).toEqual({
      answer: 'Updated todo list: 0 pending, 1 in progress, 1 completed',
      items: [
        { content: 'Install the SDK', status: 'completed' },
        { content: 'Use the SDK', status: 'in_progress' },
      ],
    });

    const [first, second] = seen.graph.tasks as { id: string }[];
    expect(seen.graph.answers).toEqual([
      `Created ${first?.id} (#1) [pending] Build the package  blockedBy: []`,
      `Created ${second?.id} (#2) [pending] Install the package  blockedBy: [${first?.id}]`,
      expect.stringMatching(new RegExp(`^Error: task ${second?.id} is blocked by ${first?.id}`)),
    ]);
    expect(seen.graph.tasks).toEqual([
      { id: first?.id, subject: 'Build the package', status: 'pending', blockedBy: [], ready: true },
      { id: second?.id, subject: 'Install the package', status: 'pending', blockedBy: [first?.id], ready: false },
    ]);

    expect(seen.run.intake).toEqual({ label: 'Task 1/2', action: 'Pack the SDK', expected_result: 'A tarball' });
    expect(seen.run.step).toEqual({
      cursor: 2,
      total: 2,
      current: { label: 'Task 2/2', action: 'Install the tarball', expected_result: 'It type-checks and runs' },
      status: 'running',
    });

    // The server recorded it: seen through another client.
    const admin = adminClient(server);
    expect((await admin.todos.get({ sessionId: seen.sessionId })).items).toEqual(seen.todo.items);
  });

  it('starts `npx agent-tasks-mcp`, which answers MCP initialize and tools/list over stdio and exits 0 when stdin ends', async () => {
    const { token } = await adminClient(server).keys.create({ name: 'installed MCP', role: 'agent' });
    const child = spawn('npx', ['--no', '--', 'agent-tasks-mcp'], {
      cwd: project,
      env: { ...cleanEnv, AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: token },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const answers = new Map<number, (message: Record<string, unknown>) => void>();
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end)) as { id?: number } & Record<string, unknown>;
        buffered = buffered.slice(end + 1);
        if (typeof message.id === 'number') answers.get(message.id)?.(message);
      }
    });
    const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const request = (id: number, method: string, params: Record<string, unknown>) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${method}; stderr:\n${stderr}`)), guardMs(6_000));
        answers.set(id, (message) => {
          clearTimeout(timer);
          resolve(message);
        });
        send({ id, method, params });
      });

    const init = await timed('npx agent-tasks-mcp: initialize', () =>
      request(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'sdk-package-test', version: '1.0.0' },
      }),
    );
    expect(init.result).toMatchObject({ serverInfo: { name: 'agent-tasks', version: sdkManifest.version }, capabilities: { tools: {} } });
    send({ method: 'notifications/initialized' });
    const listed = await request(2, 'tools/list', {});
    expect(((listed.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name)).toEqual(TOOL_NAMES);
    expect(stderr).toMatch(/agent-tasks MCP: opened session \S+/);

    child.stdin.end();
    expect(await exited).toBe(0);
  });

  it('runs `npx agent-tasks-files --help` and refuses an unknown flag', async () => {
    const help = await run('npx', ['--no', '--', 'agent-tasks-files', '--help'], { cwd: project });
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: agent-tasks-files import\|export --format claude\|sisyphus \[--dir <folder>\]/);
    const bogus = await run('npx', ['--no', '--', 'agent-tasks-files', 'export', '--bogus'], { cwd: project });
    expect(bogus).toMatchObject({ code: 1, stdout: '' });
    expect(bogus.stderr).toMatch(/^Error: Unknown option '--bogus'/);
  });
});

/** Runs `command` with `input` on its standard input. */
function runWith(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; input: string }): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { cwd: options.cwd, env: { ...cleanEnv, ...options.env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? Number(error.code) : 1) : 0, stdout, stderr });
    });
    child.stdin?.end(options.input);
  });
}

describe('installed globally with `npm install -g`: the `agent-tasks` client command, no clone, no server', () => {
  let prefix: string;
  const command = () => path.join(prefix, 'bin/agent-tasks');
  const codexPayload = (name: string, extra: Record<string, unknown>) => ({
    ...(JSON.parse(readFileSync(path.join(repoRoot, 'tests/fixtures/codex', `${name}.json`), 'utf8')) as Record<string, unknown>),
    ...extra,
  });

  beforeAll(async () => {
    prefix = path.join(work, 'global');
    await timed('npm install -g', () =>
      succeed('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: work }),
    );
  }, 300_000);

  it('links agent-tasks, agent-tasks-mcp and agent-tasks-files; --help names the client commands and the server package', async () => {
    for (const name of ['agent-tasks', 'agent-tasks-mcp', 'agent-tasks-files'])
      expect(existsSync(path.join(prefix, 'bin', name)), name).toBe(true);
    const help = await run(command(), ['--help'], { cwd: work });
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(
      /^usage: agent-tasks <command> \(the client commands of @agent-tasks\/sdk; the server is @agent-tasks\/server\)/,
    );
    for (const line of [
      'hook claude-code|codex|gemini',
      'hook install <runtime>',
      'hook uninstall <runtime>',
      'mcp [--url <url>]',
      'tasks import|export|mirror',
    ])
      expect(help.stdout).toContain(`  ${line}`);
    expect(await run(command(), ['--version'], { cwd: work })).toMatchObject({ code: 0, stdout: `${sdkManifest.version}\n` });
    const serve = await run(command(), ['serve'], { cwd: work });
    expect(serve).toMatchObject({ code: 2, stdout: '' });
    expect(serve.stderr).toMatch(
      /^Error: unknown command "serve"; the server's commands \(serve, keys, migrate\) are in @agent-tasks\/server\n/,
    );
  });

  it("runs Codex's hook against the server: the plan recorded, given back at SessionStart; a server down costs exit 0", async () => {
    const { token } = await adminClient(server).keys.create({ name: 'global hook', role: 'agent' });
    // 10 s for the functional runs, as the hook tests give them: with the default 2 s a loaded machine turned a slow
    // answer into "did not answer within 2 s" on stderr (the down run keeps the default).
    const env = { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: token, AGENT_TASKS_HOOK_TIMEOUT_MS: '10000' };
    const sessionId = `global-${Date.now()}`;
    const cwd = mkdtempSync(path.join(work, 'project-'));
    const plan = await runWith(command(), ['hook', 'codex'], {
      cwd,
      env,
      input: JSON.stringify(codexPayload('post-tool-use-update-plan', { session_id: sessionId, cwd })),
    });
    expect(plan).toEqual({ code: 0, stdout: '', stderr: '' });
    const start = await runWith(command(), ['hook', 'codex'], {
      cwd,
      env,
      input: JSON.stringify(codexPayload('session-start', { session_id: sessionId, cwd, source: 'resume' })),
    });
    expect(start).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(start.stdout)).toMatchObject({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: expect.stringMatching(/^Todo list of this chat/) },
    });
    const down = await runWith(command(), ['hook', 'codex'], {
      cwd,
      env: { AGENT_TASKS_URL: 'http://127.0.0.1:9', AGENT_TASKS_TOKEN: token },
      input: JSON.stringify(codexPayload('session-start', { session_id: sessionId, cwd })),
    });
    expect(down).toMatchObject({ code: 0, stdout: '' });
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('hook install writes hooks that run this command, and an opencode plugin importing the installed SDK; uninstall removes them', async () => {
    const cwd = mkdtempSync(path.join(work, 'project-'));
    expect(await run(command(), ['hook', 'install', 'gemini'], { cwd })).toMatchObject({ code: 0, stderr: '' });
    const settings = readFileSync(path.join(cwd, '.gemini/settings.json'), 'utf8');
    expect(settings).toContain(`${process.execPath} ${command()} hook gemini`);
    expect(await run(command(), ['hook', 'install', 'opencode'], { cwd })).toMatchObject({ code: 0, stderr: '' });
    const plugin = readFileSync(path.join(cwd, '.opencode/plugins/agent-tasks.js'), 'utf8');
    expect(plugin).toContain(`from "file://${path.join(prefix, 'lib/node_modules/@agent-tasks/sdk/dist/opencode.js')}"`);
    const bad = await run(command(), ['hook', 'install', 'cursor'], { cwd });
    expect(bad).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error: unknown runtime "cursor"; expected one of claude-code, codex, gemini, opencode.\n',
    });
    for (const runtime of ['gemini', 'opencode'])
      expect(await run(command(), ['hook', 'uninstall', runtime], { cwd })).toMatchObject({ code: 0 });
    expect(existsSync(path.join(cwd, '.gemini/settings.json'))).toBe(false);
    expect(existsSync(path.join(cwd, '.opencode/plugins/agent-tasks.js'))).toBe(false);
  });

  it("npm refuses @agent-tasks/server's `agent-tasks` beside the SDK's (EEXIST) and leaves the SDK's command as it was", async () => {
    const packed = path.join(work, 'server-tarball');
    mkdirSync(packed);
    await timed('pnpm pack of the server', () =>
      succeed('pnpm', ['pack', '--pack-destination', packed], { cwd: path.join(repoRoot, 'apps/server') }),
    );
    const serverTarball = path.join(packed, readdirSync(packed).find((name) => name.endsWith('.tgz')) ?? 'none');
    const both = await timed('npm install -g of the server beside the SDK', () =>
      run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', serverTarball], {
        cwd: work,
      }),
    );
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('EEXIST');
    expect(both.stderr).toContain(path.join(prefix, 'bin/agent-tasks'));
    expect((await run(command(), ['--help'], { cwd: work })).stdout).toMatch(
      /^usage: agent-tasks <command> \(the client commands of @agent-tasks\/sdk/,
    );
  }, 300_000);
});
