// One vitest configuration for the whole workspace: unit tests in packages, black-box tests in tests/.
// Workspace packages resolve to their TypeScript sources through the `@agent-tasks/source` export condition.
// Two groups: most files run several at a time (they mostly wait on sockets and child processes); the files that
// measure latencies or timeouts run afterwards, one at a time, so other files' load does not skew their figures.
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

const source = '@agent-tasks/source';
const resolve = { conditions: [source, ...defaultClientConditions] };
const ssr = { resolve: { conditions: [source, ...defaultServerConditions] } };
const exclude = ['**/node_modules/**', '**/generated/**', '**/.tsbuild/**'];

/** Files whose assertions are about time (latency percentiles, timeouts, waits measured against a clock, bounded
 * kill -9 rounds under load). */
const timed = [
  'tests/import-load.test.ts',
  'tests/overload.test.ts',
  'tests/database-busy.test.ts',
  'tests/database-lock.test.ts',
  'tests/request-limits.test.ts',
  'tests/webhook-delivery.test.ts',
  'tests/auth-brake.test.ts',
  'tests/mcp-limits.test.ts',
  'tests/claude-code-hook.test.ts',
  'tests/crash.test.ts',
  'tests/crash-writers.test.ts',
  'tests/replicas.test.ts',
];

const workers = Number(process.env.TEST_MAX_WORKERS) || 3;

export default defineConfig({
  resolve,
  ssr,
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './tests/support/summary-reporter.ts'],
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: 'parallel',
          include: ['**/*.test.ts'],
          exclude: [...exclude, ...timed],
          testTimeout: 30_000,
          hookTimeout: 60_000,
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
          testTimeout: 30_000,
          hookTimeout: 60_000,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
