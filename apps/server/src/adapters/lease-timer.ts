// The server's lease timer: returns tasks whose claim lease ran out, at that moment, with no client polling. It wakes at
// the end of the soonest lease this process knows of (on the domain clock, so a test's manual clock drives it), and
// looks in the database at least every `sweepMs` for leases given by other workers or replicas. Expiry reads each
// lease again in its own transaction, so processes acting on the same lease return the task once.
import { type Deps, trust } from '@agent-tasks/core';
import type { Logger } from '../logger.ts';

export interface LeaseTimer {
  /** A lease given or renewed here ends at `at`: wake then (sooner than planned, if it is). */
  scheduled(at: Date): void;
  /** Returns the leases due now and resolves when done (tests on a manual clock, the timer itself). */
  expireDue(): Promise<number>;
  stop(): Promise<void>;
}

export function leaseTimer(deps: Deps, log: Logger, options: { sweepMs?: number } = {}): LeaseTimer {
  const sweepMs = options.sweepMs ?? 2_000;
  let stopped = false;
  let running: Promise<number> | null = null;
  let again = false;
  let wake: { at: number; cancel(): void } | null = null;
  const sweep = setInterval(() => void expireDue(), sweepMs);
  sweep.unref();

  const expireDue = (): Promise<number> => {
    if (stopped) return Promise.resolve(0);
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let total = 0;
      try {
        do {
          again = false;
          total += await trust.expireLeases(deps);
        } while (again && !stopped);
        const next = await deps.store.trust.nextLeaseExpiry();
        if (next) plan(next);
      } catch (error) {
        log.warn({ err: error }, 'lease expiry failed; the next sweep tries again');
      } finally {
        running = null;
      }
      return total;
    })();
    return running;
  };

  function plan(at: Date) {
    if (stopped) return;
    const when = at.getTime();
    if (wake && wake.at <= when) return;
    wake?.cancel();
    const fire = () => {
      wake = null;
      void expireDue();
    };
    if (deps.clock.schedule) {
      const handle = deps.clock.schedule(at, fire);
      wake = { at: when, cancel: () => handle.cancel() };
    } else {
      const timer = setTimeout(fire, Math.max(0, when - deps.clock.now().getTime()));
      timer.unref();
      wake = { at: when, cancel: () => clearTimeout(timer) };
    }
  }

  void expireDue();
  return {
    scheduled: plan,
    expireDue,
    async stop() {
      stopped = true;
      clearInterval(sweep);
      wake?.cancel();
      await running;
    },
  };
}
