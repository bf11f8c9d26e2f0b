// Black-box tests of the Claude Code hook and evidence: Bash runs it saw become hook evidence (PostToolUse exit 0,
// PostToolUseFailure "Exit code N"), and TaskCompleted answers exit 2 with the reason on stderr while the mirrored
// task's list requires evidence the task lacks — Claude Code then keeps the task open. Payloads are the recorded ones in
// tests/fixtures/claude-code/, fed to `agent-tasks hook claude-code` as a real process.
import { type AgentTasksClient, claudeMirrorTaskId, createClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeFixture, claudeSession, taskCreate, taskUpdate } from './support/claude-code-payloads.ts';
import { adminClient } from './support/fixtures.ts';
import { rowCounts } from './support/database.ts';
import { hookRunner } from './support/hook-process.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
let agentKey: string;
let agent: AgentTasksClient;
let workspaceId: string;

beforeAll(async () => {
  server = await startServer();
  const admin = adminClient(server);
  agentKey = (await admin.keys.create({ name: 'claude code hook', role: 'agent' })).token;
  agent = createClient({ url: server.url, token: agentKey });
  workspaceId = (await admin.workspaces.whoami()).workspace.id;
});
afterAll(() => server?.stop());

const hook = hookRunner(() => ({ url: server.url, token: agentKey }));
const runHook = (input: unknown) => hook('claude-code', input);

const silent = { code: 0, stdout: '', stderr: '' };

describe('Claude Code: evidence from Bash, and TaskCompleted kept open', () => {
  it('a list that requires verified evidence: exit 2 with the reason until a Bash run the hook saw succeeds', async () => {
    const s = claudeSession();
    const listName = s.listName; // the project's task list
    const id = claudeMirrorTaskId(workspaceId, s.sessionId, '1');
    expect(await runHook(taskCreate(s, '1', { subject: 'Run integration tests', description: 'Both services together' }))).toEqual(silent);
    expect(await runHook(taskUpdate(s, { taskId: '1', status: 'in_progress' }))).toEqual(silent);
    const completed = claudeFixture('task-completed', s, { task_id: '1', task_subject: 'Run integration tests' });

    // Off by default: the completion goes ahead.
    expect(await runHook(completed)).toEqual(silent);

    await adminClient(server).tasks.setSettings({ listName, requireEvidence: true, requireVerified: true });
    const reason = `Error: cannot complete #1: task list "${listName}" requires verified evidence (a hook or CI reporting success), and it has none; run the tests where a hook or CI records them, then complete the task.\n`;
    // Nothing is recorded but the hook's own further session token (every hook run reopens its session).
    const recorded = async () => ({ ...(await rowCounts(server)), SessionToken: 0 });
    const before = await recorded();
    expect(await runHook(completed)).toEqual({ code: 2, stdout: '', stderr: reason });
    expect(await recorded()).toEqual(before);

    // A failing run (PostToolUseFailure, "Exit code 1") is hook evidence, not of success.
    expect(await runHook(claudeFixture('bash-failure', s))).toEqual(silent);
    let task = await agent.tasks.get({ listName, id });
    expect(task.evidence).toEqual([
      {
        kind: 'command',
        command: 'pnpm test',
        exitCode: 1,
        outputTail: 'FAIL  tests/orders.test.ts > totals\nAssertionError: expected 41 to be 42\n Test Files  1 failed | 11 passed (12)',
        provenance: 'hook',
        success: false,
        at: expect.any(String),
      },
    ]);
    expect(await runHook(completed)).toEqual({ code: 2, stdout: '', stderr: reason });

    // The run that passes (PostToolUse of Bash): verified, and the completion goes ahead.
    expect(await runHook(claudeFixture('bash', s))).toEqual(silent);
    task = await agent.tasks.get({ listName, id });
    expect(task.evidence?.[1]).toMatchObject({ command: 'pnpm test', exitCode: 0, provenance: 'hook', success: true });
    expect(task.evidence?.[1]?.outputTail).toBe('Test Files  12 passed (12)\n     Tests  148 passed (148)');
    expect(task.verdict).toBe('verified');
    expect(await runHook(completed)).toEqual(silent);
    expect(await runHook(taskUpdate(s, { taskId: '1', status: 'completed' }))).toEqual(silent);
    expect(await agent.tasks.get({ listName, id })).toMatchObject({ status: 'completed', verdict: 'verified' });
  });

  it('requireEvidence alone: the reason names the fix; a task Claude Code never mirrored is let through', async () => {
    const s = claudeSession();
    const listName = s.listName; // the project's task list
    expect(await runHook(taskCreate(s, '7', { subject: 'Document it', description: '' }))).toEqual(silent);
    await adminClient(server).tasks.setSettings({ listName, requireEvidence: true });
    expect(await runHook(claudeFixture('task-completed', s, { task_id: '7' }))).toEqual({
      code: 2,
      stdout: '',
      stderr: `Error: cannot complete #7: task list "${listName}" requires evidence; send \`evidence\` with the update, e.g. { kind: "command", command: "pnpm test", exitCode: 0 }.\n`,
    });
    expect(await runHook(claudeFixture('task-completed', s, { task_id: '99' }))).toEqual(silent);
  });

  it('a Bash run with no task in progress records nothing', async () => {
    const s = claudeSession();
    const before = await rowCounts(server);
    expect(await runHook(claudeFixture('bash', s))).toEqual(silent);
    const after = await rowCounts(server);
    expect(after.TaskEvidence).toBe(before.TaskEvidence);
  });
});
