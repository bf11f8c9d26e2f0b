// `agent-tasks hook claude-code`: runs as a Claude Code hook (its JSON on stdin), keeping the agent's todo list and
// tasks in agent-tasks and giving the plan back at session start. Always exits 0: a hook must never block the agent.
import type { Command } from 'commander';

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
}
