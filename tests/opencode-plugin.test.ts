// The opencode plugin as opencode runs it: `agent-tasks hook install opencode` writes the plugin file into a project's
// .opencode/plugins/, the test imports that file and calls its export with a plugin input and its hooks with payloads
// in @opencode-ai/plugin's shapes (tests/fixtures/opencode/), against a real server: todowrite lands in the chat's own
// session, the plan is given in the system prompt and into the compaction prompt, survives a restart, and a server
// that is down costs nothing but one stderr line.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AgentTasksClient, type AgentTasksOpencodeHooks, createClient, projectListName } from '@agent-tasks/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminClient, countRows } from './support/fixtures.ts';
import { type RunningServer, agentTasksBin, startServer } from './support/server.ts';
import { startReceiver } from './support/webhook-receiver.ts';

const fixture = (name: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures', 'opencode', `${name}.json`), 'utf8')) as {
    input: Record<string, unknown>;
    output: Record<string, unknown>;
  };

let server: RunningServer;
let agentKey: string;
let viewer: AgentTasksClient;
let plugin: (input: { directory: string; worktree: string; [key: string]: unknown }) => Promise<AgentTasksOpencodeHooks>;
let projectDir: string;

beforeAll(async () => {
  server = await startServer();
  const admin = adminClient(server);
  agentKey = (await admin.keys.create({ name: 'opencode', role: 'agent' })).token;
  viewer = createClient({ url: server.url, token: (await admin.keys.create({ name: 'dashboard', role: 'viewer' })).token });
  projectDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-opencode-')), 'web-app');
  mkdirSync(path.join(projectDir, '.git'), { recursive: true });
  const child = spawn(process.execPath, [agentTasksBin, 'hook', 'install', 'opencode'], { cwd: projectDir, stdio: 'ignore' });
  expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
  const module = (await import(pathToFileURL(path.join(projectDir, '.opencode/plugins/agent-tasks.js')).href)) as {
    AgentTasksPlugin: typeof plugin;
  };
  plugin = module.AgentTasksPlugin;
});
afterAll(() => server?.stop());
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** The plugin as opencode starts it for the project, with the server in its environment. */
async function load(env: Record<string, string> = {}) {
  vi.stubEnv('AGENT_TASKS_URL', server.url);
  vi.stubEnv('AGENT_TASKS_TOKEN', agentKey);
  // A loaded test machine must not turn a slow answer into a missing plan.
  vi.stubEnv('AGENT_TASKS_HOOK_TIMEOUT_MS', '10000');
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  return plugin({ directory: projectDir, worktree: projectDir, project: { id: 'p1', worktree: projectDir, time: { created: 0 } } });
}

const todowrite = (sessionID: string) => {
  const f = fixture('tool-execute-after-todowrite');
  return { input: { ...f.input, sessionID } as Parameters<AgentTasksOpencodeHooks['tool.execute.after']>[0], output: f.output as never };
};

describe('the opencode plugin', () => {
  it("mirrors todowrite into the chat's own session and gives the plan in the system prompt and the compaction prompt", async () => {
    const hooks = await load();
    const sessionID = `ses_${randomUUID().replace(/-/g, '')}`;
    const call = todowrite(sessionID);
    await hooks['tool.execute.after'](call.input, call.output);
    const session = (await viewer.sessions.list()).sessions.find((s) => s.externalId === `opencode:${sessionID}`)!;
    expect(session.title).toBe('opencode: web-app');
    expect((await viewer.todos.get({ sessionId: session.id })).items).toEqual([
      { content: 'Map the auth flow', status: 'completed' },
      { content: 'Add the refresh-token check', status: 'in_progress' },
      { content: 'Drop the old session cookie', status: 'completed', activeForm: 'cancelled' },
      { content: 'Document the change', status: 'pending' },
    ]);

    // Another tool does not record anything.
    await hooks['tool.execute.after']({ ...call.input, tool: 'bash', args: { command: 'ls' } }, call.output);
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', session.id)).toBe(1);

    // The project's shared task list comes with it.
    const listName = projectListName(projectDir, {});
    const { token } = await createClient({ url: server.url, token: agentKey }).sessions.open({ title: 'tools' });
    const task = await createClient({ url: server.url, token }).tasks.create({ listName, subject: 'Ship the login page' });
    const plan = [
      'Todo list of this chat (kept by agent-tasks, revision 1; send the whole list again with todowrite when it changes):',
      '- [completed] Map the auth flow',
      '- [in_progress] Add the refresh-token check',
      '- [cancelled] Drop the old session cookie',
      '- [pending] Document the change',
      `Open tasks of task list "${listName}", shared by every agent in this project (kept by agent-tasks; update them with its task tools, listName "${listName}"):`,
      `- ${task.id} [pending] Ship the login page`,
    ].join('\n');

    const compacting = fixture('session-compacting');
    const context: string[] = [];
    await hooks['experimental.session.compacting']({ sessionID }, { ...compacting.output, context });
    expect(context).toEqual([`The plan of this session, kept by agent-tasks (keep it in the summary):\n${plan}`]);

    // At the start of the session (and every later call), after opencode's own system prompt.
    const transform = fixture('chat-system-transform');
    const system = [...(transform.output.system as string[])];
    await hooks['experimental.chat.system.transform']({ ...transform.input, sessionID }, { system });
    expect(system).toEqual(['You are opencode, an interactive CLI tool.', plan]);

    // A new session has no list of its own, but is given the project's tasks.
    const fresh: string[] = [];
    await hooks['experimental.chat.system.transform']({ sessionID: `ses_${randomUUID()}` }, { system: fresh });
    expect(fresh).toEqual([plan.split('\n').slice(5).join('\n')]);
  });

  it('the plan written before a server restart is given after it', async () => {
    const sessionID = `ses_${randomUUID().replace(/-/g, '')}`;
    const before = await load();
    const call = todowrite(sessionID);
    await before['tool.execute.after'](call.input, call.output);
    await server.restart();
    const after = await load();
    const context: string[] = [];
    await after['experimental.session.compacting']({ sessionID }, { context });
    expect(context[0]).toContain('- [in_progress] Add the refresh-token check');
  });

  it('a server that is down: every hook returns, nothing is added, one stderr line per kind of failure', async () => {
    const down = await startReceiver({ down: true, path: '' });
    const hooks = await load({ AGENT_TASKS_URL: down.url });
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      lines.push(String(text));
      return true;
    });
    const sessionID = `ses_${randomUUID()}`;
    const call = todowrite(sessionID);
    await hooks['tool.execute.after'](call.input, call.output);
    const context: string[] = [];
    await hooks['experimental.session.compacting']({ sessionID }, { context });
    const system = ['base'];
    await hooks['experimental.chat.system.transform']({ sessionID }, { system });
    expect(context).toEqual([]);
    expect(system).toEqual(['base']);
    expect(lines).toEqual([
      `agent-tasks opencode plugin: could not reach agent-tasks at ${down.url} (connect ECONNREFUSED 127.0.0.1:${down.port}); nothing was recorded.\n`,
    ]);
  });
});
