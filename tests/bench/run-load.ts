// Drives an operation from N parallel workers, each running its operations one after another; warm-up, then timed.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { summarize, type Summary } from './stats.ts';

export interface LoadOptions {
  workers: number;
  warmupPerWorker: number;
  perWorker: number;
  /** One operation; `step` counts this worker's operations from 0, warm-up included. */
  op: (worker: number, step: number) => unknown;
}

async function phase(options: LoadOptions, from: number, count: number, latencies: number[] | null) {
  await Promise.all(
    Array.from({ length: options.workers }, async (_, worker) => {
      for (let step = from; step < from + count; step++) {
        const start = performance.now();
        const result = options.op(worker, step);
        // A synchronous op (raw SQLite) is timed on its own; workers then take turns, as sessions would.
        if (result instanceof Promise) await result;
        latencies?.push(performance.now() - start);
        if (!(result instanceof Promise)) await Promise.resolve();
        // Synchronous ops would otherwise starve timers and sockets (keep-alive) for the whole phase.
        if (step % 32 === 31) await yieldToLoop();
      }
    }),
  );
}

/** Lets due timers and socket events run, e.g. keep-alive timeouts after a long synchronous phase. */
export const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 100));

export async function runLoad(options: LoadOptions): Promise<Summary> {
  await settle();
  await phase(options, 0, options.warmupPerWorker, null);
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await phase(options, options.warmupPerWorker, options.perWorker, latencies);
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return summarize(latencies, wallMs, (cpu.user + cpu.system) / 1000);
}
