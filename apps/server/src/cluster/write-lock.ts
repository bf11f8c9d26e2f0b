// SQLite's write lock taken in turns by the workers. A worker asks the primary for the turn before BEGIN IMMEDIATE;
// once it has the turn it keeps it — no message at all while nobody else writes — until the primary says another
// worker waits, and then hands it over as soon as its transaction ends (at once when idle). Polling the lock across
// processes (every failed BEGIN an exception and a timer) cost more CPU than the writes; a turn costs three small
// messages, and the writes that queue meanwhile are committed together. (Keeping the turn for a time slice was
// slower: the other worker, whose requests all waited on the lock, sat idle for the slice.)
import type { PrimaryLink } from './messages.ts';

/** The writer connection's gate (db/sqlite-adapter.ts): the turn before each write transaction, `done` after it. */
export interface WriteGate {
  /** Resolves true once this process has the turn, false if it did not come within `timeoutMs`. */
  acquire(timeoutMs: number): Promise<boolean>;
  /** The transaction that `acquire` preceded has ended. */
  release(): void;
}

export function clusterWriteLock(link: PrimaryLink): WriteGate {
  let nextTicket = 1;
  const waiting = new Map<number, (granted: boolean) => void>();
  let holding = false;
  let wanted = false;
  let inTransaction = false;

  function handOver() {
    holding = false;
    wanted = false;
    link.send({ at: 'lock:release' });
  }

  /** Hands the turn over if another worker waits and no transaction of ours is running. */
  function maybeHandOver() {
    if (holding && wanted && !inTransaction) handOver();
  }

  link.onMessage((message) => {
    if (message.at === 'lock:granted') {
      const resolve = waiting.get(message.ticket);
      waiting.delete(message.ticket);
      holding = true;
      // A turn for a request that timed out meanwhile is handed straight back.
      if (resolve) resolve(true);
      else handOver();
    } else if (message.at === 'lock:wanted') {
      wanted = true;
      maybeHandOver();
    }
  });

  return {
    acquire(timeoutMs) {
      if (holding) {
        inTransaction = true;
        return Promise.resolve(true);
      }
      const ticket = nextTicket++;
      return new Promise<boolean>((resolve) => {
        const expiry = setTimeout(() => {
          if (!waiting.delete(ticket)) return;
          link.send({ at: 'lock:cancel', ticket });
          resolve(false);
        }, timeoutMs);
        waiting.set(ticket, (granted) => {
          clearTimeout(expiry);
          inTransaction = granted;
          resolve(granted);
        });
        link.send({ at: 'lock:want', ticket });
      });
    },
    release() {
      inTransaction = false;
      maybeHandOver();
    },
  };
}
