// `agent-tasks hook claude-code|codex|gemini`: runs as that runtime's hook (its JSON on stdin), keeping the agent's
// todo list (and Claude Code's tasks) in agent-tasks and giving the plan back at session start. Always exits 0: a hook
// must never block the agent. `hook install|uninstall <runtime>` writes or removes the runtime's hook configuration.
import type { Command } from 'commander';
import { CommandFailure, fail } from './flags.ts';

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
    .action(async () => {
      // The handler is the SDK's (a client of the server), loaded only when this command runs. (bin/agent-tasks.mjs
      // runs `hook <runtime>` itself from dist/hook.cjs, without this command line: this is the way of other callers.)
      const { runHook } = await import('@agent-tasks/sdk');
      process.exitCode = await runHook('claude-code', {
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
      });
    });

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
      .action(async () => {
        const { runHook } = await import('@agent-tasks/sdk');
        process.exitCode = await runHook(name, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
      });
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
        const sdk = await import('@agent-tasks/sdk');
        if (!(sdk.HOOK_RUNTIMES as readonly string[]).includes(runtime)) {
          fail(`Error: unknown runtime "${runtime}"; expected one of ${sdk.HOOK_RUNTIMES.join(', ')}.`);
        }
        if (flags.scope !== 'project' && flags.scope !== 'user') fail(`Error: --scope must be project or user (got "${flags.scope}").`);
        const options = {
          runtime: runtime as (typeof sdk.HOOK_RUNTIMES)[number],
          scope: flags.scope,
          command: flags.command ?? sdk.defaultHookCommand(process.argv[1]),
        } as const;
        let changes;
        try {
          changes = sdk.planHookChanges(options, install);
        } catch (error) {
          throw new CommandFailure((error as Error).message);
        }
        if (flags.print) process.stdout.write(sdk.describeHookChanges(changes));
        else {
          sdk.applyHookChanges(changes);
          for (const c of changes) {
            process.stdout.write(
              `${c.path}: ${c.after === c.before ? 'unchanged' : c.after === null ? 'removed' : c.before === null ? 'created' : 'updated'}\n`,
            );
          }
        }
      });
  }
}
