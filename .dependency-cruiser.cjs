// Architecture rules, checked in CI (`pnpm lint:deps`): core and schema stay pure, no import cycles, packages never
// reach into apps (the SDK takes the router type through the server's `router` export), the transport never reads the
// database layer (the error boundary maps the store's port-level errors), the write path never imports the dashboard's
// reads, and the dashboard takes the server as types only and the SDK's browser link only.
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
      name: 'packages-not-apps',
      comment: "Packages never import an app; the one exception is the server's router type, through its `router` export.",
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/', pathNot: '^apps/server/src/routers/root[.]ts$' },
    },
    {
      name: 'sdk-router-through-package-export',
      comment:
        "The router type comes in as `@agent-tasks/server/router` (the server package's export), never by a relative path into apps/server.",
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/server/src/routers/root[.]ts$', dependencyTypes: ['local'] },
    },
    {
      name: 'transport-not-database',
      comment:
        "tRPC, HTTP, MCP and the error boundary never import the database layer: the store adapter turns driver errors into core's StoreUnavailable.",
      severity: 'error',
      from: { path: '^apps/server/src/(trpc[.]ts|error-map[.]ts|http/|mcp/)' },
      to: { path: '^apps/server/src/db/' },
    },
    {
      name: 'write-path-not-dashboard-reads',
      comment: "Core's use cases never import the dashboard's read module (live topics and session activity live in live-topics.ts).",
      severity: 'error',
      from: { path: '^packages/core/src/', pathNot: '^packages/core/src/index[.]ts$' },
      to: { path: '^packages/core/src/dashboard-service[.]ts$' },
    },
    {
      name: 'web-server-types-only',
      comment: 'The dashboard takes the server as types only (its router), never its runtime.',
      severity: 'error',
      from: { path: '^apps/web/src' },
      to: { path: '^apps/server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-sdk-browser-link-only',
      comment: "The dashboard uses the SDK's browser-safe stream-ticket link (`@agent-tasks/sdk/stream-link`), nothing that needs Node.",
      severity: 'error',
      from: { path: '^apps/web/src' },
      to: { path: '^packages/sdk/src/', pathNot: '^packages/sdk/src/(stream-link|router-types)[.]ts$' },
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
