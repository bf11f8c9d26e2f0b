// Builds the published package: ESM and one bundled .d.ts per entry, with the private workspace packages
// (@agent-tasks/core, @agent-tasks/schema) and the server's router types inlined; public packages stay imports.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    mcp: 'src/mcp-stdio.ts',
    opencode: 'src/opencode-plugin.ts',
    'stream-link': 'src/stream-link.ts',
  },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  noExternal: [/^@agent-tasks\//],
  removeNodeProtocol: false,
  // The .d.ts bundler inlines only what resolves outside node_modules: map the workspace packages to their sources.
  dts: {
    compilerOptions: {
      paths: {
        '@agent-tasks/core': ['../core/src/index.ts'],
        '@agent-tasks/schema': ['../schema/src/index.ts'],
        '@agent-tasks/server/router': ['../../apps/server/src/routers/root.ts'],
      },
    },
  },
});
