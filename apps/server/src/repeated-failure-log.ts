// Background loops that fail on every round while the database does not answer (the revocation poll every 100 ms,
// the outbox pass every 250 ms, the LISTEN reconnection every second): one log line per window, not one per round.
import type { Logger } from './logger.ts';

/** Logs a loop's failure with its error at most once per `windowMs`; the next line counts those left out (`repeated`). */
export function repeatedFailureLog(log: Logger, level: 'warn' | 'error', message: string, windowMs = 10_000, now = Date.now) {
  let loggedAt = -Infinity;
  let leftOut = 0;
  return (error: unknown) => {
    const at = now();
    if (at - loggedAt < windowMs) {
      leftOut += 1;
      return;
    }
    log[level]({ err: error, ...(leftOut > 0 ? { repeated: leftOut } : {}) }, message);
    loggedAt = at;
    leftOut = 0;
  };
}
