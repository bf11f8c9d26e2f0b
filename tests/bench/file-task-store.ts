// Baseline: the file-per-task store with a lock per update that Claude Code's task tools use (~/.claude/tasks/<list>/
// <n>.json): lock the task's file (proper-lockfile), read it, change it, write a temp file and rename it over, unlock.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';

interface TaskFile {
  id: string;
  subject: string;
  description: string;
  status: 'pending' | 'in_progress' | 'completed';
  blocks: string[];
  blockedBy: string[];
  metadata: Record<string, unknown>;
}

/** Sequential metadata updates of random tasks of an N-task list, in-process; updates per second. */
export async function fileStoreUpdates(tasks: number, seconds: number): Promise<{ perSecond: number; updates: number }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-files-'));
  try {
    for (let i = 1; i <= tasks; i++) {
      const task: TaskFile = {
        id: String(i),
        subject: `Bench task ${i}`,
        description: '',
        status: 'pending',
        blocks: i < tasks ? [String(i + 1)] : [],
        blockedBy: i > 1 ? [String(i - 1)] : [],
        metadata: {},
      };
      writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(task, null, 2));
    }
    let updates = 0;
    let seed = 1;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    while (performance.now() < deadline) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const file = path.join(dir, `${(seed % tasks) + 1}.json`);
      const release = await lockfile.lock(file, { retries: { retries: 50, minTimeout: 1, maxTimeout: 20 }, realpath: false });
      try {
        const task = JSON.parse(await readFile(file, 'utf8')) as TaskFile;
        task.metadata = { ...task.metadata, touched: updates };
        const temp = `${file}.${process.pid}.tmp`;
        await writeFile(temp, JSON.stringify(task, null, 2));
        await rename(temp, file);
      } finally {
        await release();
      }
      updates++;
    }
    return { perSecond: updates / ((performance.now() - started) / 1000), updates };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
