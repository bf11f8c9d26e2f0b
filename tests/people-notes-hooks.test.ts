// Black-box tests of "Notes from people": comments people leave on a project's shared tasks come back to each agent at
// its next start through its runtime's hook (Claude Code, Codex, Gemini CLI as the real command; the opencode plugin
// as opencode loads it), once per session.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AgentTasksClient, type AgentTasksOpencodeHooks, createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { claudeSession, sessionStart } from './support/claude-code-payloads.ts';
import { adminClient } from './support/fixtures.ts';
import { type HookRuntime, hookRunner } from './support/hook-process.ts';
import { type RunningServer, agentTasksBin, startServer } from './support/server.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const fixture = (runtime: string, name: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures', runtime, `${name}.json`), 'utf8')) as Record<string, unknown>;

let server: RunningServer;
let agentKey: string;
let person: AgentTasksClient;
let agent: Awaited<ReturnType<typeof openSessionClient>>;

beforeAll(async () => {
  server = await startServer();
  person = adminClient(server);
  agentKey = (await person.keys.create({ name: 'hooks', role: 'agent' })).token;
  agent = await openSessionClient(createClient({ url: server.url, token: agentKey }), { title: 'planner' });
});
afterAll(() => server?.stop());
afterEach(() => {
  vi.unstubAllEnvs();
});

const hook = hookRunner(() => ({ url: server.url, token: agentKey }));
/** Runs the runtime's hook as a process; answers its exit code, the context it gives the agent (if any) and stderr. */
async function runHook(runtime: HookRuntime, input: unknown, env: Record<string, string>) {
  const { code, stdout, stderr } = await hook(runtime, input, env);
  const answer = stdout ? (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }) : null;
  return { code, context: answer?.hookSpecificOutput.additionalContext ?? null, stderr };
}

/** A shared list with one task, a comment on it from an agent (no note) and one from a person. */
async function listWithNote(listName: string, body: string) {
  const task = await agent.client.tasks.create({ listName, subject: 'Ship the release' });
  await agent.client.tasks.comment({ listName, id: task.id, body: 'Agents talk among themselves' });
  await person.tasks.comment({ listName, id: task.id, body });
  return task;
}

const notes = (ref: string, body: string) => `Notes from people:\n- ${ref} Ship the release — first admin key: ${body}`;

describe('Notes from people at the next start', () => {
  it('Claude Code: SessionStart gives them first, once for that session; a new session gets them too', async () => {
    const listName = `notes-cc-${randomUUID().slice(0, 8)}`;
    const task = await listWithNote(listName, 'Tag it v2.1, not v2.0');
    const env = { CLAUDE_CODE_TASK_LIST_ID: listName };
    const s = claudeSession();
    const first = await runHook('claude-code', sessionStart(s, 'startup'), env);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.context?.startsWith(`${notes(task.ref as string, 'Tag it v2.1, not v2.0')}\nOpen tasks of task list`)).toBe(true);
    const again = await runHook('claude-code', sessionStart(s, 'resume'), env);
    expect(again.context).not.toContain('Notes from people');
    expect(again.context).toContain('Ship the release');
    const other = await runHook('claude-code', sessionStart(claudeSession(), 'startup'), env);
    expect(other.context).toContain('Tag it v2.1, not v2.0');
  });

  it('Codex and Gemini CLI: SessionStart gives them once per chat', async () => {
    for (const runtime of ['codex', 'gemini'] as const) {
      const listName = `notes-${runtime}-${randomUUID().slice(0, 8)}`;
      const task = await listWithNote(listName, `Ask before merging (${runtime})`);
      const input = { ...fixture(runtime, 'session-start'), session_id: randomUUID(), cwd: repoRoot, source: 'startup' };
      const env = { AGENT_TASKS_LIST: listName };
      const first = await runHook(runtime, input, env);
      expect(first.context?.startsWith(notes(task.ref as string, `Ask before merging (${runtime})`))).toBe(true);
      const again = await runHook(runtime, { ...input, source: 'resume' }, env);
      expect(again.context).not.toContain('Notes from people');
    }
  });

  it("opencode: the session's first system prompt carries them", async () => {
    const listName = `notes-opencode-${randomUUID().slice(0, 8)}`;
    const task = await listWithNote(listName, 'Keep the API stable');
    const projectDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-notes-')), 'web-app');
    mkdirSync(path.join(projectDir, '.git'), { recursive: true });
    const child = spawn(process.execPath, [agentTasksBin, 'hook', 'install', 'opencode'], { cwd: projectDir, stdio: 'ignore' });
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
    const { AgentTasksPlugin } = (await import(pathToFileURL(path.join(projectDir, '.opencode/plugins/agent-tasks.js')).href)) as {
      AgentTasksPlugin: (input: { directory: string; worktree: string }) => Promise<AgentTasksOpencodeHooks>;
    };
    vi.stubEnv('AGENT_TASKS_URL', server.url);
    vi.stubEnv('AGENT_TASKS_TOKEN', agentKey);
    vi.stubEnv('AGENT_TASKS_LIST', listName);
    const hooks = await AgentTasksPlugin({ directory: projectDir, worktree: projectDir });
    const system: string[] = [];
    await hooks['experimental.chat.system.transform']({ sessionID: `ses_${randomUUID()}` }, { system });
    expect(system.join('\n').startsWith(notes(task.ref as string, 'Keep the API stable'))).toBe(true);
  });
});
