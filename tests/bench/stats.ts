// Latency and throughput figures from a run's samples: percentiles, writes per second, CPU per operation.
export interface Summary {
  ops: number;
  perSecond: number;
  p50: number;
  p99: number;
  mean: number;
  /** Process CPU time (user + system, client and server together) per operation, in ms. */
  cpuMsPerOp: number | null;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export function summarize(latenciesMs: readonly number[], wallMs: number, cpuMs: number | null = null): Summary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const ops = sorted.length;
  return {
    ops,
    perSecond: ops / (wallMs / 1000),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, ops),
    cpuMsPerOp: cpuMs === null ? null : cpuMs / Math.max(1, ops),
  };
}
