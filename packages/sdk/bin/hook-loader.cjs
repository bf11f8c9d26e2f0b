// The hook fast path of the `agent-tasks` command (an agent runs `agent-tasks hook <runtime>` on every tool call and
// waits for it): loads only the hook handlers (hook.cjs, one bundled script next to the command's other files),
// compiled from a V8 code cache kept next to them once a hook has run; as a CommonJS file it also starts without
// Node's ES module loader. The SDK's bin/agent-tasks.cjs uses it, and the server's build copies it into its dist/.
'use strict';
const { createHash } = require('node:crypto');
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

/** The hook runner of the hook.cjs in `dist`: `runHookCommand(runtime)` and `hookRuntimeNames()`. */
function hookLoader(dist) {
  /** Loads hook.cjs; `done()` (after the hook ran) writes the code cache when there was none that V8 took. */
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
      // import() in the handlers (node:https on a Node without process.getBuiltinModule) as in any CommonJS module.
      ...(vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER && { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }),
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

  return { runHookCommand, hookRuntimeNames };
}

module.exports = { hookLoader };
