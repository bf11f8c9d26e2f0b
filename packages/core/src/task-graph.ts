// Seed 001's graph rules on the graph module: edge checks with cycle detection by local walk, readiness, waves and
// the critical path.
import type { TaskStatus } from '@agent-tasks/schema';
import { DomainError } from './errors.ts';
import { criticalPath, cycleThroughEdge, type Edge, waves } from './graph.ts';
import type { TaskEdge } from './records.ts';

export const RESOLVED: readonly TaskStatus[] = ['completed', 'deleted'];
export const isResolved = (status: TaskStatus) => RESOLVED.includes(status);

export const cycleText = (path: readonly string[]) => path.join(' → ');

/** A task edge as the graph module's pair: the blocker comes before what it blocks. */
export const edgeOf = (e: TaskEdge): Edge<string> => [e.blockerId, e.blockedId];

/**
 * Would the edge blocker → blocked close a cycle? Walks "blocks" edges from `blocked`, one query per step of
 * depth, touching only the part of the graph reachable from it. Returns the cycle (starting and ending at
 * `blocked`) or null.
 */
export function cycleClosedBy(
  blocker: string,
  blocked: string,
  blocksOf: (ids: readonly string[]) => Promise<TaskEdge[]>,
): Promise<string[] | null> {
  return cycleThroughEdge(blocker, blocked, async (ids) => (await blocksOf(ids)).map(edgeOf));
}

export function selfDependencyError(id: string) {
  return new DomainError('INVALID_DEPENDENCY', `Error: invalid dependency: ${id} cannot depend on itself.`);
}

export function cycleError(cycle: readonly string[]) {
  return new DomainError('INVALID_DEPENDENCY', `Error: invalid dependency: it would close a cycle ${cycleText(cycle)}.`, {
    cycle: [...cycle],
  });
}

/** A task with an unresolved blocker cannot be moved to in_progress or completed. */
export function checkStatusMove(id: string, to: TaskStatus, unresolved: readonly string[]) {
  if ((to === 'in_progress' || to === 'completed') && unresolved.length > 0) {
    throw new DomainError(
      'TASK_BLOCKED',
      `Error: task ${id} is blocked by ${unresolved.join(', ')}; it cannot be ${to === 'completed' ? 'completed' : 'started'} until ${unresolved.length === 1 ? 'it is' : 'they are'} completed.`,
      { blockedBy: [...unresolved] },
    );
  }
}

/** Ready: pending, unowned or owned by `agent`, and no unresolved blocker. */
export function isReady(task: { status: TaskStatus; owner: string | null }, unresolved: readonly string[], agent: string | null) {
  return task.status === 'pending' && (task.owner === null || task.owner === agent) && unresolved.length === 0;
}

/**
 * The remaining graph as waves (tasks that can run together, in order) and its critical path, the longest chain of
 * dependent tasks. `ids` are in creation order, which orders each wave and breaks ties; edges to tasks outside
 * `ids` (already resolved) are ignored.
 */
export function parallelPlan(ids: readonly string[], edges: readonly TaskEdge[]) {
  const pairs = edges.map(edgeOf);
  const path = criticalPath(ids, pairs);
  return { waves: waves(ids, pairs), criticalPath: path, criticalPathLength: path.length };
}

/** Merges a metadata patch: keys set to null are removed. */
export function mergeMetadata(current: Record<string, unknown>, patch: Record<string, unknown>) {
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}
