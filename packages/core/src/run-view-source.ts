// A run's view told by where it comes from — the run as stored at a version, presented at a time — so that another
// process can make the same view from the store instead of receiving it (`serve --workers`: the writer's answers).
import type { RunView } from '@agent-tasks/schema';
import type { Deps } from './ports.ts';
import type { RunRecord } from './records.ts';
import { presentRun } from './run-present.ts';

/** The run (its workspace and id) at a stored version, and the time (ms since the epoch) its view was presented at. */
export interface RunViewSource {
  workspaceId: string;
  runId: string;
  version: number;
  at: number;
}

const sources = new WeakMap<object, RunViewSource>();

/** The view of `run`, which is the run as stored at its version (read, or just saved), presented at `at`: its source kept. */
export function presentStored(run: RunRecord, at: Date): RunView {
  const view = presentRun(run, at);
  sources.set(view, { workspaceId: run.workspaceId, runId: run.id, version: run.version, at: at.getTime() });
  return view;
}

/** Where a view made by `presentStored` comes from; undefined for anything else. */
export const sourceOfView = (value: unknown): RunViewSource | undefined =>
  typeof value === 'object' && value !== null ? sources.get(value) : undefined;

/**
 * The view a source names, made again from the store: equal to the one presented then, as JSON. The run read as it is
 * now, or, when it has moved on since, rebuilt at the version (as a resent step's answer is); null when the store has
 * no such version (the source is from a store this one does not see).
 */
export async function viewFromSource(deps: Deps, source: RunViewSource): Promise<RunView | null> {
  const run = await deps.store.runs.get(source.workspaceId, source.runId);
  if (!run || run.version < source.version) return null;
  const then = run.version === source.version ? run : await deps.store.runs.atVersion(source.workspaceId, source.runId, source.version);
  return then ? presentRun(then, new Date(source.at)) : null;
}
