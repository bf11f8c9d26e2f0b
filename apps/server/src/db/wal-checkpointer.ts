// The write-ahead log's checkpoints on a thread of their own: copying the WAL's pages into the database file and
// syncing both, which SQLite otherwise does inside the COMMIT that takes the WAL past 1,000 pages — on the event loop,
// holding every request of the process for milliseconds (sqlite.org/wal.html: "run checkpoints … in a separate thread").
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The writer's connection checkpoints by itself only past this many WAL pages (40 MB of 4 KB pages): should the thread
 * fall behind or stop, the WAL still stays bounded.
 */
export const WRITER_CHECKPOINT_PAGES = 10_000;
/** Past this many pages in the WAL the thread's checkpoint also starts the WAL over (RESTART), so it does not grow. */
const RESTART_PAGES = 2_000;
/** How often the thread checkpoints. */
const EVERY_MS = 100;
/** How long the thread waits for the write lock or readers (RESTART), on its own thread. */
const WAIT_MS = 2_000;

/**
 * The thread: its own connection to the file; every EVERY_MS a passive checkpoint, which waits for no one (and, with
 * nothing new in the WAL, only reads its index); when it finds the WAL past RESTART_PAGES, a RESTART checkpoint, which
 * waits for the write lock and the readers so that the next write starts the WAL from its beginning (while writes go
 * on, a passive checkpoint never catches up with them, and the WAL would only grow). A failure is told once per run.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: workerData.waitMs });
db.pragma('synchronous = NORMAL');
let failing = false;
const checkpoint = () => {
  try {
    // The passive pass copies what it can while writes go on; past the bound, RESTART copies the little written since
    // (holding the write lock meanwhile) and starts the WAL over.
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    if (passive.log >= workerData.restartPages) db.pragma('wal_checkpoint(RESTART)');
    failing = false;
  } catch (error) {
    // Another connection checkpointing at the same moment: next time.
    if (error && error.code === 'SQLITE_BUSY') return;
    if (!failing) parentPort.postMessage({ failed: String((error && error.message) || error) });
    failing = true;
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  /** Stops the thread (the connection that closes last checkpoints what is left). */
  stop(): Promise<void>;
}

/**
 * Starts the checkpoint thread for the SQLite file; `onFailure` hears a failed checkpoint (once per run of failures).
 * `tuning` (tests): how often it checkpoints, and past how many WAL pages it starts the WAL over.
 */
export function startWalCheckpointer(
  file: string,
  onFailure: (message: string) => void,
  tuning: { everyMs?: number; restartPages?: number } = {},
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const workerData = { file, driver, everyMs: EVERY_MS, restartPages: RESTART_PAGES, waitMs: WAIT_MS, ...tuning };
  const worker = new Worker(THREAD, { eval: true, workerData });
  worker.on('message', (message: { failed?: string }) => {
    if (message.failed) onFailure(message.failed);
  });
  worker.on('error', (error) => onFailure(error.message));
  // The thread does not keep the process alive.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stop() {
      // Kept alive until the thread has closed its connection: an unreferenced thread's exit would not hold the process.
      worker.ref();
      worker.postMessage('stop');
      return exited;
    },
  };
}
