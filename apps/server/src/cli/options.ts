// Options and failure handling shared by the operator commands.
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';

export interface DatabaseFlags {
  database?: string;
}

/** `--database <url>`: a file:… URL or path; defaults to DATABASE_URL, then data/agent-tasks.db. */
export const databaseOption = (command: Command) =>
  command.option('--database <url>', 'SQLite file (file:<path> or a path); default DATABASE_URL or data/agent-tasks.db');

export function databaseFileOf(flags: DatabaseFlags): string {
  const config = loadConfig(process.env, flags.database === undefined ? {} : { DATABASE_URL: flags.database });
  // The operator commands open the SQLite file directly; on PostgreSQL only `serve` works so far.
  if (config.postgresUrl) fail('Error: this command works on a SQLite file only; with PostgreSQL, only `serve` is supported so far.');
  return config.databaseFile;
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
