// One vitest configuration for the whole workspace: unit tests in packages, black-box tests in tests/.
// Workspace packages resolve to their TypeScript sources through the `@agent-tasks/source` export condition.
// Two groups: most files run several at a time (they mostly wait on sockets and child processes), those whose time
// bounds are failure guards (tests/support/time-guard.ts) included; the few files that load the machine themselves to
// measure what it does under that load run afterwards, one at a time.
// Two passes, chosen by AGENT_TASKS_TEST_DATABASE: `sqlite` (the default: everything on SQLite files), `postgres` (the
// black-box suite on PostgreSQL: one embedded cluster for the run, a fresh database per server), or `both` (what
// `pnpm test` runs: the SQLite pass, then the PostgreSQL pass; one summary line for both).
// `AGENT_TASKS_TEST_SUITE=quick` (`pnpm test:quick`) runs only the inner loop's files instead (the `quick` list below).
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

const source = '@agent-tasks/source';
const resolve = { conditions: [source, ...defaultClientConditions] };
const ssr = { resolve: { conditions: [source, ...defaultServerConditions] } };
const exclude = ['**/node_modules/**', '**/generated/**', '**/.tsbuild/**'];
/** Every project's first global setup: the run's temporary files in a directory of its own, removed at its end. */
const tempDir = 'tests/support/temp-dir-global-setup.ts';

/** Files that make load of their own, and measure the server under it or hold it to a limit under it (p99 beside four
 * maximum-size imports, kill -9 rounds under concurrent writers, a write crossing two replicas' live feeds, 5,000 MCP
 * sessions and 2,000 live streams on a 160 MB heap): alone, so the figures they print are the server's and their floods
 * meet no other. Every other file's time bounds are failure guards that hold beside a second suite, so they run in the
 * parallel group (timeouts, busy waits, slow bodies, hanging receivers, the hook's deadline: those once here too). */
const timed = [
  'tests/import-load.test.ts',
  'tests/crash-writers.test.ts',
  'tests/replicas.test.ts',
  'tests/mcp-limits.test.ts',
  'tests/stream-limits.test.ts',
];

/** Black-box files that never reach a database of their own choosing (source rules, the built bundle, exported
 * schemas, static file serving on an in-process app, the server package installed with its own SQLite file, the SDK
 * package packed, installed and run against a server whose store is not its point, doc and help texts): one run on the
 * SQLite pass says all they can. */
const databaseFree = [
  'tests/architecture.test.ts',
  'tests/dashboard-bundle.test.ts',
  'tests/package-names.test.ts',
  'tests/sdk-package.test.ts',
  'tests/server-package.test.ts',
  'tests/tool-schemas.test.ts',
  'tests/web-serving.test.ts',
];

/** Files that run on PostgreSQL whatever the pass (the PostgreSQL path itself, replicas on one database): the SQLite
 * pass runs them once. */
const postgresAlways = [
  'tests/postgres.test.ts',
  'tests/replicas.test.ts',
  'tests/postgres-group-commit.test.ts',
  'tests/postgres-task-reads.test.ts',
];

/** `pnpm test:quick`, the inner loop: core and schema unit tests, the store contract, and the black-box files whose server
 * runs in the test's own process on SQLite (no built command, child process, browser, PostgreSQL or timed file). */
const quick = [
  'packages/*/test/**/*.test.ts',
  'apps/server/test/store-contract.test.ts',
  ...[
    'access',
    'chat-channels',
    'claude-code-mirror',
    'concurrency',
    'contract-refusals',
    'dashboard-api',
    'hostile-input',
    'http-layer',
    'live',
    'privacy',
    'refusal-texts',
    'run-card',
    'run-notifications',
    'run-seed-contract',
    'run-task-time',
    'runs',
    'session-external-id',
    'sessions',
    'stream-revocation',
    'task-claims',
    'task-files-claude-code',
    'task-id-scope',
    'task-ranks',
    'task-ready-owner',
    'task-seed-fidelity',
    'tasks',
    'todo-card',
    'todo-tool',
    'todo-write',
    'token-budget',
    'tool-schemas',
    'vocabulary',
    'watch-from',
    'web-serving',
    'docs',
  ].map((name) => `tests/${name}.test.ts`),
];

const workers = Number(process.env.TEST_MAX_WORKERS) || 3;
/** Files share their worker's module graph (the server's sources are transformed and loaded once per worker, not once
 * per file: `pnpm test:quick` went from 66 s to 25 s on a quiet machine); env stubs are undone after each test. */
const isolate = process.env.TEST_ISOLATE === '1';
/** Per-test and per-hook limits: failure guards for a hang, far past any test's own time on a busy machine (a second
 * suite beside this one); `TEST_TIME_GUARD` scales them with the assertions' guards (tests/support/time-guard.ts). */
const guard = Math.max(1, Number(process.env.TEST_TIME_GUARD) || 10) / 10;
const testTimeout = 120_000 * guard;
const hookTimeout = 180_000 * guard;
const pass = process.env.AGENT_TASKS_TEST_DATABASE ?? 'sqlite';
if (!['sqlite', 'postgres', 'both'].includes(pass)) {
  throw new Error(`AGENT_TASKS_TEST_DATABASE must be sqlite, postgres or both (got ${JSON.stringify(pass)})`);
}

const sqliteProjects = [
  {
    resolve,
    ssr,
    test: {
      name: 'parallel',
      include: ['**/*.test.ts'],
      exclude: [...exclude, ...timed],
      env: { AGENT_TASKS_TEST_DATABASE: 'sqlite', AGENT_TASKS_VERIFY_OUTPUTS: '1' },
      globalSetup: [tempDir],
      testTimeout,
      hookTimeout,
      isolate,
      unstubEnvs: true,
      maxWorkers: workers,
    },
  },
  {
    resolve,
    ssr,
    test: {
      name: 'timed',
      include: timed,
      exclude,
      env: { AGENT_TASKS_TEST_DATABASE: 'sqlite', AGENT_TASKS_VERIFY_OUTPUTS: '1' },
      globalSetup: [tempDir],
      testTimeout,
      hookTimeout,
      isolate,
      unstubEnvs: true,
      maxWorkers: 1,
      sequence: { groupOrder: 1 },
    },
  },
];

/** `pnpm test:quick`: the `quick` list, on SQLite, several files at a time. */
const quickProject = {
  resolve,
  ssr,
  test: {
    name: 'quick',
    include: quick,
    exclude,
    env: { AGENT_TASKS_TEST_DATABASE: 'sqlite', AGENT_TASKS_VERIFY_OUTPUTS: '1' },
    globalSetup: [tempDir],
    testTimeout,
    hookTimeout,
    isolate,
    unstubEnvs: true,
    maxWorkers: workers,
  },
};

/** The black-box suite again on PostgreSQL, after the SQLite pass; `sqliteOnly` describes are skipped there. Every
 * query crosses a socket: tests get twice the time. */
const postgresProjects = [
  {
    resolve,
    ssr,
    test: {
      name: 'pg-parallel',
      include: ['tests/**/*.test.ts'],
      exclude: [...exclude, ...timed, ...databaseFree, ...postgresAlways],
      env: { AGENT_TASKS_TEST_DATABASE: 'postgres', AGENT_TASKS_VERIFY_OUTPUTS: '1' },
      globalSetup: [tempDir, 'tests/support/postgres-global-setup.ts'],
      testTimeout: 2 * testTimeout,
      hookTimeout,
      isolate,
      unstubEnvs: true,
      maxWorkers: workers,
      sequence: { groupOrder: 2 },
    },
  },
  {
    resolve,
    ssr,
    test: {
      name: 'pg-timed',
      include: timed,
      exclude: [...exclude, ...postgresAlways],
      env: { AGENT_TASKS_TEST_DATABASE: 'postgres', AGENT_TASKS_VERIFY_OUTPUTS: '1' },
      globalSetup: [tempDir, 'tests/support/postgres-global-setup.ts'],
      testTimeout: 2 * testTimeout,
      hookTimeout,
      isolate,
      unstubEnvs: true,
      maxWorkers: 1,
      sequence: { groupOrder: 3 },
    },
  },
];

export default defineConfig({
  resolve,
  ssr,
  test: {
    testTimeout,
    hookTimeout,
    reporters: ['default', './tests/support/summary-reporter.ts'],
    projects:
      process.env.AGENT_TASKS_TEST_SUITE === 'quick'
        ? [quickProject]
        : [...(pass === 'postgres' ? [] : sqliteProjects), ...(pass === 'sqlite' ? [] : postgresProjects)],
  },
});
