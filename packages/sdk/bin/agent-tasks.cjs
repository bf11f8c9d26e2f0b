#!/usr/bin/env node
// The SDK's `agent-tasks` command (hook, hook install|uninstall, mcp, tasks; see --help), from the built package.
// `agent-tasks hook <runtime>` runs on every tool call of an agent, which waits for it: it loads only the bundled hook
// handlers (dist/hook.cjs, through hook-loader.cjs), never the command line; everything else runs dist/cli.js.
'use strict';
const path = require('node:path');
const { hookLoader } = require('./hook-loader.cjs');

const args = process.argv.slice(2);
void (async () => {
  const ranHook =
    args[0] === 'hook' &&
    args.length === 2 &&
    (await hookLoader(path.join(path.dirname(module.filename), '..', 'dist')).runHookCommand(args[1]));
  if (ranHook) return;
  const { runAgentTasksCli } = await import('../dist/cli.js');
  process.exitCode = await runAgentTasksCli(args);
})();
