// Unit tests of the graph module: topological order with stable ties, the named cycle, waves, the critical path and
// the cycle a new edge would close.
import { describe, expect, it } from 'vitest';
import { graph } from '../src/index.ts';

const { criticalPath, cycleThroughEdge, findCycle, startAtEarliest, topologicalOrder, waves } = graph;

/** `a>b` means a comes before b. */
const edges = (...pairs: string[]): graph.Edge<string>[] =>
  pairs.map((p) => {
    const [before, after] = p.split('>');
    return [before!, after!] as const;
  });

const nodes = (text: string) => text.split(' ');

describe('topologicalOrder', () => {
  it('keeps a list that is already in a valid order as it is (stable ties, not first-come first-served)', () => {
    // A queue would place c before b here (both sources go first); the stable order keeps the given order.
    expect(topologicalOrder(nodes('a b c d'), edges('a>b', 'c>d'))).toEqual({ order: nodes('a b c d') });
  });

  it('moves a node only as far as its predecessors need, and otherwise keeps the given order', () => {
    expect(topologicalOrder(nodes('a b c d e'), edges('d>a'))).toEqual({ order: nodes('b c d a e') });
    expect(topologicalOrder(nodes('a b c d'), edges('b>c', 'c>e', 'd>e'))).toEqual({ order: nodes('a b c d') });
    expect(topologicalOrder([3, 1, 2], [[2, 3] as const])).toEqual({ order: [1, 2, 3] });
  });

  it('at each place takes the earliest given node that is ready', () => {
    // After x: b and a are both ready; a was given first.
    expect(topologicalOrder(nodes('a b x'), edges('x>a', 'x>b'))).toEqual({ order: nodes('x a b') });
  });

  it('ignores edges to nodes it was not given', () => {
    expect(topologicalOrder(nodes('a b'), edges('z>a', 'b>z'))).toEqual({ order: nodes('a b') });
  });

  it('answers a cycle instead of an order when there is one', () => {
    expect(topologicalOrder(nodes('a b c'), edges('a>b', 'b>a'))).toEqual({ cycle: nodes('a b a') });
  });
});

describe('findCycle', () => {
  it('none in an acyclic graph', () => {
    expect(findCycle(nodes('a b c'), edges('a>b', 'b>c', 'a>c'))).toBeNull();
  });

  it('names the cycle along the edges, first and last the same node', () => {
    expect(findCycle(nodes('a b c'), edges('a>b', 'b>c', 'c>a'))).toEqual(nodes('a b c a'));
  });

  it('walks back from the earliest stuck node and starts where the walk comes round', () => {
    // x waits on the cycle b → c → d → b; the walk from x goes back to d, then c, b, d: the cycle starts at d.
    expect(findCycle(nodes('x b c d'), edges('d>x', 'b>c', 'c>d', 'd>b'))).toEqual(nodes('d b c d'));
    expect(startAtEarliest(nodes('d b c d'), nodes('x b c d'))).toEqual(nodes('b c d b'));
  });

  it('of two cycles, the one met first walking back along the first-given edge', () => {
    const both = edges('a>b', 'b>a', 'c>d', 'd>c');
    expect(findCycle(nodes('a b c d'), both)).toEqual(nodes('a b a'));
    expect(findCycle(nodes('c d a b'), both)).toEqual(nodes('c d c'));
    // Two ways back from a: the first-given edge into a decides.
    expect(findCycle(nodes('a b c'), edges('c>a', 'b>a', 'a>b', 'a>c'))).toEqual(nodes('a c a'));
    expect(findCycle(nodes('a b c'), edges('b>a', 'c>a', 'a>b', 'a>c'))).toEqual(nodes('a b a'));
  });

  it('numbers work as nodes', () => {
    expect(
      findCycle([1, 2, 3], [
        [2, 3],
        [3, 2],
      ] as const),
    ).toEqual([2, 3, 2]);
  });
});

describe('waves', () => {
  it('groups nodes whose predecessors are all in earlier waves, each wave in given order', () => {
    expect(waves(nodes('a b c d e'), edges('a>c', 'b>c', 'c>d', 'e>d'))).toEqual([nodes('a b e'), ['c'], ['d']]);
    expect(waves(nodes('d c b a'), edges('a>c', 'b>c'))).toEqual([nodes('d b a'), ['c']]);
  });

  it('a node waits for its slowest predecessor', () => {
    expect(waves(nodes('a b c'), edges('a>b', 'b>c', 'a>c'))).toEqual([['a'], ['b'], ['c']]);
  });

  it('no nodes, no waves; nodes on a cycle are in none', () => {
    expect(waves([], [])).toEqual([]);
    expect(waves(nodes('a b c'), edges('b>c', 'c>b'))).toEqual([['a']]);
  });
});

describe('criticalPath', () => {
  it('is the longest chain of dependent nodes', () => {
    expect(criticalPath(nodes('a b c d e'), edges('a>b', 'b>c', 'd>c', 'e>d', 'c>x'))).toEqual(nodes('a b c'));
    expect(criticalPath(nodes('a b c d'), edges('a>d', 'b>c', 'c>d'))).toEqual(nodes('b c d'));
  });

  it('ties go to the earliest given: the earliest end, then the earliest predecessor', () => {
    expect(criticalPath(nodes('a b c d'), edges('a>b', 'c>d'))).toEqual(nodes('a b'));
    expect(criticalPath(nodes('c d a b'), edges('a>b', 'c>d'))).toEqual(nodes('c d'));
    expect(criticalPath(nodes('x y z'), edges('y>z', 'x>z'))).toEqual(nodes('x z'));
  });

  it('a single node without edges, or none', () => {
    expect(criticalPath(nodes('a b'), [])).toEqual(['a']);
    expect(criticalPath([], [])).toEqual([]);
  });
});

describe('cycleThroughEdge', () => {
  const from = (all: graph.Edge<string>[]) => async (level: readonly string[]) => all.filter(([before]) => level.includes(before));

  it('names the shortest cycle the new edge closes, from its `after` end', async () => {
    const all = edges('a>b', 'b>c', 'c>d', 'a>d');
    expect(await cycleThroughEdge('d', 'a', from(all))).toEqual(nodes('a d a'));
    expect(await cycleThroughEdge('c', 'a', from(all))).toEqual(nodes('a b c a'));
  });

  it('none for an edge along the order; a self edge is a cycle of one', async () => {
    const all = edges('a>b', 'b>c');
    expect(await cycleThroughEdge('a', 'c', from(all))).toBeNull();
    expect(await cycleThroughEdge('b', 'b', from(all))).toEqual(nodes('b b'));
  });
});
