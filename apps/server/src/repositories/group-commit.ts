// Group commit: the write transactions that queue while one runs share the next transaction (BEGIN IMMEDIATE on
// SQLite, BEGIN on PostgreSQL) … COMMIT, each in its own savepoint, so a refusal rolls back only its own writes and a
// burst of writes pays for one transaction. On PostgreSQL the savepoints are set only when a refusal needs one.
import { POSTGRES_BUSY, isDatabaseBusy } from '../db/busy.ts';
import type { DbHandle } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { WriteTurn } from './tx.ts';

type Work<T> = (tx: Prisma.TransactionClient, turn: WriteTurn) => Promise<T>;

interface Job {
  work: Work<unknown>;
  /** Its footprint (`TransactionOptions`): writes of distinct footprints may run side by side. */
  footprint: string | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Runs again after its batch was rolled back: with savepoints this time. */
  again?: boolean;
  /** Its refusal in the batch rolled back, answered once the batch run again commits. */
  refused?: { error: unknown };
}

/**
 * A write without a savepoint was refused after it changed something, or a write run side by side with others failed:
 * the batch is rolled back and run again. The refusals it keeps (by the write's place in the batch) are answered as
 * they are; the other writes run again.
 */
class StartOver extends Error {
  constructor(readonly refusals: ReadonlyMap<number, unknown>) {
    super('a refused write changed something: the batch is run again');
  }
}

interface Done {
  job: Job;
  ok: boolean;
  value: unknown;
  hooks: (() => void)[];
}

export interface GroupCommitOptions {
  /** Most writes in one transaction. */
  maxBatch?: number;
  /**
   * How long one batch may run before Prisma rolls it back (a handle without a transaction of its own); a quarter of
   * it ends a batch early on every handle. The store's own transactions (SQLite's, PostgreSQL's writer) have no
   * deadline of their own: a statement waits for a lock at most the lock or busy timeout, and is then "busy".
   */
  timeoutMs?: number;
  /** How long to wait to begin Prisma's transaction (a handle without a transaction of its own). */
  maxWaitMs?: number;
}

const runHooks = (hooks: (() => void)[]) => {
  for (const hook of hooks) hook();
};

/**
 * One write's turn in `transaction`: its after-commit hooks gathered in `hooks`, its after-kept ones in `kept`; `undoneAlone`
 * when it runs in a savepoint of its own.
 */
const turnIn = (transaction: object, hooks: (() => void)[], kept: (() => void)[], undoneAlone = false): WriteTurn => ({
  afterCommit: (fn) => hooks.push(fn),
  afterKept: (fn) => kept.push(fn),
  transaction,
  undoneAlone,
});

/** Two footprints overlap when one is the other or holds it (`tasks:w/l` holds `tasks:w/l/task:t`): their writes go in turn. */
export const footprintsOverlap = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/**
 * The writes from `batch[from]` on that may run side by side: consecutive, each with a footprint that overlaps none of the
 * others'; none when the first has no footprint.
 */
function sideBySide(batch: readonly Job[], from: number): Job[] {
  const wave: Job[] = [];
  for (let i = from; i < batch.length; i++) {
    const job = batch[i] as Job;
    const { footprint } = job;
    if (footprint === undefined || job.refused || wave.some((other) => footprintsOverlap(footprint, other.footprint as string))) break;
    wave.push(job);
  }
  return wave;
}

/**
 * Which refusals of writes side by side stand as they are when the batch runs again. With no statement failed, each
 * is its write's own (their footprints are apart): all stand, whatever they changed being undone with the batch. A
 * failed statement aborts the transaction, and the statements after it fail for that alone (a write may have read
 * such a failure as a refusal of its own). So the first failure decides: a lock wait run out ("busy") stands for its
 * write, which would wait as long again; any other, and the rest, run again, one at a time with savepoints.
 */
function keptRefusals(refused: readonly (readonly [number, unknown])[], failures: readonly string[]) {
  const [first] = failures;
  if (first === undefined) return refused;
  return POSTGRES_BUSY.has(first) ? refused.filter(([, error]) => isDatabaseBusy(error)) : [];
}

export function groupCommit({ db, savepoints, transaction, ...handle }: DbHandle, options: GroupCommitOptions = {}) {
  const maxBatch = options.maxBatch ?? handle.maxBatch ?? 256;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const budgetMs = timeoutMs / 4;
  const queue: Job[] = [];
  let active = false;
  // The store's own transaction on the writer's one connection (SQLite, PostgreSQL); else Prisma's interactive one.
  const inTransaction: NonNullable<DbHandle['transaction']> =
    transaction ?? ((work) => db.$transaction(work, { maxWait: options.maxWaitMs ?? 60_000, timeout: timeoutMs }));

  /** One transaction for what is queued when the write lock is ours. */
  async function runBatch() {
    let batch: Job[] = [];
    const done: Done[] = [];
    try {
      await inTransaction(async (tx) => {
        batch = queue.splice(0, maxBatch);
        // What the writes kept so far noted for the ones after them holds in this transaction only.
        const transaction = {};
        const [only] = batch;
        if (batch.length === 1 && only && !only.refused) {
          // Alone: no savepoint; a refusal rolls the whole transaction back.
          const hooks: (() => void)[] = [];
          const kept: (() => void)[] = [];
          done.push({ job: only, ok: true, value: await only.work(tx, turnIn(transaction, hooks, kept)), hooks });
          runHooks(kept);
          return;
        }
        const started = Date.now();
        let waitedInVain = false;
        // No savepoint round trip per write where that is the cost, unless the batch is being run again.
        const unmarked = batch.some((job) => job.again) ? undefined : savepoints.unmarked;
        for (let i = 0; i < batch.length; i++) {
          const job = batch[i] as Job;
          // A write that waited its busy timeout for a lock (PostgreSQL takes locks statement by statement) or a
          // batch that has run long: the writes not begun go first into the next transaction, so none waits out
          // another's lock wait, and the transaction stays far inside its own timeout.
          if (i > 0 && (waitedInVain || Date.now() - started > budgetMs)) {
            queue.unshift(...batch.slice(i));
            batch = batch.slice(0, i);
            break;
          }
          // Where statements go out while others are answered (PostgreSQL's writer), writes of distinct footprints run
          // side by side: their statements share round trips.
          const wave = unmarked && handle.pipelined ? sideBySide(batch, i) : [];
          if (unmarked && wave.length > 1) {
            unmarked.start();
            const turns = wave.map(() => ({ hooks: [] as (() => void)[], kept: [] as (() => void)[] }));
            // In the order they finished: the order their last statements ran, so their records' (a list's change
            // numbers) and their events' agree.
            const finished: { k: number; value: unknown }[] = [];
            const settled = await Promise.allSettled(
              wave.map((w, k) =>
                Promise.resolve()
                  .then(() => w.work(tx, turnIn(transaction, turns[k]!.hooks, turns[k]!.kept)))
                  .then((value) => void finished.push({ k, value })),
              ),
            );
            const refused = settled.flatMap((result, k) => (result.status === 'rejected' ? [[i + k, result.reason] as const] : []));
            if (refused.length > 0) throw new StartOver(new Map(keptRefusals(refused, unmarked.failures())));
            for (const { k, value } of finished) {
              const { hooks, kept } = turns[k]!;
              runHooks(kept);
              done.push({ job: wave[k]!, ok: true, value, hooks });
            }
            i += wave.length - 1;
            continue;
          }
          const hooks: (() => void)[] = [];
          const kept: (() => void)[] = [];
          const turn = turnIn(transaction, hooks, kept, !unmarked);
          let value: unknown;
          if (job.refused) {
            done.push({ job, ok: false, value: job.refused.error, hooks: [] });
            continue;
          }
          if (unmarked) {
            unmarked.start();
            try {
              value = await job.work(tx, turn);
            } catch (error) {
              if (unmarked.changed()) throw new StartOver(new Map([[i, error]]));
              done.push({ job, ok: false, value: error, hooks: [] });
              continue;
            }
            runHooks(kept);
            done.push({ job, ok: true, value, hooks });
            continue;
          }
          // Awaited only where a savepoint is a round trip (PostgreSQL); SQLite's run at once, with no extra turn.
          const opened = savepoints.open();
          if (opened) await opened;
          try {
            value = await job.work(tx, turn);
          } catch (error) {
            const undone = savepoints.close(false);
            if (undone) await undone;
            done.push({ job, ok: false, value: error, hooks: [] });
            waitedInVain = isDatabaseBusy(error);
            continue;
          }
          const released = savepoints.close(true);
          if (released) await released;
          runHooks(kept);
          done.push({ job, ok: true, value, hooks });
        }
      });
    } catch (error) {
      if (error instanceof StartOver) {
        // Rolled back: the batch runs again first, each write in a savepoint, so a batch runs at most twice. The
        // refused write keeps its refusal, answered (as any refusal in a batch) once the others have committed: a
        // caller that lost a race to one of them finds the winner's write when it reads. (The refusal was decided
        // beside the first run of the writes before it; run again, they may come out otherwise, as a write from
        // another replica between the two runs would make them.)
        const { refusals } = error;
        queue.unshift(
          ...batch.map((job, j) => ({ ...job, again: true, ...(refusals.has(j) ? { refused: { error: refusals.get(j) } } : {}) })),
        );
        return;
      }
      // Nothing committed: a lone write's own refusal, a failed COMMIT, or the write lock never came ("busy"),
      // in which case everything still queued fails with it (a refusal kept from a first run is answered as it was).
      if (batch.length === 0) batch = queue.splice(0);
      for (const job of batch) job.reject(job.refused ? job.refused.error : error);
      return;
    }
    for (const { job, ok, value, hooks } of done) {
      if (!ok) {
        job.reject(value);
        continue;
      }
      runHooks(hooks);
      job.resolve(value);
    }
  }

  async function drain() {
    try {
      while (queue.length > 0) await runBatch();
    } finally {
      active = false;
    }
  }

  return {
    /**
     * Queues `work` for the next transaction and resolves with its result once that transaction has committed.
     * The first write after a quiet spell starts in the next turn of the event loop, so the writes whose requests
     * arrived together are committed together.
     */
    run<T>(work: Work<T>, footprint?: string): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, footprint, resolve: resolve, reject });
        if (!active) {
          active = true;
          setImmediate(() => void drain());
        }
      });
    },
  };
}
