// Counts the requests being answered, so a shutdown stops taking new ones and waits for these up to a deadline.
export interface InFlight {
  /** Registers a request; false once draining has begun (the caller answers 503). */
  enter(): boolean;
  leave(): void;
  /** Stops new requests and resolves when none is left, or at the deadline; tells how many were still running. */
  drain(deadlineMs: number): Promise<number>;
}

export function inFlightRequests(): InFlight {
  let count = 0;
  let draining = false;
  let idle: (() => void) | null = null;
  return {
    enter() {
      if (draining) return false;
      count += 1;
      return true;
    },
    leave() {
      count -= 1;
      if (count === 0) idle?.();
    },
    async drain(deadlineMs) {
      draining = true;
      if (count > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => (idle = resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs))),
        ]);
        clearTimeout(timer);
      }
      return count;
    },
  };
}
