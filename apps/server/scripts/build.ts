// Builds the `agent-tasks` command to dist/cli.js with esbuild: our workspace packages bundled, npm packages external.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const external = Object.keys(manifest.dependencies)
  .filter((name) => !name.startsWith('@agent-tasks/'))
  .flatMap((name) => [name, `${name}/*`]);

const started = performance.now();
await build({
  entryPoints: [path.join(root, 'src/main.ts')],
  outfile: path.join(root, 'dist/cli.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external,
  logLevel: 'warning',
  banner: { js: '// agent-tasks server, built from apps/server/src by scripts/build.ts; do not edit.' },
});
console.log(`built dist/cli.js in ${Math.round(performance.now() - started)} ms`);
