// Load shedding: at most `concurrency` API requests are worked on at once; the rest wait in one first-come-first-served
// line, and one that would wait longer than `maxWaitMs` (or finds `maxQueue` ahead of it) is answered 503 with
// Retry-After at once, instead of an unbounded wait. Live streams and health checks do not take a place.
export interface AdmissionLimits {
  concurrency: number;
  maxWaitMs: number;
  maxQueue: number;
}

export interface Admission {
  /** Resolves with a release function once the request may run, or with null when it is shed. */
  enter(): Promise<(() => void) | null>;
  stats(): { running: number; waiting: number; shed: number };
}

export function admission(limits: AdmissionLimits): Admission {
  let running = 0;
  let shed = 0;
  const line: { admit: () => void; timer: NodeJS.Timeout }[] = [];

  const release = () => {
    running -= 1;
    const next = line.shift();
    if (next) {
      clearTimeout(next.timer);
      running += 1;
      next.admit();
    }
  };
  const once = () => {
    let done = false;
    return () => {
      if (!done) {
        done = true;
        release();
      }
    };
  };

  return {
    enter() {
      if (running < limits.concurrency && line.length === 0) {
        running += 1;
        return Promise.resolve(once());
      }
      if (line.length >= limits.maxQueue) {
        shed += 1;
        return Promise.resolve(null);
      }
      return new Promise((resolve) => {
        const entry = {
          admit: () => resolve(once()),
          timer: setTimeout(() => {
            const at = line.indexOf(entry);
            if (at >= 0) line.splice(at, 1);
            shed += 1;
            resolve(null);
          }, limits.maxWaitMs),
        };
        line.push(entry);
      });
    },
    stats: () => ({ running, waiting: line.length, shed }),
  };
}
