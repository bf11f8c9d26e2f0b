// The agent runtimes whose hooks agent-tasks handles (`agent-tasks hook <runtime>`), and the hook process entry. Kept
// apart from the SDK's index so a hook process loads its handler and nothing else (the command's fast path).
import { runClaudeCodeHook } from './claude-code-hook.ts';
import { runCodexHook } from './codex-hook.ts';
import { runGeminiHook } from './gemini-hook.ts';
import { closeHookConnections } from './hook-client.ts';
import type { HookIo } from './hook-support.ts';

export type { HookIo } from './hook-support.ts';

/** Each runtime's handler: resolves with the exit code (0: a hook never blocks the agent). */
export const hookRuntimes = {
  'claude-code': runClaudeCodeHook,
  codex: runCodexHook,
  gemini: runGeminiHook,
} satisfies Record<string, (io: HookIo) => Promise<number>>;

export type HookRuntime = keyof typeof hookRuntimes;

export const isHookRuntime = (name: string): name is HookRuntime => Object.hasOwn(hookRuntimes, name);

/** Runs one hook of `runtime` and closes its connections; resolves with the exit code. */
export async function runHook(runtime: HookRuntime, io: HookIo): Promise<number> {
  try {
    return await hookRuntimes[runtime](io);
  } finally {
    closeHookConnections();
  }
}

/** Runs one hook of `runtime` on this process's stdin, stdout, stderr and environment; null for an unknown runtime. */
export function runHookProcess(runtime: string): Promise<number> | null {
  if (!isHookRuntime(runtime)) return null;
  return runHook(runtime, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
}
