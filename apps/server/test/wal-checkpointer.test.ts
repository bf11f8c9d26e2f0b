// The WAL's checkpoint thread: what the writer's connection commits reaches the database file without that connection
// checkpointing, the WAL starts over while writes go on, and a thread that cannot work says so.
import { closeSync, copyFileSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type WalCheckpointer, startWalCheckpointer } from '../src/db/wal-checkpointer.ts';
import { guardMs } from '../../../tests/support/time-guard.ts';

const PAGE = 4096;
const started: WalCheckpointer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.stop()));
});

/** A database in WAL mode whose connection never checkpoints by itself, with a table to write to. */
function walDatabase() {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-wal-')), 'test.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  return { file, db };
}

/** The rows of `note` in the database file alone (a copy without its WAL): what checkpoints have put there. */
function rowsInFile(file: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-wal-copy-'));
  const copy = path.join(dir, 'copy.db');
  copyFileSync(file, copy);
  const db = new Database(copy, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM note').get() as { n: number }).n;
  } catch {
    return 0; // the table itself is still only in the WAL, or the copy was taken mid-checkpoint
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How many times the WAL has started over: its header's checkpoint sequence number (sqlite.org/fileformat2.html). */
function walStarts(file: string) {
  const fd = openSync(`${file}-wal`, 'r');
  try {
    const header = Buffer.alloc(16);
    readSync(fd, header, 0, 16, 0);
    return header.readUInt32BE(12);
  } finally {
    closeSync(fd);
  }
}

const waitFor = async (check: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
};

describe('the WAL checkpoint thread', () => {
  it("puts what the writer committed into the database file, the writer's connection never checkpointing", async () => {
    const { file, db } = walDatabase();
    const insert = db.prepare('INSERT INTO note (text) VALUES (?)');
    for (let i = 0; i < 20; i++) insert.run(`note ${i}`);
    // Nothing has checkpointed yet: the file alone has none of it.
    expect(rowsInFile(file)).toBe(0);
    started.push(startWalCheckpointer(file, { busyTimeoutMs: 5_000, onFailure: (problem) => expect.fail(problem) }));
    expect(await waitFor(() => rowsInFile(file) === 20, 10_000)).toBe(true);
    db.close();
  });

  it('starts the WAL over once it has grown past its bound, while writes go on', async () => {
    const { file, db } = walDatabase();
    started.push(
      // A RESTART that meets a write (on a loaded machine, the writer may be descheduled holding the lock) is tried again
      // 20 ms later, not a second later: the writes below may all be done within a second.
      startWalCheckpointer(
        file,
        { busyTimeoutMs: 5_000, onFailure: (problem) => expect.fail(problem) },
        { everyMs: 10, restartPages: 40, backoffMs: 20 },
      ),
    );
    const insert = db.prepare('INSERT INTO note (text) VALUES (?)');
    insert.run('first');
    // The thread is at work once the first row is in the file.
    expect(await waitFor(() => rowsInFile(file) === 1, 10_000)).toBe(true);
    // Writes back to back (three WAL pages each: a row and its overflow), the event loop turning between two (as a
    // server's does): a passive checkpoint never catches up with them, so without starting over the WAL would only grow.
    // (The first of them starts the WAL over, the one row before it being checkpointed: counted from the second.)
    const text = 'x'.repeat(2 * PAGE);
    insert.run(text);
    const before = walStarts(file);
    let written = 2;
    while (walStarts(file) === before && written < 12_000) {
      for (let i = 0; i < 20; i++, written++) {
        insert.run(text);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    expect(walStarts(file)).not.toBe(before);
    expect(await waitFor(() => rowsInFile(file) === written, 10_000)).toBe(true);
    db.close();
  });

  it('a reader that keeps the WAL holds no write past a short wait, is retried less and less often, and is reported once', async () => {
    const { file, db } = walDatabase();
    // The writer's busy timeout: a write that meets the thread's RESTART waits at most a tenth of it.
    db.pragma('busy_timeout = 1000');
    const insert = db.prepare('INSERT INTO note (text) VALUES (?)');
    const text = 'x'.repeat(2 * PAGE);
    for (let i = 0; i < 30; i++) insert.run(text);
    // A reader in the middle of a long transaction (a backup, say): the WAL cannot start over while it lasts.
    const reader = new Database(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM note').get();
    const problems: string[] = [];
    const tuning = { everyMs: 10, restartPages: 40, backoffMs: 100, stuckMs: 400 };
    started.push(startWalCheckpointer(file, { busyTimeoutMs: 1_000, onFailure: (problem) => problems.push(problem) }, tuning));
    // Writes for a second and a half: each RESTART waits for the reader at most 100 ms (a tenth of the writes' busy
    // timeout), holding the write lock, and the next comes later each time; a write kept past 1 s would throw "busy".
    let written = 0;
    const until = Date.now() + 1_500;
    while (Date.now() < until) {
      insert.run(text);
      written++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(written).toBeGreaterThan(10);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^the WAL has not started over for \d+ s \(\d+ pages\): a reader keeps it/);
    // The reader done, the WAL starts over (at the next RESTART, once its wait has passed).
    const starts = walStarts(file);
    reader.exec('COMMIT');
    reader.close();
    const gone = Date.now() + guardMs(10_000);
    while (walStarts(file) === starts && Date.now() < gone) {
      insert.run(text);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(walStarts(file)).not.toBe(starts);
    db.close();
  });

  it('says once that it cannot checkpoint (a file it cannot open)', async () => {
    const problems: string[] = [];
    const missing = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-wal-')), 'no-such-dir', 'test.db');
    started.push(startWalCheckpointer(missing, { busyTimeoutMs: 5_000, onFailure: (problem) => problems.push(problem) }, { everyMs: 10 }));
    expect(await waitFor(() => problems.length > 0, 10_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/directory does not exist|unable to open|does not exist/);
  });
});
