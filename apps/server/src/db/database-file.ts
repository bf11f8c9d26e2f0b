// Where things are on disk: the root (found from this file, in source or built form: the repository, or in the
// installed @agent-tasks/server package its dist/), migrations, the dashboard's built assets, and DATABASE_URL
// (file:… or a path) resolved to an absolute SQLite file path.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The server's own dist/ inside this repository (apps/server/dist, beside its src/): staged only while `pnpm pack`
 * runs. An installed package has no src/ beside its dist/, and a vendored copy lies under no apps/server/. */
const isWorkspaceDist = (dir: string) =>
  path.basename(dir) === 'dist' &&
  path.basename(path.dirname(dir)) === 'server' &&
  path.basename(path.dirname(path.dirname(dir))) === 'apps' &&
  existsSync(path.join(dir, '..', 'src')) &&
  existsSync(path.join(dir, '..', '..', '..', 'pnpm-workspace.yaml')) &&
  existsSync(path.join(dir, '..', '..', '..', 'prisma', 'schema.prisma'));

/**
 * The nearest folder above `from` holding prisma/schema.prisma: the repository, or the installed package's dist/. The
 * repository's own apps/server/dist is passed over: `pnpm pack` stages prisma/ and web/ there for the tarball and
 * removes them after, and a server of the workspace started meanwhile once found a half-copied prisma/ (no migrations).
 */
export function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'prisma', 'schema.prisma')) && !isWorkspaceDist(dir)) return dir;
    if (path.dirname(dir) === dir) throw new Error(`prisma/schema.prisma not found above ${from}`);
  }
}

export const repoRoot = findRepoRoot(import.meta.dirname);
/** The installed package (scripts/stage-package.ts): dist/ holds prisma/ and the dashboard as web/. */
export const packaged = existsSync(path.join(repoRoot, 'web', 'index.html'));
export const migrationsDir = path.join(repoRoot, 'prisma', 'migrations');
export const schemaFile = path.join(repoRoot, 'prisma', 'schema.prisma');
export const webRoot = packaged ? path.join(repoRoot, 'web') : path.join(repoRoot, 'apps', 'web', 'dist');

/** The SQLite file of DATABASE_URL; without one data/agent-tasks.db, in the repository (installed: the working directory). */
export function databaseFileFrom(url: string | undefined, cwd = process.cwd()): string {
  if (!url) return path.join(packaged ? cwd : repoRoot, 'data', 'agent-tasks.db');
  const file = url.startsWith('file:') ? url.slice('file:'.length) : url;
  return path.resolve(cwd, file);
}
