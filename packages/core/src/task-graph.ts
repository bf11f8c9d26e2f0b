// Seed 001's graph rules: edge checks with cycle detection by local walk, readiness, waves and the critical path.
import type { TaskStatus } from '@agent-tasks/schema';
import { DomainError } from './errors.ts';
import type { TaskEdge } from './records.ts';

export const RESOLVED: readonly TaskStatus[] = ['completed', 'deleted'];
export const isResolved = (status: TaskStatus) => RESOLVED.includes(status);

export const cycleText = (path: readonly string[]) => path.join(' → ');

/**
 * Would the edge blocker → blocked close a cycle? Walks "blocks" edges from `blocked`, one query per step of
 * depth, touching only the part of the graph reachable from it. Returns the cycle (starting and ending at
 * `blocked`) or null.
 */
export async function findCycle(
  blocker: string,
  blocked: string,
  blocksOf: (ids: readonly string[]) => Promise<TaskEdge[]>,
): Promise<string[] | null> {
  if (blocker === blocked) return [blocked, blocked];
  const cameFrom = new Map<string, string | null>([[blocked, null]]);
  let frontier = [blocked];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const edge of await blocksOf(frontier)) {
      if (cameFrom.has(edge.blockedId)) continue;
      cameFrom.set(edge.blockedId, edge.blockerId);
      if (edge.blockedId === blocker) {
        const path = [blocker];
        for (let at = cameFrom.get(blocker); at; at = cameFrom.get(at)) path.unshift(at);
        return [...path, blocked];
      }
      next.push(edge.blockedId);
    }
    frontier = next;
  }
  return null;
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
  const present = new Set(ids);
  const order = new Map(ids.map((id, i) => [id, i]));
  const blocks = new Map<string, string[]>(ids.map((id) => [id, []]));
  const waiting = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const { blockerId, blockedId } of edges) {
    if (!present.has(blockerId) || !present.has(blockedId)) continue;
    blocks.get(blockerId)?.push(blockedId);
    waiting.set(blockedId, (waiting.get(blockedId) ?? 0) + 1);
  }
  const depth = new Map<string, number>();
  const via = new Map<string, string>();
  const waves: string[][] = [];
  let wave = ids.filter((id) => waiting.get(id) === 0);
  while (wave.length > 0) {
    waves.push(wave);
    const next: string[] = [];
    for (const id of wave) {
      for (const dependant of blocks.get(id) ?? []) {
        const d = (depth.get(id) ?? 0) + 1;
        if (d > (depth.get(dependant) ?? 0)) {
          depth.set(dependant, d);
          via.set(dependant, id);
        }
        const left = (waiting.get(dependant) ?? 0) - 1;
        waiting.set(dependant, left);
        if (left === 0) next.push(dependant);
      }
    }
    wave = next.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  }
  let end: string | undefined;
  for (const id of ids) if (end === undefined || (depth.get(id) ?? 0) > (depth.get(end) ?? 0)) end = id;
  const criticalPath: string[] = [];
  for (let at = end; at !== undefined; at = via.get(at)) criticalPath.unshift(at);
  return { waves, criticalPath, criticalPathLength: criticalPath.length };
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
