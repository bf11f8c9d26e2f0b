// Builds the published package: ESM and one bundled .d.ts per entry, with the private workspace packages
// (@agent-tasks/core, @agent-tasks/schema) and the server's router types inlined; public packages stay imports.
// dist/hook.cjs is the `agent-tasks hook <runtime>` fast path: the hook handlers and all they import in one minified
// CommonJS script (bin/agent-tasks.cjs loads it with a V8 code cache), so a hook never starts the ES module loader.
import { defineConfig } from 'tsup';

export default defineConfig([
  {
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
    // The two builds run at once: this one's clean leaves the other's output alone.
    clean: ['!hook.cjs'],
    noExternal: [/^@agent-tasks\//],
    removeNodeProtocol: false,
    // The .d.ts bundler inlines only what resolves outside node_modules: map the workspace packages to their sources.
    dts: {
      compilerOptions: {
        paths: {
          '@agent-tasks/core': ['../core/src/index.ts'],
          '@agent-tasks/schema': ['../schema/src/index.ts'],
          '@agent-tasks/schema/errors': ['../schema/src/errors.ts'],
          '@agent-tasks/server/router': ['../../apps/server/src/routers/root.ts'],
        },
      },
    },
  },
  {
    entry: { hook: 'src/hooks.ts' },
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    outDir: 'dist',
    outExtension: () => ({ js: '.cjs' }),
    clean: false,
    minify: true,
    noExternal: [/.*/],
    removeNodeProtocol: false,
    dts: false,
  },
]);
