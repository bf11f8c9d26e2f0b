// Architecture rules, checked in CI (`pnpm lint:deps`): core and schema stay pure, no import cycles, and the SDK's
// runtime never reaches into the server.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'pure-core-and-schema-no-node',
      comment: 'packages/core and packages/schema are pure domain code: no Node built-in modules (no I/O).',
      severity: 'error',
      from: { path: '^packages/(core|schema)/src' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'pure-core-and-schema-no-io-packages',
      comment: 'packages/core and packages/schema import no database, RPC, HTTP or MCP package.',
      severity: 'error',
      from: { path: '^packages/(core|schema)/src' },
      to: { path: '(^|/node_modules/)(@prisma|prisma|@trpc|hono|@hono|@modelcontextprotocol|better-sqlite3|pg|express|fastify)(/|$)' },
    },
    {
      name: 'pure-core-and-schema-no-app-code',
      comment: 'core and schema never import the server, the SDK or the dashboard.',
      severity: 'error',
      from: { path: '^packages/(core|schema)/src' },
      to: { path: '^(apps/|packages/sdk/)' },
    },
    {
      name: 'sdk-runtime-not-server',
      comment: "The SDK's runtime never imports the server (its router types come in as type-only imports).",
      severity: 'error',
      from: { path: '^packages/sdk/src' },
      to: { path: '^apps/server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'resolvable',
      comment: 'Every import resolves (a package a workspace package uses must be among its own dependencies).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycles (type-only imports included would be noise; runtime cycles are the harm).',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|generated)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['@agent-tasks/source', 'import', 'types', 'default'] },
    combinedDependencies: true,
  },
};
