// Builds the `agent-tasks` command to dist/cli.js with esbuild: our workspace packages bundled (from source), npm
// packages external; commands loaded on demand (tasks, mcp, hook) go to their own chunks, so `serve` never loads them.
// The hook fast path (`agent-tasks hook <runtime>`, run by an agent on every tool call) gets dist/hook.cjs: the SDK's
// hook handlers and everything they import in one minified script, which bin/agent-tasks.mjs runs with a V8 code cache
// through the SDK's hook loader (bin/hook-loader.cjs, copied to dist/hook-loader.cjs); dist/opencode.js is the SDK's
// opencode plugin, for an installed server package (which depends on no @agent-tasks package: it bundles them).
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const external = Object.keys(manifest.dependencies)
  .filter((name) => !name.startsWith('@agent-tasks/'))
  .flatMap((name) => [name, `${name}/*`]);

const started = performance.now();
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { cli: path.join(root, 'src/main.ts') },
  outdir: path.join(root, 'dist'),
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  conditions: ['@agent-tasks/source'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external,
  logLevel: 'warning',
  banner: { js: '// agent-tasks server, built from apps/server/src by scripts/build.ts; do not edit.' },
});
await build({
  entryPoints: [path.join(root, '../../packages/sdk/src/hooks.ts')],
  outfile: path.join(root, 'dist/hook.cjs'),
  conditions: ['@agent-tasks/source'],
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  banner: { js: '// agent-tasks hook handlers, built from packages/sdk/src/hooks.ts by scripts/build.ts; do not edit.' },
});
// The opencode plugin `hook install opencode` points at when the SDK package is not installed beside the server.
await build({
  entryPoints: [path.join(root, '../../packages/sdk/src/opencode-plugin.ts')],
  outfile: path.join(root, 'dist/opencode.js'),
  conditions: ['@agent-tasks/source'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  logLevel: 'warning',
  banner: { js: '// agent-tasks opencode plugin, built from packages/sdk/src/opencode-plugin.ts by scripts/build.ts; do not edit.' },
});
copyFileSync(path.join(root, '../../packages/sdk/bin/hook-loader.cjs'), path.join(root, 'dist/hook-loader.cjs'));
console.log(`built dist/cli.js, dist/hook.cjs and dist/opencode.js in ${Math.round(performance.now() - started)} ms`);
