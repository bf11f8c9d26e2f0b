// A worker's side of the limits the workers share (cluster/limit-bank.ts): the credit the primary lent it for each pool,
// used without a message while it lasts and kept for the next request, given back when the primary says someone else
// waits; and counts taken through the primary, one open at a time.
import type { RequestPools } from '../http/request-pipeline.ts';
import type { LimitPool, SharedCounts } from '../http/shared-limits.ts';
import type { PrimaryLink } from './messages.ts';

/** The pools' names on the wire, and the configuration each one's limit comes from (cluster/primary.ts). */
export const POOLS = ['admission', 'unauthenticated', 'bytes', 'unauthenticatedBodies'] as const;
export type PoolName = (typeof POOLS)[number];

function creditPool(link: PrimaryLink, name: PoolName, answers: Map<number, (ok: boolean) => void>, nextAsk: () => number) {
  /** Lent by the primary, and of it in use. */
  let credit = 0;
  let used = 0;
  /** Whether someone waits elsewhere: what is freed here goes back. */
  let demand = false;
  let returning = false;

  function giveBack(round?: number) {
    const spare = credit - used;
    if (spare <= 0 && round === undefined) return;
    credit -= Math.max(spare, 0);
    link.send({ at: 'credit:return', pool: name, amount: Math.max(spare, 0), ...(round === undefined ? {} : { round }) });
  }

  /** After this turn's work (a request in line here takes a freed unit first), what is spare goes back. */
  function giveBackSoon() {
    if (!demand || returning) return;
    returning = true;
    queueMicrotask(() => {
      returning = false;
      if (demand) giveBack();
    });
  }

  function ask(amount: number, wait: boolean, done: (ok: boolean) => void) {
    const id = nextAsk();
    answers.set(id, (ok) => {
      if (ok) credit += amount;
      done(ok);
    });
    link.send({ at: 'credit:want', pool: name, amount, ask: id, wait });
  }

  const pool: LimitPool = {
    take(amount) {
      if (used + amount > credit) return false;
      used += amount;
      return true;
    },
    takeShared(amount) {
      return new Promise<boolean>((resolve) =>
        ask(amount, false, (ok) => {
          if (ok) used += amount;
          resolve(ok);
        }),
      );
    },
    want(ready) {
      ask(1, true, () => {
        ready();
        giveBackSoon();
      });
    },
    give(amount) {
      used -= amount;
      giveBackSoon();
    },
  };
  return {
    pool,
    reclaim(round: number) {
      demand = true;
      giveBack(round === 0 ? undefined : round);
    },
    calm() {
      demand = false;
    },
  };
}

/** The request path's pools, held for all workers by the primary. */
export function clusterPools(link: PrimaryLink): RequestPools {
  const answers = new Map<number, (ok: boolean) => void>();
  let last = 0;
  const nextAsk = () => ++last;
  const pools = new Map(POOLS.map((name) => [name, creditPool(link, name, answers, nextAsk)]));
  link.onMessage((message) => {
    if (message.at === 'credit:grant') {
      const answer = answers.get(message.ask);
      answers.delete(message.ask);
      answer?.(message.ok);
    } else if (message.at === 'credit:reclaim') pools.get(message.pool as PoolName)?.reclaim(message.round);
    else if (message.at === 'credit:calm') pools.get(message.pool as PoolName)?.calm();
  });
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
