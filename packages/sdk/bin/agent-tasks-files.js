#!/usr/bin/env node
// The `agent-tasks-files` command: imports and exports task files (see --help), from the built package.
import { runTasksCli } from '@agent-tasks/sdk/cli';

process.exitCode = await runTasksCli(process.argv.slice(2));
