// A worker's side of the limits the workers share (cluster/limit-bank.ts): the credit the primary lent it for each pool,
// used without a message while it lasts and kept for the next request; while someone else waits, what it frees past its
// fair part goes back at once and the rest once its own line has taken what it can. Counts are taken through the
// primary, one open at a time.
import type { RequestPools } from '../http/request-pipeline.ts';
import type { LimitPool, SharedCounts } from '../http/shared-limits.ts';
import type { PrimaryLink } from './messages.ts';

/** The pools' names on the wire, and the configuration each one's limit comes from (cluster/primary.ts). */
export const POOLS = ['admission', 'unauthenticated', 'bytes', 'unauthenticatedBodies'] as const;
export type PoolName = (typeof POOLS)[number];

/** Bytes asked for beyond a chunk's own, so that a body's next chunks need no message. */
const BYTES_AHEAD = 256 * 1024;

interface Asked {
  /** Told the answer; null once the request no longer needs it (its unit, if lent, stays as spare). */
  done: ((ok: boolean) => void) | null;
}

function creditPool(link: PrimaryLink, name: PoolName, nextAsk: () => number) {
  /** Lent by the primary, and of it in use. */
  let credit = 0;
  let used = 0;
  /** Whether someone waits elsewhere (what is freed here goes back), and this worker's fair part of the pool then. */
  let demand = false;
  let share = Number.POSITIVE_INFINITY;
  let returning = false;
  /** Requests in this worker's own line: the units they will take are not spare. */
  let waiting = 0;
  const pending = new Map<number, Asked>();
  const spare = () => Math.max(credit - used - waiting, 0);

  function giveBack(amount: number, round?: number) {
    credit -= amount;
    link.send({ at: 'credit:return', pool: name, amount, ...(round === undefined ? {} : { round }) });
  }

  /** Once this turn's line has taken what it can, what is spare goes back (never what the line still waits for: a
   * request lent its unit while this turn's starts were used up takes it at the next turn). */
  function giveBackLater() {
    if (!demand || returning) return;
    returning = true;
    setImmediate(() => {
      returning = false;
      if (demand && spare() > 0) giveBack(spare());
    });
  }

  function ask(amount: number, wait: boolean, done: (ok: boolean) => void, more = 0): number {
    const id = nextAsk();
    pending.set(id, { done });
    link.send({ at: 'credit:want', pool: name, amount, ask: id, wait, ...(more > 0 ? { more } : {}) });
    return id;
  }

  const pool: LimitPool = {
    take(amount) {
      if (used + amount > credit) return false;
      used += amount;
      return true;
    },
    takeShared(amount) {
      return new Promise<boolean>((resolve) =>
        ask(
          amount,
          false,
          (ok) => {
            if (ok) used += amount;
            resolve(ok);
          },
          name === 'bytes' ? BYTES_AHEAD : 0,
        ),
      );
    },
    want(ready) {
      waiting += 1;
      const id = ask(1, true, () => ready());
      let left = false;
      return () => {
        if (left) return;
        left = true;
        waiting -= 1;
        const asked = pending.get(id);
        if (asked?.done) {
          asked.done = null;
          link.send({ at: 'credit:cancel', pool: name, ask: id });
        }
        giveBackLater();
      };
    },
    give(amount) {
      used -= amount;
      if (!demand) return;
      // Someone waits elsewhere: what this worker holds past its fair part goes back before its own line takes it.
      const excess = Math.min(credit - used, credit - share);
      if (excess > 0) giveBack(excess);
      giveBackLater();
    },
  };
  return {
    pool,
    answered(ask: number, ok: boolean, amount: number) {
      const asked = pending.get(ask);
      pending.delete(ask);
      if (ok) credit += amount;
      asked?.done?.(ok);
      giveBackLater();
    },
    reclaim(round: number, fair: number) {
      demand = true;
      share = fair;
      const amount = spare();
      if (amount > 0 || round !== 0) giveBack(amount, round === 0 ? undefined : round);
    },
    calm() {
      demand = false;
      share = Number.POSITIVE_INFINITY;
    },
  };
}

/** The request path's pools, held for all workers by the primary. */
export function clusterPools(link: PrimaryLink): RequestPools {
  let last = 0;
  const nextAsk = () => ++last;
  const pools = new Map(POOLS.map((name) => [name, creditPool(link, name, nextAsk)]));
  link.onMessage((message) => {
    if (message.at === 'credit:grant') pools.get(message.pool as PoolName)?.answered(message.ask, message.ok, message.amount);
    else if (message.at === 'credit:reclaim') pools.get(message.pool as PoolName)?.reclaim(message.round, message.share);
    else if (message.at === 'credit:calm') pools.get(message.pool as PoolName)?.calm();
  });
  // Only now does this worker hear the primary's asks: until it says so, it is not asked (and holds nothing).
  link.send({ at: 'credit:hello' });
  const of = (name: PoolName) => (pools.get(name) as ReturnType<typeof creditPool>).pool;
  return {
    admission: of('admission'),
    unauthenticated: of('unauthenticated'),
    bytes: of('bytes'),
    unauthenticatedBodies: of('unauthenticatedBodies'),
  };
}

/** Counts kept by the primary for all workers (live streams). */
export function clusterCounts(link: PrimaryLink): SharedCounts {
  const answers = new Map<number, (answer: { refused: number; count: number } | null) => void>();
  let last = 0;
  link.onMessage((message) => {
    if (message.at !== 'count:answer') return;
    const answer = answers.get(message.ask);
    answers.delete(message.ask);
    answer?.(message.refused === -1 ? null : { refused: message.refused, count: message.count });
  });
  return {
    take(keys, caps) {
      const ask = ++last;
      return new Promise((resolve) => {
        answers.set(ask, resolve);
        link.send({ at: 'count:take', ask, keys, caps });
      });
    },
    give(keys) {
      link.send({ at: 'count:give', keys });
    },
  };
}
