// vitest globalSetup of every project: the run's temporary files (servers' database files and sockets, projects made
// for the runtimes' hooks, packed packages, browser profiles) go in one directory of the run's own, removed when the
// run ends, so that a run leaves nothing behind in the machine's temporary directory, whatever a test forgets.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup() {
  // Made by the first project's setup; the others share it (their teardowns run after every file has finished).
  if (process.env.AGENT_TASKS_TEST_TMPDIR) return undefined;
  const before = process.env.TMPDIR;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-test-run-'));
  // Open to every user as the temporary directory is, sticky as it is: the embedded PostgreSQL runs as a user of its own.
  chmodSync(dir, 0o1777);
  process.env.AGENT_TASKS_TEST_TMPDIR = dir;
  // os.tmpdir() in the test processes and every process they start (inherited from here).
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    delete process.env.AGENT_TASKS_TEST_TMPDIR;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
