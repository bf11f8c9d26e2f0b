// Where the built server finds its schema, migrations and dashboard: the repository, or the installed package's dist/,
// never the repository's own dist/ while `pnpm pack` has staged (or half-staged) a copy there.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRepoRoot } from '../src/db/database-file.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-root-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Creates the files named (folders made as needed); answers `base`. */
function layout(base: string, files: string[]): string {
  for (const file of files) {
    mkdirSync(path.dirname(path.join(base, file)), { recursive: true });
    writeFileSync(path.join(base, file), '');
  }
  return base;
}

describe('findRepoRoot', () => {
  it('in the repository, the repository: also while pack has staged a half-copied prisma/ into apps/server/dist', () => {
    const repo = layout(path.join(scratch, 'repo'), [
      'pnpm-workspace.yaml',
      'prisma/schema.prisma',
      'apps/server/src/db/database-file.ts',
      'apps/server/dist/chunks/serve-command.js',
      // prepack's first copy is the schema; the migrations were not there yet.
      'apps/server/dist/prisma/schema.prisma',
    ]);
    expect(findRepoRoot(path.join(repo, 'apps/server/dist/chunks'))).toBe(repo);
    expect(findRepoRoot(path.join(repo, 'apps/server/src/db'))).toBe(repo);
  });

  it("installed, the package's dist/, even inside a project that is itself a pnpm workspace with a Prisma schema", () => {
    const project = layout(path.join(scratch, 'project'), [
      'pnpm-workspace.yaml',
      'prisma/schema.prisma',
      'node_modules/@agent-tasks/server/dist/chunks/serve-command.js',
      'node_modules/@agent-tasks/server/dist/prisma/schema.prisma',
    ]);
    const dist = path.join(project, 'node_modules/@agent-tasks/server/dist');
    expect(findRepoRoot(path.join(dist, 'chunks'))).toBe(dist);
  });

  it('vendored into a workspace of its own (packages/server, or apps/server without src/): the vendored dist/', () => {
    const project = layout(path.join(scratch, 'vendored'), [
      'pnpm-workspace.yaml',
      'prisma/schema.prisma',
      'packages/server/dist/chunks/serve-command.js',
      'packages/server/dist/prisma/schema.prisma',
      'apps/server/dist/chunks/serve-command.js',
      'apps/server/dist/prisma/schema.prisma',
    ]);
    for (const dist of ['packages/server/dist', 'apps/server/dist'].map((d) => path.join(project, d))) {
      expect(findRepoRoot(path.join(dist, 'chunks'))).toBe(dist);
    }
  });

  it('nowhere: says what it looked for', () => {
    const empty = layout(path.join(scratch, 'empty'), ['a/b/c.js']);
    expect(() => findRepoRoot(path.join(empty, 'a/b'))).toThrow(/^prisma\/schema\.prisma not found above /);
  });
});
