// Stages what the installed @agent-tasks/server package needs at run time beside its built command (`pnpm pack`
// runs it as prepack, after building the server and the dashboard): the Prisma schemas and both migration folders
// into dist/prisma/, the built dashboard into dist/web/. Found there by src/db/database-file.ts. `--clean` (postpack)
// removes them again, so the workspace's own build finds the repository's files.
import { cpSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const repo = path.resolve(root, '../..');
const dist = path.join(root, 'dist');
const staged = { prisma: path.join(dist, 'prisma'), web: path.join(dist, 'web') };

rmSync(staged.prisma, { recursive: true, force: true });
rmSync(staged.web, { recursive: true, force: true });
if (!process.argv.includes('--clean')) {
  const web = path.join(repo, 'apps/web/dist');
  for (const needed of [path.join(dist, 'cli.js'), path.join(dist, 'hook.cjs'), path.join(web, 'index.html')]) {
    if (!existsSync(needed)) throw new Error(`${path.relative(repo, needed)} is missing: build the server and the dashboard first`);
  }
  for (const name of ['schema.prisma', 'schema.postgres.prisma', 'migrations', 'migrations-postgres']) {
    cpSync(path.join(repo, 'prisma', name), path.join(staged.prisma, name), { recursive: true });
  }
  cpSync(web, staged.web, { recursive: true });
  console.log('staged dist/prisma and dist/web for the package');
}
