// `agent-tasks hook claude-code|codex|gemini`: runs as that runtime's hook (its JSON on stdin), keeping the agent's
// todo list (and Claude Code's tasks) in agent-tasks and giving the plan back at session start. Always exits 0: a hook
// must never block the agent. `hook install|uninstall <runtime>` writes or removes the runtime's hook configuration.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { CommandFailure } from './flags.ts';

export function hookCommand(program: Command) {
  const hook = program
    .command('hook')
    .description("run as an agent tool's hook (its JSON on stdin); never blocks the agent, always exits 0");
  hook
    .command('claude-code')
    .description(
      'Claude Code: PostToolUse for TodoWrite, TaskCreate and TaskUpdate records them; SessionStart answers the current plan. ' +
        'Needs AGENT_TASKS_URL and AGENT_TASKS_TOKEN (an agent key); gives up after 2 s (AGENT_TASKS_HOOK_TIMEOUT_MS)',
    )
    .action(() => runHook('claude-code'));

  for (const [name, description] of [
    [
      'codex',
      'Codex CLI: PostToolUse for update_plan records the plan; SessionStart answers the current plan (also after a compaction). ' +
        'Needs AGENT_TASKS_URL and AGENT_TASKS_TOKEN (an agent key); gives up after 2 s (AGENT_TASKS_HOOK_TIMEOUT_MS)',
    ],
    [
      'gemini',
      'Gemini CLI: AfterTool for write_todos records the list; SessionStart and BeforeAgent answer the current plan. ' +
        'Needs AGENT_TASKS_URL and AGENT_TASKS_TOKEN (an agent key); gives up after 2 s (AGENT_TASKS_HOOK_TIMEOUT_MS)',
    ],
  ] as const) {
    hook
      .command(name)
      .description(description)
      .action(() => runHook(name));
  }

  for (const install of [true, false]) {
    hook
      .command(`${install ? 'install' : 'uninstall'} <runtime>`)
      .description(
        install
          ? "write the runtime's hook configuration (claude-code, codex, gemini or opencode), merged with what is there"
          : 'remove exactly what install added',
      )
      .option('--scope <scope>', 'project (the working directory) or user (the home directory)', 'project')
      .option('--print', 'show the change without writing it')
      .option('--command <command>', 'how the runtime starts agent-tasks (default: node and the path of this command)')
      .action(async (runtime: string, flags: { scope: string; print?: boolean; command?: string }) => {
        const { HookInstallRefusal, runHookInstall } = await import('@agent-tasks/sdk');
        try {
          runHookInstall(install, runtime, flags, (text) => process.stdout.write(text), builtOpencodePlugin());
        } catch (error) {
          if (error instanceof HookInstallRefusal) throw new CommandFailure(error.message, error.exitCode);
          throw error;
        }
      });
  }
}

/**
 * Runs `runtime`'s hook on this process, loaded only when this command runs: in the built command the bundled handlers
 * (dist/hook.cjs through dist/hook-loader.cjs, as bin/agent-tasks.mjs runs them before this command line, ~85 ms less
 * than the SDK's modules with zod and the tRPC client); from source, the SDK's.
 */
async function runHook(runtime: 'claude-code' | 'codex' | 'gemini') {
  const loader = path.join(import.meta.dirname, 'hook-loader.cjs');
  if (existsSync(loader)) {
    const { hookLoader } = createRequire(import.meta.url)(loader) as {
      hookLoader: (dist: string) => { runHookCommand: (runtime: string) => Promise<boolean> };
    };
    if (await hookLoader(import.meta.dirname).runHookCommand(runtime)) return;
  }
  const sdk = await import('@agent-tasks/sdk');
  process.exitCode = await sdk.runHook(runtime, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
}

/** The built command's own opencode plugin module (dist/opencode.js, beside dist/cli.js), for an installed server
 * package without @agent-tasks/sdk beside it; undefined when running from source. */
function builtOpencodePlugin(): string | undefined {
  const file = path.join(import.meta.dirname, 'opencode.js');
  return existsSync(file) ? pathToFileURL(file).href : undefined;
}
