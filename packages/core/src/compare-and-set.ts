// The one retry loop for optimistic writes: a transaction whose compare-and-set on a version lost to a concurrent
// writer is run again from the start, a few times, then refused with the caller's text.
import { DomainError } from './errors.ts';

/** Thrown inside a transaction when a compare-and-set on a version found another writer's version. */
export class LostRace extends Error {}

/** How many times a write is tried before its conflict is answered. */
export const MAX_ATTEMPTS = 5;

/**
 * Runs `work` (one whole transaction, read to write) until it ends without losing a race, at most `MAX_ATTEMPTS`
 * times; then throws a `CONFLICT` with `conflictText`. Any other error passes through at once.
 */
export async function retryLostRaces<T>(conflictText: string, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof LostRace)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new DomainError('CONFLICT', conflictText);
    }
  }
}
