// Runs `agent-tasks hook <runtime>` as the runtime does: the built command as a child process, the hook input on stdin,
// a clean environment (none of the runner's AGENT_TASKS_* or CLAUDE_CODE_* variables) plus the server's address and key.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { agentTasksBin } from './server.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');

export type HookRuntime = 'claude-code' | 'codex' | 'gemini';

/** What the runtime sees of one hook run. */
export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Variables added to (a value) or removed from (undefined) the hook's environment for one run. */
export type HookEnv = Record<string, string | undefined>;

/** The runner's environment without the variables that would steer the hook. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AGENT_TASKS_') && !name.startsWith('CLAUDE_CODE_')),
  );
}

/** One hook run: `input` is sent as JSON (a string is sent as it is, for input that is not JSON). */
export function spawnHook(runtime: HookRuntime, input: unknown, env: HookEnv): Promise<HookRun> {
  const merged: NodeJS.ProcessEnv = { ...cleanEnvironment() };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  const child = spawn(process.execPath, [agentTasksBin, 'hook', runtime], { cwd: repoRoot, env: merged, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A runner of hook runs against one server with one agent key (read when each run starts, so it can be made before
 * the server is up). Functional runs allow the hook 10 s (a loaded machine must not turn a slow answer into a missing
 * record); pass `{ AGENT_TASKS_HOOK_TIMEOUT_MS: undefined }` for its default 2 s.
 */
export function hookRunner(target: () => { url: string; token: string }) {
  return (runtime: HookRuntime, input: unknown, env: HookEnv = {}) => {
    const { url, token } = target();
    return spawnHook(runtime, input, { AGENT_TASKS_URL: url, AGENT_TASKS_TOKEN: token, AGENT_TASKS_HOOK_TIMEOUT_MS: '10000', ...env });
  };
}
