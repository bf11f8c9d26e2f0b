// Black-box tests of the hook's small entry: `agent-tasks hook <runtime>` runs on every tool call of an agent, which
// waits for it, so the command (bin/agent-tasks.mjs, as the README configures it) runs the hook handlers from their own
// one-script bundle and loads no module of the command line or the server: an ESM loader hook in the child records
// every module the process loads. The hook records through that entry; anything else still goes through the whole
// command line (usage, unknown runtimes). Timing is measured by `pnpm bench -- --only hook`, not here.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './support/fixtures.ts';
import { moduleRecorder } from './support/module-recorder.ts';
import { type RunningServer, agentTasksBin, startServer } from './support/server.ts';

/** The small entry: `agent-tasks-hook <runtime>`, the same hook without the command line or ES module loader. */
const hookBin = path.join(path.dirname(agentTasksBin), 'agent-tasks-hook.cjs');

let server: RunningServer;
let agentKey: string;
beforeAll(async () => {
  server = await startServer();
  agentKey = (await adminClient(server).keys.create({ name: 'hook entry', role: 'agent' })).token;
});
afterAll(() => server.stop());

const record = moduleRecorder('hook-entry');
/** Runs `agent-tasks <args>` with `input` on stdin; its exit code, output and the modules it loaded (file URLs). */
const agentTasks = (args: string[], input: string, bin = agentTasksBin) =>
  record(bin, args, input, { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: agentKey });

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
