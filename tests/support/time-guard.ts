// Time in a test is a failure guard, never a target: a bound far past what the behaviour is built for, so a busy
// machine (a second suite beside this one, a laptop) cannot fail it, while a hang or a lost wake-up still does.
// The targets themselves (latencies, throughput) are measured by `pnpm bench` (tests/bench/), not asserted here.

/** How far a guard is past its target: `TEST_TIME_GUARD` times (default 10; 1 makes the guards the targets again). */
export const GUARD_FACTOR = Math.max(1, Number(process.env.TEST_TIME_GUARD) || 10);

/** The bound to assert for a behaviour whose target is `targetMs`: the target times GUARD_FACTOR. */
export const guardMs = (targetMs: number) => targetMs * GUARD_FACTOR;
