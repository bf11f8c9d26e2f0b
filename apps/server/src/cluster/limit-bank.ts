// The primary's side of the limits the workers share (http/shared-limits.ts). A pool's units are lent to the workers as
// credit: a worker uses what it holds without a message, and asks for more when it runs out. When none is free, every
// worker is asked to give back what it does not use (and to go on giving back what it frees while someone waits); a
// request that cannot wait is refused only once all have answered. Counts (live streams) are taken one open at a time.
// A worker's credit and counts come back when it goes. Knows workers only by id and a send function.
import type { ToPrimary, ToWorker } from './messages.ts';

interface Want {
  worker: number;
  ask: number;
  amount: number;
  /** Lent besides when free (a body's next bytes), never a reason to wait. */
  more: number;
  /** A request in line waits for its unit; one that cannot wait (a body's bytes) is refused after a round. */
  wait: boolean;
  /** Whether a round of asking back started after it came: only then may a want that cannot wait be refused. */
  covered: boolean;
}

interface Pool {
  limit: number;
  free: number;
  lent: Map<number, number>;
  wants: Want[];
  /** The round under way: the workers yet to answer it, and its deadline (a worker silent past it has nothing spare). */
  round: { id: number; left: Set<number>; deadline: NodeJS.Timeout } | null;
  /** Whether the workers were told that someone waits (they give back what they free until told it is over). */
  demand: boolean;
}

/** How long a round waits for a worker's answer (one that is starting or stopping may never answer). */
const ROUND_DEADLINE_MS = 1_000;

export function createLimitBank(
  limits: Record<string, number>,
  send: (worker: number, message: ToWorker) => void,
  /** How many workers the server runs: each is lent its part of every pool when it starts. */
  expected = 1,
) {
  /** The workers that said they hear the limits' messages (`credit:hello`), until they go. */
  const workers = new Set<number>();
  const pools = new Map<string, Pool>(
    Object.entries(limits).map(([name, limit]) => [name, { limit, free: limit, lent: new Map(), wants: [], round: null, demand: false }]),
  );
  /** A worker's fair part of a pool while someone waits. */
  const shareOf = (pool: Pool) => Math.ceil(pool.limit / Math.max(1, workers.size));
  let nextRound = 1;
  /** Counts by key, and what each worker holds of them. */
  const counts = new Map<string, number>();
  const heldBy = new Map<number, Map<string, number>>();

  function grant(name: string, pool: Pool, want: Want) {
    const amount = want.amount + Math.min(want.more, pool.free - want.amount);
    pool.free -= amount;
    pool.lent.set(want.worker, (pool.lent.get(want.worker) ?? 0) + amount);
    send(want.worker, { at: 'credit:grant', pool: name, ask: want.ask, ok: true, amount });
  }

  const refuse = (name: string, want: Want) => send(want.worker, { at: 'credit:grant', pool: name, ask: want.ask, ok: false, amount: 0 });

  /** Grants what fits; then asks the workers back for the rest, or tells them no one waits any more. */
  function serve(name: string, pool: Pool) {
    const grantIf = (first: boolean) => (want: Want) => {
      if (want.amount > pool.free || (first && (pool.lent.get(want.worker) ?? 0) >= shareOf(pool))) return true;
      grant(name, pool, want);
      return false;
    };
    // While someone waits, the workers under their fair part are served first, in order; then the rest.
    if (pool.demand) pool.wants = pool.wants.filter(grantIf(true));
    pool.wants = pool.wants.filter(grantIf(false));
    if (pool.wants.length === 0) {
      if (pool.demand) {
        pool.demand = false;
        for (const id of workers) send(id, { at: 'credit:calm', pool: name });
      }
      return;
    }
    // A round for wants no round has covered yet (the rest wait for units given back).
    if (pool.round || pool.wants.every((want) => want.covered)) return;
    const id = nextRound++;
    const deadline = setTimeout(() => pool.round?.id === id && endRound(name, pool), ROUND_DEADLINE_MS);
    deadline.unref();
    pool.round = { id, left: new Set(workers), deadline };
    pool.demand = true;
    for (const want of pool.wants) want.covered = true;
    const share = shareOf(pool);
    for (const worker of workers) send(worker, { at: 'credit:reclaim', pool: name, round: id, share });
    if (workers.size === 0) endRound(name, pool);
  }

  /** Every worker answered the round: what still does not fit and cannot wait is refused; the rest wait on. */
  function endRound(name: string, pool: Pool) {
    if (pool.round) clearTimeout(pool.round.deadline);
    pool.round = null;
    pool.wants = pool.wants.filter((want) => {
      if (want.amount <= pool.free) {
        grant(name, pool, want);
        return false;
      }
      if (want.wait || !want.covered) return true;
      refuse(name, want);
      return false;
    });
    serve(name, pool);
  }

  function returned(name: string, pool: Pool, worker: number, amount: number, round: number | undefined) {
    const lent = pool.lent.get(worker) ?? 0;
    const back = Math.min(amount, lent);
    pool.free += back;
    if (lent - back > 0) pool.lent.set(worker, lent - back);
    else pool.lent.delete(worker);
    if (pool.round && round === pool.round.id) pool.round.left.delete(worker);
    if (pool.round && pool.round.left.size === 0) endRound(name, pool);
    else serve(name, pool);
  }

  /** A worker that said it hears the limits' messages: lent its part of each pool at once (its first requests need no
   * message). */
  function add(worker: number) {
    workers.add(worker);
    for (const [name, pool] of pools) {
      // While someone waits, it gives back what it frees too.
      if (pool.demand) {
        send(worker, { at: 'credit:reclaim', pool: name, round: 0, share: shareOf(pool) });
        continue;
      }
      const amount = Math.min(Math.ceil(pool.limit / Math.max(1, expected)), pool.free);
      if (amount <= 0) continue;
      pool.free -= amount;
      pool.lent.set(worker, (pool.lent.get(worker) ?? 0) + amount);
      send(worker, { at: 'credit:grant', pool: name, ask: 0, ok: true, amount });
    }
  }

  /** A worker that went (or is going): what it held is free again. */
  function remove(worker: number) {
    workers.delete(worker);
    for (const [name, pool] of pools) {
      pool.wants = pool.wants.filter((want) => want.worker !== worker);
      pool.round?.left.delete(worker);
      const lent = pool.lent.get(worker) ?? 0;
      pool.lent.delete(worker);
      pool.free += lent;
      if (pool.round && pool.round.left.size === 0) endRound(name, pool);
      else serve(name, pool);
    }
    for (const [key, held] of heldBy.get(worker) ?? []) {
      const left = (counts.get(key) ?? 0) - held;
      if (left > 0) counts.set(key, left);
      else counts.delete(key);
    }
    heldBy.delete(worker);
  }

  return {
    add,
    remove,
    /** Handles a limit's message; false for any other. */
    receive(from: number, message: ToPrimary): boolean {
      switch (message.at) {
        case 'credit:hello':
          add(from);
          return true;
        case 'credit:cancel': {
          const pool = pools.get(message.pool);
          const at = pool?.wants.findIndex((want) => want.worker === from && want.ask === message.ask) ?? -1;
          // Still waiting: dropped, and answered so. Already lent: the grant on its way is the answer.
          if (pool && at >= 0) refuse(message.pool, pool.wants.splice(at, 1)[0] as Want);
          if (pool) serve(message.pool, pool);
          return true;
        }
        case 'credit:want': {
          const pool = pools.get(message.pool);
          if (!pool) return true;
          pool.wants.push({
            worker: from,
            ask: message.ask,
            amount: message.amount,
            more: message.more ?? 0,
            wait: message.wait,
            // While the workers know someone waits they give back what they free: a request in line needs no round.
            covered: message.wait && pool.demand,
          });
          serve(message.pool, pool);
          return true;
        }
        case 'credit:return': {
          const pool = pools.get(message.pool);
          if (pool) returned(message.pool, pool, from, message.amount, message.round);
          return true;
        }
        case 'count:take': {
          const refused = message.keys.findIndex((key, i) => (counts.get(key) ?? 0) + 1 > (message.caps[i] ?? 0));
          if (refused === -1) {
            const mine = heldBy.get(from) ?? new Map<string, number>();
            heldBy.set(from, mine);
            for (const key of message.keys) {
              counts.set(key, (counts.get(key) ?? 0) + 1);
              mine.set(key, (mine.get(key) ?? 0) + 1);
            }
          }
          const count = refused === -1 ? 0 : (counts.get(message.keys[refused] as string) ?? 0);
          send(from, { at: 'count:answer', ask: message.ask, refused, count });
          return true;
        }
        case 'count:give': {
          const mine = heldBy.get(from);
          for (const key of message.keys) {
            const held = mine?.get(key) ?? 0;
            if (held === 0) continue;
            if (held > 1) mine?.set(key, held - 1);
            else mine?.delete(key);
            const left = (counts.get(key) ?? 0) - 1;
            if (left > 0) counts.set(key, left);
            else counts.delete(key);
          }
          return true;
        }
        default:
          return false;
      }
    },
    /** Free units of a pool, and counts (for tests). */
    free: (name: string) => pools.get(name)?.free,
    count: (key: string) => counts.get(key) ?? 0,
  };
}
