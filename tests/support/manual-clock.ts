// A clock that stands still until a test moves it: the app's time for records, retry backoff and stream tickets, so a
// test advances past a delay instead of sleeping through it.
import type { Clock } from '@agent-tasks/core';

export interface ManualClock extends Clock {
  /** Moves the time on by `ms`. */
  advance(ms: number): void;
}

export function manualClock(start = new Date()): ManualClock {
  let at = start.getTime();
  return {
    now: () => new Date(at),
    advance: (ms) => void (at += ms),
  };
}
