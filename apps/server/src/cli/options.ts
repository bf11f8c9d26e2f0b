// Options and failure handling shared by the operator commands.
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { type DatabaseTarget, databaseLabel } from '../db/local-database.ts';

export interface DatabaseFlags {
  database?: string;
}

/** `--database <url>`: a file:… URL or path, or postgresql://…; defaults to DATABASE_URL, then data/agent-tasks.db. */
export const databaseOption = (command: Command) =>
  command.option('--database <url>', 'SQLite file (file:<path> or a path) or postgresql://…; default DATABASE_URL or data/agent-tasks.db');

export function databaseOf(flags: DatabaseFlags): DatabaseTarget {
  const config = loadConfig(process.env, flags.database === undefined ? {} : { DATABASE_URL: flags.database });
  return config.postgresUrl ? { postgresUrl: config.postgresUrl } : { databaseFile: config.databaseFile };
}

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

/**
 * Runs `open` (connecting to and migrating the database); a PostgreSQL server that cannot be reached, refuses the
 * login or lacks the database is one `Error: …` line naming it without its password (exit 1), not a stack.
 */
export async function opening<T>(target: DatabaseTarget, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (target.postgresUrl === undefined || !(error instanceof Error) || error instanceof CommandFailure) throw error;
    const reason = error.message.split('\n').find((line) => line.trim() !== '') ?? 'unknown failure';
    throw new CommandFailure(`Error: cannot open ${databaseLabel(target)}: ${reason.trim()}`);
  }
}
