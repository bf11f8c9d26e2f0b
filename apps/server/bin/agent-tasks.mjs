#!/usr/bin/env node
// The `agent-tasks` command: runs the built server (dist/cli.js; `pnpm build` makes it, `pnpm install` runs that).
// `agent-tasks hook <runtime>` runs on every tool call of an agent, which waits for it: it takes the fast path of
// agent-tasks-hook.cjs, which loads only the hook handlers, never this command line.
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const ranHook =
  args[0] === 'hook' && args.length === 2 && (await createRequire(import.meta.url)('./agent-tasks-hook.cjs').runHookCommand(args[1]));
// Every other command, and `hook <unknown runtime>` (its usage error), goes through the whole command line.
if (!ranHook) await import('../dist/cli.js');
