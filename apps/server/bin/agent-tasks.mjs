#!/usr/bin/env node
// The `agent-tasks` command: runs the built server (dist/cli.js; `pnpm build` makes it, `pnpm install` runs that).
// `agent-tasks hook <runtime>` runs on every tool call of an agent, which waits for it: it takes a fast path that loads
// only the hook handlers (dist/hook.cjs), compiled from a V8 code cache kept next to them once the first hook has run.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const args = process.argv.slice(2);

/** Loads dist/hook.cjs; `done()` (after the hook ran) writes the code cache when there was none that V8 took. */
function loadHooks() {
  const file = fileURLToPath(new URL('../dist/hook.cjs', import.meta.url));
  const source = readFileSync(file, 'utf8');
  // The cache is named by the script's content and the V8 version: a rebuilt script never meets an old cache.
  const key = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const cacheFile = `${file}.${key}.${process.versions.v8}.cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, fileURLToPath(new URL('../dist', import.meta.url)));
  const done = () => {
    if (cachedData && !script.cachedDataRejected) return;
    try {
      const temporary = `${cacheFile}.${process.pid}`;
      writeFileSync(temporary, script.createCachedData());
      renameSync(temporary, cacheFile);
    } catch {
      // a read-only install: every hook compiles the script, a little slower
    }
  };
  return { hooks: module.exports, done };
}

const hookRuntime = args[0] === 'hook' && args.length === 2 ? args[1] : undefined;
const loaded = hookRuntime === undefined ? null : loadHooks();
const running = loaded?.hooks.runHookProcess(hookRuntime) ?? null;
if (running) {
  process.exitCode = await running;
  loaded.done();
} else {
  // Every other command, and `hook <unknown runtime>` (its usage error), goes through the full command line.
  await import('../dist/cli.js');
}
