// Client commands of `agent-tasks` that talk to a running server over HTTP through the SDK: `tasks` (task files)
// and `mcp` (a stdio MCP server). The SDK is loaded only when one of them runs.
import type { Command } from 'commander';

export function clientCommands(program: Command) {
  program
    .command('tasks')
    .description(
      'import or export task files (.sisyphus/tasks, Claude Code task folders) against a running server; `agent-tasks tasks --help` for details',
    )
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]', 'import|export and their flags')
    .action(async (args: string[]) => {
      const { runTasksCli } = await import('@agent-tasks/sdk/cli');
      process.exitCode = await runTasksCli(args, { command: 'agent-tasks tasks' });
    });

  program
    .command('mcp')
    .description('serve the agent tools as a stdio MCP server, bound to a running server (AGENT_TASKS_URL, AGENT_TASKS_TOKEN)')
    .option('--url <url>', 'the server (AGENT_TASKS_URL, default http://127.0.0.1:3000)')
    .option('--title <title>', 'title of the agent session it opens with an agent key (AGENT_TASKS_SESSION_TITLE)')
    .option('--moira', 'serve the Moira-compatible `moira` server (tools start and step) instead of the agent-tasks tools')
    .action(async (flags: { url?: string; title?: string; moira?: boolean }) => {
      const { runMcpStdio } = await import('@agent-tasks/sdk/mcp');
      process.exitCode = await runMcpStdio({
        ...(flags.url ? { url: flags.url } : {}),
        ...(flags.title ? { sessionTitle: flags.title } : {}),
        ...(flags.moira ? { moira: true } : {}),
      });
    });
}
