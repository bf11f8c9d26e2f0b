// The SDK's `agent-tasks` command: the client commands a machine running agents needs, with no server installed —
// `hook <runtime>` (bin/agent-tasks.cjs takes its fast path first), `hook install|uninstall <runtime>`, `mcp` and
// `tasks import|export|mirror`. The server package's `agent-tasks` runs the same commands, and serve, keys and migrate.
import { parseArgs } from 'node:util';
import { HookInstallRefusal, runHookInstall } from './hook-install.ts';
import { SDK_VERSION } from './version.ts';

const USAGE = [
  'usage: agent-tasks <command> (the client commands of @agent-tasks/sdk; the server is @agent-tasks/server)',
  "  hook claude-code|codex|gemini     run as that runtime's hook (its JSON on stdin); never blocks the agent, exits 0",
  "  hook install <runtime>            write the runtime's hook configuration (claude-code, codex, gemini or opencode),",
  '                                    merged with what is there: [--scope project|user] [--print] [--command <command>]',
  '  hook uninstall <runtime>          remove exactly what install added (same flags)',
  '  mcp [--url <url>] [--title <title>] [--moira]',
  '                                    the agent tools as a stdio MCP server (AGENT_TASKS_URL, AGENT_TASKS_TOKEN)',
  '  tasks import|export|mirror …      task files against a running server; `agent-tasks tasks --help` for details',
  '  -h, --help                        prints this help',
  '  -v, --version                     prints the version',
].join('\n');

class Usage extends Error {}

/** The flags and positionals of `args` (every flag one of `names`; `booleans` take no value). */
function parsed(args: string[], names: string[], booleans: string[] = []) {
  const options = Object.fromEntries(names.map((name) => [name, { type: booleans.includes(name) ? 'boolean' : 'string' }] as const));
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (error) {
    throw new Usage((error as Error).message);
  }
}

async function run(argv: string[], out: (text: string) => void): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    out(`${USAGE}\n`);
    return 0;
  }
  if (command === '-v' || command === '--version') {
    out(`${SDK_VERSION}\n`);
    return 0;
  }
  if (command === 'tasks') {
    const { runTasksCli } = await import('./tasks-cli.ts');
    return runTasksCli(rest, { command: 'agent-tasks tasks' });
  }
  if (command === 'mcp') {
    const { values, positionals } = parsed(rest, ['url', 'title', 'moira'], ['moira']);
    if (positionals.length) throw new Usage(`unexpected argument "${positionals[0]}" for mcp`);
    const { runMcpStdio } = await import('./mcp-stdio.ts');
    return runMcpStdio({
      ...(typeof values.url === 'string' ? { url: values.url } : {}),
      ...(typeof values.title === 'string' ? { sessionTitle: values.title } : {}),
      ...(values.moira ? { moira: true } : {}),
    });
  }
  if (command === 'hook') {
    const [what, ...more] = rest;
    if (what === 'install' || what === 'uninstall') {
      const { values, positionals } = parsed(more, ['scope', 'print', 'command'], ['print']);
      if (positionals.length !== 1) throw new Usage(`hook ${what} takes one runtime: claude-code, codex, gemini or opencode`);
      runHookInstall(
        what === 'install',
        positionals[0] as string,
        {
          ...(typeof values.scope === 'string' ? { scope: values.scope } : {}),
          ...(values.print ? { print: true } : {}),
          ...(typeof values.command === 'string' ? { command: values.command } : {}),
        },
        out,
      );
      return 0;
    }
    const { isHookRuntime, hookRuntimes, runHookProcess } = await import('./hooks.ts');
    if (what === undefined || !isHookRuntime(what) || more.length) {
      throw new Usage(
        `usage: agent-tasks hook <${Object.keys(hookRuntimes).join('|')}> (the hook's JSON on stdin), or hook install|uninstall <runtime>`,
      );
    }
    return (await runHookProcess(what)) ?? 0;
  }
  throw new Usage(`unknown command "${command}"; the server's commands (serve, keys, migrate) are in @agent-tasks/server`);
}

/**
 * Runs the SDK's `agent-tasks` command line on its arguments (without the program name) and resolves with the exit
 * code: 0, 1 for a refusal, 2 for a usage error (one `Error: …` line on standard error).
 */
export async function runAgentTasksCli(argv: string[]): Promise<number> {
  try {
    return await run(argv, (text) => process.stdout.write(text));
  } catch (error) {
    if (error instanceof HookInstallRefusal) {
      process.stderr.write(`${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof Usage) {
      process.stderr.write(`Error: ${error.message.replace(/^usage/, 'usage')}\n(run with --help for usage)\n`);
      return 2;
    }
    throw error;
  }
}
