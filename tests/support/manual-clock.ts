// A clock that stands still until a test moves it: the app's time for records, retry backoff, stream tickets and claim
// leases, so a test advances past a delay instead of sleeping through it. Timers scheduled on it (a lease's end) fire
// when an advance reaches their time.
import type { Clock } from '@agent-tasks/core';

export interface ManualClock extends Clock {
  /** Moves the time on by `ms`, firing the timers it reaches. */
  advance(ms: number): void;
}

export function manualClock(start = new Date()): ManualClock {
  let at = start.getTime();
  let timers: { at: number; fn: () => void }[] = [];
  return {
    now: () => new Date(at),
    advance: (ms) => {
      at += ms;
      const due = timers.filter((t) => t.at <= at);
      timers = timers.filter((t) => t.at > at);
      for (const t of due) t.fn();
    },
    schedule: (when, fn) => {
      const timer = { at: when.getTime(), fn };
      if (timer.at <= at) queueMicrotask(fn);
      else timers.push(timer);
      return { cancel: () => void (timers = timers.filter((t) => t !== timer)) };
    },
  };
}
