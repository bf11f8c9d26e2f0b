// Unit tests of the pure task graph rules (seed 001): cycle detection by local walk, self edges, waves and the
// critical path, metadata merge, the blocked-status text and readiness.
import { describe, expect, it } from 'vitest';
import {
  RESOLVED,
  type TaskEdge,
  checkStatusMove,
  cycleError,
  cycleText,
  cycleClosedBy,
  isReady,
  isResolved,
  mergeMetadata,
  parallelPlan,
  selfDependencyError,
} from '../src/index.ts';
import { expectThrows } from './fixtures.ts';

/** `a>b` means a blocks b. */
const edges = (...pairs: string[]): TaskEdge[] =>
  pairs.map((p) => {
    const [blockerId, blockedId] = p.split('>');
    return { blockerId: blockerId!, blockedId: blockedId! };
  });

/** A blocksOf port over a fixed edge list that records every frontier it was asked about. */
function walker(all: TaskEdge[]) {
  const asked: string[][] = [];
  const blocksOf = async (ids: readonly string[]) => {
    asked.push([...ids]);
    return all.filter((e) => ids.includes(e.blockerId));
  };
  return { blocksOf, asked };
}

describe('cycleClosedBy', () => {
  it('direct: adding T-b as blocker of T-a when T-a blocks T-b names T-a → T-b → T-a', async () => {
    const { blocksOf } = walker(edges('T-a>T-b'));
    const cycle = await cycleClosedBy('T-b', 'T-a', blocksOf);
    expect(cycle).toEqual(['T-a', 'T-b', 'T-a']);
    expect(cycleText(cycle!)).toBe('T-a → T-b → T-a');
  });

  it('indirect: the path starts and ends at the blocked task and follows "blocks" edges', async () => {
    const { blocksOf } = walker(edges('T-a>T-b', 'T-b>T-c', 'T-c>T-d'));
    expect(await cycleClosedBy('T-d', 'T-a', blocksOf)).toEqual(['T-a', 'T-b', 'T-c', 'T-d', 'T-a']);
    expect(await cycleClosedBy('T-c', 'T-b', blocksOf)).toEqual(['T-b', 'T-c', 'T-b']);
  });

  it('names the shortest way round when there are several (breadth-first walk)', async () => {
    const { blocksOf } = walker(edges('T-a>T-b', 'T-b>T-c', 'T-a>T-c'));
    expect(await cycleClosedBy('T-c', 'T-a', blocksOf)).toEqual(['T-a', 'T-c', 'T-a']);
  });

  it('none: an edge along the existing direction, between unrelated tasks, or into a diamond closes nothing', async () => {
    const { blocksOf } = walker(edges('T-a>T-b', 'T-b>T-c', 'T-a>T-x', 'T-x>T-c'));
    expect(await cycleClosedBy('T-a', 'T-c', blocksOf)).toBeNull(); // a shortcut a → c
    expect(await cycleClosedBy('T-c', 'T-z', blocksOf)).toBeNull(); // a new leaf
    expect(await cycleClosedBy('T-z', 'T-a', blocksOf)).toBeNull(); // a new root
    expect(await cycleClosedBy('T-x', 'T-b', blocksOf)).toBeNull(); // across the diamond
    expect(await cycleClosedBy('T-a', 'T-b', blocksOf)).toBeNull(); // an edge that already exists
  });

  it('walks only what is reachable from the blocked task, one query per level', async () => {
    const { blocksOf, asked } = walker(edges('T-a>T-b', 'T-b>T-c', 'T-u>T-v', 'T-v>T-w'));
    expect(await cycleClosedBy('T-u', 'T-a', blocksOf)).toBeNull();
    expect(asked).toEqual([['T-a'], ['T-b'], ['T-c']]);
  });

  it('visits a task reachable two ways once', async () => {
    const { blocksOf, asked } = walker(edges('T-a>T-b', 'T-a>T-c', 'T-b>T-d', 'T-c>T-d', 'T-d>T-e'));
    expect(await cycleClosedBy('T-z', 'T-a', blocksOf)).toBeNull();
    expect(asked).toEqual([['T-a'], ['T-b', 'T-c'], ['T-d'], ['T-e']]);
  });

  it('self-dependency: a task as its own blocker is a cycle of one, without asking the graph', async () => {
    const { blocksOf, asked } = walker(edges('T-a>T-b'));
    expect(await cycleClosedBy('T-a', 'T-a', blocksOf)).toEqual(['T-a', 'T-a']);
    expect(asked).toEqual([]);
  });
});

describe('dependency refusals', () => {
  it('a self edge has its own text', () => {
    expectThrows(
      () => {
        throw selfDependencyError('T-a');
      },
      'INVALID_DEPENDENCY',
      'Error: invalid dependency: T-a cannot depend on itself.',
    );
  });

  it('a cycle is named in the text and given in the details', () => {
    const error = cycleError(['T-a', 'T-b', 'T-a']);
    expect(error).toMatchObject({
      code: 'INVALID_DEPENDENCY',
      message: 'Error: invalid dependency: it would close a cycle T-a → T-b → T-a.',
      details: { cycle: ['T-a', 'T-b', 'T-a'] },
    });
  });
});

describe('parallelPlan', () => {
  it('puts independent tasks in the first wave and each dependant after all its blockers, in order', () => {
    const plan = parallelPlan(['T-1', 'T-2', 'T-3', 'T-4'], edges('T-1>T-3', 'T-2>T-3', 'T-3>T-4'));
    expect(plan.waves).toEqual([['T-1', 'T-2'], ['T-3'], ['T-4']]);
    expect(plan.criticalPath).toEqual(['T-1', 'T-3', 'T-4']);
    expect(plan.criticalPathLength).toBe(3);
  });

  it('a dependant waits for its slowest blocker, not its first', () => {
    // T-1 → T-4 directly, and T-2 → T-3 → T-4: T-4 comes after T-3.
    const plan = parallelPlan(['T-1', 'T-2', 'T-3', 'T-4'], edges('T-1>T-4', 'T-2>T-3', 'T-3>T-4'));
    expect(plan.waves).toEqual([['T-1', 'T-2'], ['T-3'], ['T-4']]);
    expect(plan.criticalPath).toEqual(['T-2', 'T-3', 'T-4']);
    expect(plan.criticalPathLength).toBe(3);
  });

  it('orders each wave by creation order, not by the order edges were walked', () => {
    const plan = parallelPlan(['T-1', 'T-2', 'T-3', 'T-4'], edges('T-4>T-1', 'T-3>T-2'));
    expect(plan.waves).toEqual([
      ['T-3', 'T-4'],
      ['T-1', 'T-2'],
    ]);
  });

  it('ignores edges to tasks outside the set (already resolved)', () => {
    const plan = parallelPlan(['T-2', 'T-3'], edges('T-1>T-2', 'T-1>T-3', 'T-2>T-3', 'T-3>T-9'));
    expect(plan.waves).toEqual([['T-2'], ['T-3']]);
    expect(plan.criticalPath).toEqual(['T-2', 'T-3']);
    expect(plan.criticalPathLength).toBe(2);
  });

  it('a diamond: three waves, the critical path through the first-created branch', () => {
    const plan = parallelPlan(['T-a', 'T-b', 'T-c', 'T-d'], edges('T-a>T-b', 'T-a>T-c', 'T-b>T-d', 'T-c>T-d'));
    expect(plan.waves).toEqual([['T-a'], ['T-b', 'T-c'], ['T-d']]);
    expect(plan.criticalPath).toEqual(['T-a', 'T-b', 'T-d']);
    expect(plan.criticalPathLength).toBe(3);
  });

  it('a chain: one task per wave, the whole chain is critical', () => {
    const plan = parallelPlan(['T-a', 'T-b', 'T-c', 'T-d'], edges('T-c>T-d', 'T-a>T-b', 'T-b>T-c'));
    expect(plan.waves).toEqual([['T-a'], ['T-b'], ['T-c'], ['T-d']]);
    expect(plan.criticalPath).toEqual(['T-a', 'T-b', 'T-c', 'T-d']);
    expect(plan.criticalPathLength).toBe(4);
  });

  it('the longer of two chains is critical; between equal ones the first created wins', () => {
    const longer = parallelPlan(['T-1', 'T-2', 'T-3', 'T-4', 'T-5'], edges('T-1>T-2', 'T-3>T-4', 'T-4>T-5'));
    expect(longer.criticalPath).toEqual(['T-3', 'T-4', 'T-5']);
    const tie = parallelPlan(['T-1', 'T-2', 'T-3', 'T-4'], edges('T-3>T-4', 'T-1>T-2'));
    expect(tie.criticalPath).toEqual(['T-1', 'T-2']);
    expect(tie.criticalPathLength).toBe(2);
  });

  it('no edges: one wave, and the critical path is a single task', () => {
    expect(parallelPlan(['T-1', 'T-2'], [])).toEqual({ waves: [['T-1', 'T-2']], criticalPath: ['T-1'], criticalPathLength: 1 });
  });

  it('nothing left: no waves and an empty critical path', () => {
    expect(parallelPlan([], edges('T-1>T-2'))).toEqual({ waves: [], criticalPath: [], criticalPathLength: 0 });
  });

  it('every task appears in exactly one wave', () => {
    const ids = ['T-1', 'T-2', 'T-3', 'T-4', 'T-5', 'T-6'];
    const plan = parallelPlan(ids, edges('T-1>T-3', 'T-2>T-3', 'T-3>T-5', 'T-4>T-5', 'T-1>T-6', 'T-5>T-6'));
    expect(plan.waves.flat().sort()).toEqual([...ids].sort());
    expect(plan.waves).toEqual([['T-1', 'T-2', 'T-4'], ['T-3'], ['T-5'], ['T-6']]);
    expect(plan.criticalPath).toEqual(['T-1', 'T-3', 'T-5', 'T-6']);
  });
});

describe('mergeMetadata', () => {
  it('sets and replaces keys, and a key set to null is removed', () => {
    const current = { area: 'ui', estimate: 3, tags: ['a'] };
    expect(mergeMetadata(current, { estimate: 5, area: null, reviewer: 'kim' })).toEqual({ tags: ['a'], estimate: 5, reviewer: 'kim' });
  });

  it('leaves the current metadata untouched, and an empty patch changes nothing', () => {
    const current = { a: 1 };
    const merged = mergeMetadata(current, { a: null });
    expect(merged).toEqual({});
    expect(current).toEqual({ a: 1 });
    expect(mergeMetadata(current, {})).toEqual({ a: 1 });
  });

  it('removing a key that is not there is harmless; nested objects are replaced, not merged', () => {
    expect(mergeMetadata({ a: { x: 1, y: 2 } }, { missing: null, a: { x: 9 } })).toEqual({ a: { x: 9 } });
  });

  it('null values in a first patch (on create) leave no key behind', () => {
    expect(mergeMetadata({}, { a: null, b: false, c: 0, d: '' })).toEqual({ b: false, c: 0, d: '' });
  });
});

describe('checkStatusMove', () => {
  it('refuses starting a blocked task, naming every unresolved blocker', () => {
    const error = expectThrows(
      () => checkStatusMove('T-3', 'in_progress', ['T-1', 'T-2']),
      'TASK_BLOCKED',
      'Error: task T-3 is blocked by T-1, T-2; it cannot be started until they are completed.',
    );
    expect(error.details).toEqual({ blockedBy: ['T-1', 'T-2'] });
  });

  it('refuses completing a blocked task', () => {
    expectThrows(
      () => checkStatusMove('T-3', 'completed', ['T-1']),
      'TASK_BLOCKED',
      'Error: task T-3 is blocked by T-1; it cannot be completed until it is completed.',
    );
  });

  it('lets a blocked task go back to pending or be deleted, and an unblocked one move anywhere', () => {
    expect(() => checkStatusMove('T-3', 'pending', ['T-1'])).not.toThrow();
    expect(() => checkStatusMove('T-3', 'deleted', ['T-1'])).not.toThrow();
    for (const to of ['pending', 'in_progress', 'completed', 'deleted'] as const) {
      expect(() => checkStatusMove('T-3', to, [])).not.toThrow();
    }
  });
});

describe('isReady and resolution', () => {
  it('ready: pending, unowned or owned by the agent, nothing unresolved', () => {
    expect(isReady({ status: 'pending', owner: null }, [], 'alice')).toBe(true);
    expect(isReady({ status: 'pending', owner: 'alice' }, [], 'alice')).toBe(true);
    expect(isReady({ status: 'pending', owner: null }, [], null)).toBe(true);
  });

  it('not ready: owned by another, blocked, or not pending', () => {
    expect(isReady({ status: 'pending', owner: 'bob' }, [], 'alice')).toBe(false);
    expect(isReady({ status: 'pending', owner: 'bob' }, [], null)).toBe(false);
    expect(isReady({ status: 'pending', owner: null }, ['T-1'], 'alice')).toBe(false);
    for (const status of ['in_progress', 'completed', 'deleted'] as const) {
      expect(isReady({ status, owner: null }, [], 'alice')).toBe(false);
      expect(isReady({ status, owner: 'alice' }, [], 'alice')).toBe(false);
    }
  });

  it('completed and deleted resolve a blocker; pending and in_progress do not', () => {
    expect(RESOLVED).toEqual(['completed', 'deleted']);
    expect(isResolved('completed')).toBe(true);
    expect(isResolved('deleted')).toBe(true);
    expect(isResolved('pending')).toBe(false);
    expect(isResolved('in_progress')).toBe(false);
  });
});
