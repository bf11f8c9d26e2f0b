// Resolves DATABASE_URL (file:… or a path) to an absolute SQLite file path; default data/agent-tasks.db.
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../../../..');
export const migrationsDir = path.join(repoRoot, 'prisma', 'migrations');

export function databaseFileFrom(url: string | undefined, cwd = process.cwd()): string {
  if (!url) return path.join(repoRoot, 'data', 'agent-tasks.db');
  const file = url.startsWith('file:') ? url.slice('file:'.length) : url;
  return path.resolve(cwd, file);
}
