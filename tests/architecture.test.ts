// The architecture rules (.dependency-cruiser.cjs) hold on the tree, and each one catches what it is for: probe files
// in a scratch copy of the layout break them one by one. Two edges no import shows are read from the sources: every
// live topic is built in core's live-topics.ts, and the dashboard asks for no stream ticket of its own.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
  it('hold on the tree: core and schema pure, no runtime cycles, no package importing an app, the transport apart from the database', async () => {
    expect(await cruise(root, ['packages', 'apps/server/src', 'apps/web/src'])).toEqual([]);
  });

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
    write('apps/server/src/routers/root.ts', 'export type AppRouter = { procedures: 1 };\n');
    write(
      'packages/sdk/src/router.ts',
      "import type { AppRouter } from '../../../apps/server/src/routers/root.ts';\nexport type R = AppRouter;\n",
    );
    write('apps/server/src/db/busy.ts', 'export const isDatabaseBusy = (e: unknown) => e === 1;\n');
    write('apps/server/src/http/answer.ts', "import { isDatabaseBusy } from '../db/busy.ts';\nexport const busy = isDatabaseBusy;\n");
    write('apps/server/src/trpc.ts', "import { isDatabaseBusy } from './db/busy.ts';\nexport const busy = isDatabaseBusy;\n");
    write('packages/core/src/dashboard-service.ts', 'export const sessionsTopic = (w: string) => w;\n');
    write(
      'packages/core/src/todo-service.ts',
      "import { sessionsTopic } from './dashboard-service.ts';\nexport const t = sessionsTopic;\n",
    );
    write(
      'packages/sdk/src/client.ts',
      "import { x } from '../../../apps/server/src/app.ts';\nexport const y = x;\nexport const client = 1;\n",
    );
    write(
      'apps/web/src/api.ts',
      "import { x } from '../../server/src/app.ts';\nimport { client } from '../../../packages/sdk/src/client.ts';\nexport const z = [x, client];\n",
    );
    expect(await cruise(scratch, ['packages', 'apps'])).toEqual(
      [
        'packages-not-apps: packages/schema/src/rpc.ts → apps/server/src/app.ts',
        'packages-not-apps: packages/sdk/src/client.ts → apps/server/src/app.ts',
        'packages-not-apps: packages/sdk/src/types.ts → apps/server/src/app.ts',
        'sdk-router-through-package-export: packages/sdk/src/router.ts → apps/server/src/routers/root.ts',
        'transport-not-database: apps/server/src/http/answer.ts → apps/server/src/db/busy.ts',
        'transport-not-database: apps/server/src/trpc.ts → apps/server/src/db/busy.ts',
        'write-path-not-dashboard-reads: packages/core/src/todo-service.ts → packages/core/src/dashboard-service.ts',
        'web-server-types-only: apps/web/src/api.ts → apps/server/src/app.ts',
        'web-sdk-browser-link-only: apps/web/src/api.ts → packages/sdk/src/client.ts',
        'no-cycles: packages/core/src/a.ts → packages/core/src/b.ts',
        'pure-core-and-schema-no-app-code: packages/schema/src/rpc.ts → apps/server/src/app.ts',
        'pure-core-and-schema-no-io-packages: packages/schema/src/rpc.ts → @trpc/server',
        'pure-core-and-schema-no-node: packages/core/src/io.ts → fs',
        'resolvable: packages/schema/src/rpc.ts → @trpc/server',
        'sdk-runtime-not-server: packages/sdk/src/client.ts → apps/server/src/app.ts',
      ].sort(),
    );
  });

  it("every live topic is built in core/live-topics.ts, and the dashboard streams through the SDK's ticket link", () => {
    const core = join(root, 'packages/core/src');
    const builders = readdirSync(core)
      .filter((file) => file.endsWith('.ts') && file !== 'live-topics.ts')
      .filter((file) => /export const \w+Topic = /.test(readFileSync(join(core, file), 'utf8')));
    expect(builders).toEqual([]);
    const web = join(root, 'apps/web/src');
    const own = (readdirSync(web, { recursive: true }) as string[])
      .filter((file) => /\.tsx?$/.test(file))
      .filter((file) => /streamTicket|httpSubscriptionLink/.test(readFileSync(join(web, file), 'utf8')));
    expect(own).toEqual([]);
  });
});
