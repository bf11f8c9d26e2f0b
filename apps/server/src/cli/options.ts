// Options and failure handling shared by the operator commands (their light parts, needed to define them, in flags.ts).
import { loadConfig } from '../config.ts';
import { type DatabaseTarget, databaseLabel } from '../db/local-database.ts';
import { CommandFailure, type DatabaseFlags } from './flags.ts';

export function databaseOf(flags: DatabaseFlags): DatabaseTarget {
  const config = loadConfig(process.env, flags.database === undefined ? {} : { DATABASE_URL: flags.database });
  return config.postgresUrl ? { postgresUrl: config.postgresUrl } : { databaseFile: config.databaseFile };
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
