// Options and failure handling shared by the operator commands.
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import type { DatabaseTarget } from '../db/local-database.ts';

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
