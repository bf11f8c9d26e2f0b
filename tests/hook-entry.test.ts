// Black-box tests of the hook's small entry: `agent-tasks hook <runtime>` runs on every tool call of an agent, which
// waits for it, so the command (bin/agent-tasks.mjs, as the README configures it) runs the hook handlers from their own
// one-script bundle and loads no module of the command line or the server: an ESM loader hook in the child records
// every module the process loads. The hook records through that entry; anything else still goes through the whole
// command line (usage, unknown runtimes). Timing is measured by `pnpm bench -- --only hook`, not here.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminClient } from './support/fixtures.ts';
import { type RunningServer, agentTasksBin, startServer } from './support/server.ts';

/** The small entry: `agent-tasks-hook <runtime>`, the same hook without the command line or ES module loader. */
const hookBin = path.join(path.dirname(agentTasksBin), 'agent-tasks-hook.cjs');

vi.setConfig({ testTimeout: 60_000 });

let server: RunningServer;
let agentKey: string;
beforeAll(async () => {
  server = await startServer();
  agentKey = (await adminClient(server).keys.create({ name: 'hook entry', role: 'agent' })).token;
});
afterAll(() => server.stop());

const scratch = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-hook-entry-'));
// Registers an ESM loader hook that appends every module URL the process loads to $LOADED_MODULES_LOG, and at exit the
// CommonJS modules it required.
const recorder = path.join(scratch, 'record-modules.cjs');
writeFileSync(
  path.join(scratch, 'record-hooks.mjs'),
  "import { appendFileSync } from 'node:fs';\n" +
    'export async function load(url, context, next) {\n' +
    '  appendFileSync(process.env.LOADED_MODULES_LOG, `${url}\\n`);\n' +
    '  return next(url, context);\n' +
    '}\n',
);
writeFileSync(
  recorder,
  "const { appendFileSync } = require('node:fs');\n" +
    "const { pathToFileURL } = require('node:url');\n" +
    `require('node:module').register(${JSON.stringify(pathToFileURL(path.join(scratch, 'record-hooks.mjs')).href)});\n` +
    "process.on('exit', () => {\n" +
    '  const required = Object.keys(require.cache).filter((file) => file !== __filename);\n' +
    "  appendFileSync(process.env.LOADED_MODULES_LOG, required.map((file) => `${pathToFileURL(file).href}\\n`).join(''));\n" +
    '});\n',
);

let logs = 0;
/** Runs `agent-tasks <args>` with `input` on stdin; its exit code, output and the modules it loaded (file URLs). */
function agentTasks(args: string[], input: string, bin = agentTasksBin) {
  const log = path.join(scratch, `loaded-${++logs}.log`);
  writeFileSync(log, '');
  const child = spawn(process.execPath, ['-r', recorder, bin, ...args], {
    env: { PATH: process.env.PATH, AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: agentKey, LOADED_MODULES_LOG: log },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return new Promise<{ code: number | null; stdout: string; stderr: string; loaded: string[] }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const loaded = [
        ...new Set(
          readFileSync(log, 'utf8')
            .split('\n')
            .filter((url) => url.startsWith('file:')),
        ),
      ].sort();
      resolve({ code, stdout, stderr, loaded });
    });
  });
}

const todoWrite = (sessionId: string, content: string) =>
  JSON.stringify({
    session_id: sessionId,
    transcript_path: `/home/dev/.claude/projects/-home-dev-projects-shop-api/${sessionId}.jsonl`,
    cwd: '/home/dev/projects/shop-api',
    permission_mode: 'default',
    hook_event_name: 'PostToolUse',
    tool_name: 'TodoWrite',
    tool_input: { todos: [{ content, status: 'in_progress', activeForm: `Doing: ${content}` }] },
    tool_response: { oldTodos: [], newTodos: [{ content, status: 'in_progress', activeForm: `Doing: ${content}` }] },
    tool_use_id: 'toolu_01HookEntryTest000000000',
  });

describe('agent-tasks hook <runtime>', () => {
  it('records through the small entry: the command loads only its own files, no module of the command line, the server or npm', async () => {
    const sessionId = `hook-entry-${Date.now()}`;
    // The bins and the hook loader beside the built handlers (dist/hook.cjs itself is compiled through node:vm).
    const loader = pathToFileURL(path.join(path.dirname(hookBin), '../dist/hook-loader.cjs')).href;
    const ownFiles = [pathToFileURL(agentTasksBin).href, pathToFileURL(hookBin).href, loader].sort();
    const runs: [string, string[], string, string[]][] = [
      ['Write the parser', ['hook', 'claude-code'], agentTasksBin, ownFiles],
      // The second run compiles the handlers from the code cache the first one wrote: the same answer either way.
      ['Test the parser', ['hook', 'claude-code'], agentTasksBin, ownFiles],
      ['Ship the parser', ['claude-code'], hookBin, [pathToFileURL(hookBin).href, loader].sort()],
    ];
    for (const [content, args, bin, files] of runs) {
      const run = await agentTasks(args, todoWrite(sessionId, content), bin);
      expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(run.loaded).toEqual(files);
    }
    const viewer = createClient({ url: server.url, token: (await adminClient(server).keys.create({ name: 'v', role: 'viewer' })).token });
    const [session] = (await viewer.sessions.list()).sessions.filter((s) => s.externalId === sessionId);
    expect((await viewer.sessions.get({ sessionId: session?.id ?? '' })).todo).toMatchObject({
      revision: 3,
      items: [{ content: 'Ship the parser', status: 'in_progress' }],
    });
  });

  it('anything but `hook <runtime>` goes through the whole command line, as before; the small entry names its runtimes', async () => {
    const help = await agentTasks(['hook', 'claude-code', '--help'], '');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: agent-tasks hook claude-code [options]');
    expect(help.loaded.some((url) => url.endsWith('/apps/server/dist/cli.js'))).toBe(true);

    const unknown = await agentTasks(['hook', 'cursor'], '');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Error: unknown command 'cursor'");

    for (const args of [['cursor'], [], ['claude-code', 'extra']]) {
      const small = await agentTasks(args, '', hookBin);
      expect({ code: small.code, stdout: small.stdout, stderr: small.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: "Error: usage: agent-tasks-hook <claude-code|codex|gemini> (the hook's JSON on stdin).\n",
      });
    }
  });
});
