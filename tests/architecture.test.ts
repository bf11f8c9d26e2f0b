// The architecture rules (.dependency-cruiser.cjs) hold on the tree, and each one catches what it is for: probe files
// in a scratch copy of the layout break them one by one.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const config = join(root, '.dependency-cruiser.cjs');
const depcruise = join(root, 'node_modules/.bin/depcruise');
const run = promisify(execFile);

/** Runs the rules in `cwd` over `dirs`: the violations' rule names and paths, one line each ("" when clean). */
async function cruise(cwd: string, dirs: string[]) {
  const out = await run(depcruise, [...dirs, '--config', config, '--output-type', 'err-long'], { cwd }).then(
    (r) => r.stdout,
    (e: { stdout: string }) => e.stdout,
  );
  return [...out.matchAll(/error (\S+): (\S+) →\s+(\S+)/g)].map((m) => `${m[1]}: ${m[2]} → ${m[3]}`).sort();
}

const scratch = mkdtempSync(join(tmpdir(), 'agent-tasks-arch-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(scratch, path)), { recursive: true });
  writeFileSync(join(scratch, path), text);
};

describe('architecture rules', () => {
  it('hold on the tree: core and schema pure, no runtime cycles, the SDK runtime apart from the server', async () => {
    expect(await cruise(root, ['packages', 'apps/server/src', 'apps/web/src'])).toEqual([]);
  }, 60_000);

  it('catch a Node module or an I/O package in core or schema, app code in schema, the server in the SDK, and a cycle', async () => {
    copyFileSync(join(root, 'tsconfig.base.json'), join(scratch, 'tsconfig.base.json'));
    write('packages/core/src/io.ts', "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n");
    write(
      'packages/schema/src/rpc.ts',
      "import { initTRPC } from '@trpc/server';\nimport { x } from '../../../apps/server/src/app.ts';\nexport const t = [initTRPC, x];\n",
    );
    write('apps/server/src/app.ts', 'export const x = 1;\n');
    write('packages/sdk/src/client.ts', "import { x } from '../../../apps/server/src/app.ts';\nexport const y = x;\n");
    write('packages/sdk/src/types.ts', "import type { x } from '../../../apps/server/src/app.ts';\nexport type Y = typeof x;\n");
    write('packages/core/src/a.ts', "import { b } from './b.ts';\nexport const a = () => b;\n");
    write('packages/core/src/b.ts', "import { a } from './a.ts';\nexport const b = () => a;\n");
    expect(await cruise(scratch, ['packages', 'apps'])).toEqual(
      [
        'no-cycles: packages/core/src/a.ts → packages/core/src/b.ts',
        'pure-core-and-schema-no-app-code: packages/schema/src/rpc.ts → apps/server/src/app.ts',
        'pure-core-and-schema-no-io-packages: packages/schema/src/rpc.ts → @trpc/server',
        'pure-core-and-schema-no-node: packages/core/src/io.ts → fs',
        'resolvable: packages/schema/src/rpc.ts → @trpc/server',
        'sdk-runtime-not-server: packages/sdk/src/client.ts → apps/server/src/app.ts',
      ].sort(),
    );
  }, 60_000);
});
