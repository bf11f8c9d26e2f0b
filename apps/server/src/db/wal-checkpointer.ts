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
/**
 * The longest a RESTART holds SQLite's write lock waiting for readers (or waits to take it), and never more than a
 * tenth of the writes' own busy timeout: a write that meets it waits, well inside its timeout.
 */
const MAX_WAIT_MS = 100;
/** After a RESTART that could not start the WAL over, the next is tried this much later, doubling up to 30 s. */
const RESTART_BACKOFF_MS = 1_000;
/** A WAL that has not started over for this long while past its bound is reported (once, until it does). */
const STUCK_MS = 60_000;

/**
 * The thread: its own connection to the file; every `everyMs` a passive checkpoint, which waits for no one (and, with
 * nothing new in the WAL, only reads its index). While writes go on a passive checkpoint never catches up with them,
 * so the WAL would only grow: when it holds `restartPages` or more, a RESTART follows, which takes the write lock,
 * copies the little written since the passive pass, and waits for the readers still in the WAL, at most `waitMs`
 * (a busy handler's sleeps, holding the lock); then the next write starts the WAL from its beginning. A RESTART that
 * could not (a writer kept the lock, or a reader stayed: a long transaction, a backup) comes back with busy = 1: the
 * next is tried a second later, then two, up to 30. A failure, or a WAL that has not started over for a minute, is
 * told once per run.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: workerData.waitMs, fileMustExist: true });
db.pragma('synchronous = NORMAL');
let failing = false;
let backoff = 0;
let restartAfter = 0;
let stuckSince = null;
let toldStuck = false;
const tell = (failed) => parentPort.postMessage({ failed });
const checkpoint = () => {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    failing = false;
    if (workerData.waitMs < 1 || passive.log < workerData.restartPages) {
      stuckSince = null;
      toldStuck = false;
      return;
    }
    if (Date.now() < restartAfter) return;
    const [restart] = db.pragma('wal_checkpoint(RESTART)');
    if (restart.busy === 0) {
      backoff = 0;
      stuckSince = null;
      toldStuck = false;
      return;
    }
    backoff = Math.min(30000, backoff === 0 ? workerData.backoffMs : backoff * 2);
    restartAfter = Date.now() + backoff;
    stuckSince = stuckSince === null ? Date.now() : stuckSince;
    if (!toldStuck && Date.now() - stuckSince >= workerData.stuckMs) {
      toldStuck = true;
      tell('the WAL has not started over for ' + Math.round((Date.now() - stuckSince) / 1000) + ' s (' + passive.log +
        ' pages): a reader keeps it (a long transaction, a backup?); it grows until that reader ends');
    }
  } catch (error) {
    if (!failing) tell(String((error && error.message) || error));
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
 * Starts the checkpoint thread for the SQLite file; `onFailure` hears a failed checkpoint, or a WAL that could not start
 * over for a minute (once per run). `busyTimeoutMs`: how long the process's writes wait for the write lock (a RESTART
 * holds it at most a tenth of that; none below 10 ms). `tuning` (tests): how often it checkpoints, past how many WAL
 * pages it starts the WAL over, its backoff and when it reports a WAL that does not start over.
 */
export function startWalCheckpointer(
  file: string,
  options: { busyTimeoutMs: number; onFailure: (message: string) => void },
  tuning: { everyMs?: number; restartPages?: number; backoffMs?: number; stuckMs?: number } = {},
): WalCheckpointer {
  const { onFailure } = options;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const workerData = {
    file,
    driver,
    everyMs: EVERY_MS,
    restartPages: RESTART_PAGES,
    waitMs: Math.min(MAX_WAIT_MS, Math.floor(options.busyTimeoutMs / 10)),
    backoffMs: RESTART_BACKOFF_MS,
    stuckMs: STUCK_MS,
    ...tuning,
  };
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
