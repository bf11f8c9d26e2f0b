#!/usr/bin/env node
// `agent-tasks-hook <runtime>`: the same as `agent-tasks hook <runtime>`, the hook an agent runs on every tool call and
// waits for. It loads only the hook handlers (dist/hook.cjs, one script), compiled from a V8 code cache kept next to
// them once a hook has run; as a CommonJS file it also starts without Node's ES module loader. agent-tasks.mjs runs
// `hook <runtime>` through runHookCommand.
'use strict';
const { createHash } = require('node:crypto');
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const dist = path.join(path.dirname(module.filename), '..', 'dist');

/** Loads dist/hook.cjs; `done()` (after the hook ran) writes the code cache when there was none that V8 took. */
function loadHooks() {
  const file = path.join(dist, 'hook.cjs');
  const source = readFileSync(file, 'utf8');
  // Named by the script's content and the V8 version: a rebuilt script never meets an old cache.
  const key = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const cacheFile = `${file}.${key}.${process.versions.v8}.cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const loaded = { exports: {} };
  script.runInThisContext()(loaded.exports, require, loaded, file, dist);
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
  return { hooks: loaded.exports, done };
}

/** Runs `runtime`'s hook on this process (exit code in process.exitCode); false for an unknown runtime. */
async function runHookCommand(runtime) {
  const { hooks, done } = loadHooks();
  const running = hooks.runHookProcess(runtime);
  if (!running) return false;
  process.exitCode = await running;
  done();
  return true;
}

/** The runtimes there are hooks for. */
const hookRuntimeNames = () => Object.keys(loadHooks().hooks.hookRuntimes);

module.exports = { runHookCommand };

if (require.main === module) {
  const args = process.argv.slice(2);
  const usage = () => {
    process.stderr.write(`Error: usage: agent-tasks-hook <${hookRuntimeNames().join('|')}> (the hook's JSON on stdin).\n`);
    process.exitCode = 2;
  };
  if (args.length !== 1) usage();
  else void runHookCommand(args[0]).then((ran) => ran || usage());
}
