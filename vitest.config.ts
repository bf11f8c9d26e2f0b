// One vitest configuration for the whole workspace: unit tests in packages, black-box tests in tests/.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/generated/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './tests/support/summary-reporter.ts'],
  },
});
