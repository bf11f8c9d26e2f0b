#!/usr/bin/env node
// The `agent-tasks` command: runs the built server (dist/cli.js; `pnpm build` makes it, `pnpm install` runs that).
await import('../dist/cli.js');
