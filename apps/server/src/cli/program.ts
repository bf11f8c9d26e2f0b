// The `agent-tasks` command: serve (default), keys, tasks, mcp, migrate, hook — each with --help and clear errors.
// Only the commands' definitions load here (--help reads them); each command loads what it does when it runs.
import { Command, CommanderError } from 'commander';
import { clientCommands } from './client-commands.ts';
import { CommandFailure } from './flags.ts';
import { hookCommand } from './hook-command.ts';
import { keysCommand } from './keys-command.ts';
import { migrateCommand } from './migrate-command.ts';
import type { ServeFlags } from './serve-command.ts';

export function createProgram() {
  const program = new Command('agent-tasks')
    .description('Durable task lists for AI agents: the server and its operator commands.')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'Error: ')) })
    .exitOverride();

  program
    .command('serve', { isDefault: true })
    .description('start the server (environment variables in the README; flags take precedence)')
    .option('--port <port>', 'TCP port (PORT, default 3000; 0 picks a free one)')
    .option('--host <host>', 'address to listen on (HOST, default 127.0.0.1)')
    .option('--database <url>', 'SQLite file (file:<path> or a path) or postgresql://… (DATABASE_URL, default data/agent-tasks.db)')
    .option('--public-url <url>', 'base URL used in notification links (AGENT_TASKS_PUBLIC_URL)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (LOG_LEVEL, default info)')
    .option(
      '--workers <n>',
      'server processes sharing the port and database (AGENT_TASKS_WORKERS, default 1: one process, measured fastest; more only on SQLite)',
    )
    .action(async (flags: ServeFlags) => (await import('./serve-command.ts')).serve(flags));

  keysCommand(program);
  migrateCommand(program);
  clientCommands(program);
  hookCommand(program);
  return program;
}

/** Runs the command line; resolves with the exit code for commands that finish (serve keeps running). */
export async function runCli(argv: string[]): Promise<number> {
  const program = createProgram();
  program.commands.forEach(function exitOverride(command: Command) {
    command.exitOverride().configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'Error: ')) });
    command.commands.forEach(exitOverride);
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof CommandFailure) return report(error.message, error.exitCode);
    // A command that got this far has loaded these already.
    const [{ ConfigError }, { isDomainError }] = await Promise.all([import('../config.ts'), import('@agent-tasks/core')]);
    if (error instanceof ConfigError) return report(error.message, 2);
    if (isDomainError(error)) return report(error.message, 1);
    throw error;
  }
}

function report(message: string, code: number) {
  process.stderr.write(`${message}\n`);
  return code;
}
