// The operator's limits as the request path holds them: pools of units held at once (admission's slots, the bodies and
// bytes being read) and counts taken per open (live streams). One process holds them as plain counters; with workers
// the primary keeps each limit for all of them (cluster/limit-bank.ts), so no limit grows with the number of processes.

/** Units held at once, at most a limit, all processes together. */
export interface LimitPool {
  /** Takes `amount` if this process may, at once (its own counter, or credit the primary lent it). */
  take(amount: number): boolean;
  /** With workers, after `take` said no: takes `amount` from what the others do not use (false: past the limit). */
  takeShared?(amount: number): Promise<boolean>;
  /** With workers: asks for one unit for a request waiting in line; `ready` is called once it may be here (`take` it
   * then, or at the next turn: one not taken goes back while another worker waits). Gives a cancel: the request left
   * the line (let in with another unit, or turned away). */
  want?(ready: () => void): () => void;
  /** Gives back what was taken. */
  give(amount: number): void;
}

/** A pool held by this process alone. */
export function localPool(limit: number): LimitPool {
  let held = 0;
  return {
    take(amount) {
      if (held + amount > limit) return false;
      held += amount;
      return true;
    },
    give(amount) {
      held -= amount;
    },
  };
}

/** Whether `amount` may be taken: here at once, else (with workers) from what the others do not use. */
export function takeFrom(pool: LimitPool, amount: number): boolean | Promise<boolean> {
  if (pool.take(amount)) return true;
  return pool.takeShared ? pool.takeShared(amount) : false;
}

/** A count kept for all processes (live streams): the first cap `take` would pass is refused. */
export interface SharedCounts {
  /** Adds one to each key's count unless one would pass its cap: then nothing is added, and the refusal says which. */
  take(keys: string[], caps: number[]): Promise<{ refused: number; count: number } | null>;
  give(keys: string[]): void;
}
