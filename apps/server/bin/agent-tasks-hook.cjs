#!/usr/bin/env node
// `agent-tasks-hook <runtime>`: the same as `agent-tasks hook <runtime>`, the hook an agent runs on every tool call and
// waits for. It loads only the hook handlers (dist/hook.cjs, one script) through the SDK's hook loader (copied into
// dist/ by scripts/build.ts), with its V8 code cache. agent-tasks.mjs runs `hook <runtime>` through runHookCommand.
'use strict';
const path = require('node:path');
const { hookLoader } = require('../dist/hook-loader.cjs');

const { runHookCommand, hookRuntimeNames } = hookLoader(path.join(path.dirname(module.filename), '..', 'dist'));

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
