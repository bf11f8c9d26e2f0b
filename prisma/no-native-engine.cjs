#!/usr/bin/env node
// Stand-in for Prisma's native schema engine, which cannot be downloaded here: migrations run through our own commands.
process.stderr.write(
  "agent-tasks applies migrations with Prisma's WASM schema engine.\n" +
    'Use `pnpm migrate:create <name>` to create one and `pnpm start` to apply them.\n',
);
process.exit(1);
