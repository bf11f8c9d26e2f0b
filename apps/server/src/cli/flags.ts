// The command line's light parts, loaded for every command (and --help): the --database option and the refusal that
// ends a command. What the commands do is loaded only when one runs (options.ts and the rest).
import type { Command } from 'commander';

export interface DatabaseFlags {
  database?: string;
}

/** `--database <url>`: a file:… URL or path, or postgresql://…; defaults to DATABASE_URL, then data/agent-tasks.db. */
export const databaseOption = (command: Command) =>
  command.option('--database <url>', 'SQLite file (file:<path> or a path) or postgresql://…; default DATABASE_URL or data/agent-tasks.db');

/** A refusal: its text on stderr, exit code 1 (2 for a bad configuration or usage). */
export class CommandFailure extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function fail(message: string, exitCode = 2): never {
  throw new CommandFailure(message, exitCode);
}
