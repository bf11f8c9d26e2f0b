// A live file mirror of a task list: a folder of one JSON file per task in the seed's schema (`.sisyphus/tasks/<id>.json`)
// kept in step with the list through its live feed. Files are written atomically (temp file, then rename); a deleted
// task's file is removed; each sync writes only the files whose content changed.
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentTasksClient } from './client.ts';

/** The files the mirror owns: task files named by a task id; anything else in the folder is left alone. */
const TASK_FILE = /^T-[A-Za-z0-9-]{1,64}\.json$/;

export interface MirrorSync {
  tasks: number;
  written: number;
  removed: number;
}

export interface MirrorOptions {
  client: AgentTasksClient;
  dir: string;
  listName?: string | undefined;
  /** Called after each sync. */
  onSync?(sync: MirrorSync): void;
  onError?(error: unknown): void;
}

async function writeAtomically(file: string, content: string) {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  await writeFile(temp, content);
  await rename(temp, file);
}

const readIfThere = (file: string) => readFile(file, 'utf8').catch(() => null);

/** Makes the folder hold exactly the list's current tasks (deleted ones removed); returns what it did. */
export async function syncTaskFolder(client: AgentTasksClient, dir: string, listName?: string): Promise<MirrorSync> {
  const { files } = await client.tasks.export({ format: 'sisyphus', ...(listName === undefined ? {} : { listName }) });
  const live = files.filter((f) => TASK_FILE.test(f.name) && (JSON.parse(f.content) as { status?: string }).status !== 'deleted');
  await mkdir(dir, { recursive: true });
  let written = 0;
  for (const file of live) {
    const target = path.join(dir, file.name);
    if ((await readIfThere(target)) === file.content) continue;
    await writeAtomically(target, file.content);
    written++;
  }
  const keep = new Set(live.map((f) => f.name));
  let removed = 0;
  for (const name of await readdir(dir)) {
    if (TASK_FILE.test(name) && !keep.has(name)) {
      await rm(path.join(dir, name), { force: true });
      removed++;
    }
  }
  return { tasks: live.length, written, removed };
}

/**
 * Mirrors the list into `dir` until stopped: syncs once, then again after every change the live feed reports (and
 * after every reconnect); changes that arrive during a sync are caught by one more sync right after it.
 */
export function mirrorTaskList(options: MirrorOptions) {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const sync = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          options.onSync?.(await syncTaskFolder(options.client, options.dir, options.listName));
        } catch (error) {
          options.onError?.(error);
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const feed = options.client.tasks.watch(
    { ...(options.listName === undefined ? {} : { listName: options.listName }), from: 'now' },
    { onStarted: () => void sync(), onData: () => void sync(), onError: (error) => options.onError?.(error) },
  );
  return {
    /** The first sync (and any running one). */
    synced: () => running ?? sync(),
    async stop() {
      stopped = true;
      feed.unsubscribe();
      await running;
    },
  };
}
