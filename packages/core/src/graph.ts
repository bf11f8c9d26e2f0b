// Dependency graphs, one implementation for all: topological order with stable ties, the named cycle, waves, the
// critical path, and the cycle a new edge would close. Used by the task graph, checklist ordering and task import.

/** `[before, after]`: `before` must come first (a blocker and what it blocks; a prerequisite and what needs it). */
export type Edge<N> = readonly [before: N, after: N];

/** The graph by node position (the order `nodes` were given in, which breaks every tie). */
interface Indexed<N> {
  nodes: readonly N[];
  next: number[][];
  prev: number[][];
  waiting: number[];
}

/** Edges with an end outside `nodes` are ignored; each node's edges keep the order they were given in. */
function indexed<N>(nodes: readonly N[], edges: readonly Edge<N>[]): Indexed<N> {
  const at = new Map<N, number>();
  nodes.forEach((node, i) => at.set(node, i));
  const next: number[][] = nodes.map(() => []);
  const prev: number[][] = nodes.map(() => []);
  const waiting: number[] = nodes.map(() => 0);
  for (const [before, after] of edges) {
    const i = at.get(before);
    const j = at.get(after);
    if (i === undefined || j === undefined) continue;
    next[i]?.push(j);
    prev[j]?.push(i);
    waiting[j] = (waiting[j] ?? 0) + 1;
  }
  return { nodes, next, prev, waiting };
}

/** A binary min-heap of node positions: the earliest ready node first. */
class Earliest {
  private readonly items: number[] = [];
  get size() {
    return this.items.length;
  }
  push(value: number) {
    const items = this.items;
    let i = items.push(value) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as number) <= value) break;
      items[i] = items[parent] as number;
      i = parent;
    }
    items[i] = value;
  }
  pop(): number {
    const items = this.items;
    const top = items[0] as number;
    const last = items.pop() as number;
    if (items.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child = right < items.length && (items[right] as number) < (items[left] as number) ? right : left;
        if ((items[child] as number) >= last) break;
        items[i] = items[child] as number;
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}

/** Kahn's algorithm with stable ties; `placed` marks the nodes it could order (all of them unless there is a cycle). */
function stableOrder<N>(graph: Indexed<N>) {
  const waiting = [...graph.waiting];
  const placed = graph.nodes.map(() => false);
  const ready = new Earliest();
  waiting.forEach((w, i) => w === 0 && ready.push(i));
  const order: number[] = [];
  while (ready.size > 0) {
    const i = ready.pop();
    order.push(i);
    placed[i] = true;
    for (const j of graph.next[i] ?? []) {
      const left = (waiting[j] ?? 0) - 1;
      waiting[j] = left;
      if (left === 0) ready.push(j);
    }
  }
  return { order, placed };
}

/**
 * The cycle among the nodes that could not be placed: from the earliest of them, walk back along each node's
 * first-given edge from another unplaced node (every one has such an edge) until a node comes round again. The cycle
 * follows the edges (before → after) and starts and ends at that node.
 */
function cycleAmong<N>(graph: Indexed<N>, placed: readonly boolean[]): N[] {
  const start = placed.indexOf(false);
  const seen = new Map<number, number>();
  const walk: number[] = [];
  let at = start;
  while (!seen.has(at)) {
    seen.set(at, walk.length);
    walk.push(at);
    at = (graph.prev[at] ?? []).find((i) => !placed[i]) as number;
  }
  const back = walk.slice(seen.get(at)); // the repeated node, then the nodes before it, walking backwards
  const cycle = [at, ...back.slice(1).reverse(), at];
  return cycle.map((i) => graph.nodes[i] as N);
}

/**
 * The nodes in an order where every edge's `before` comes first, with stable ties: at each place the earliest given
 * node whose predecessors are all placed (so a list already in a valid order stays as it is). When no such order
 * exists, one cycle instead (see `findCycle`).
 */
export function topologicalOrder<N>(nodes: readonly N[], edges: readonly Edge<N>[]): { order: N[] } | { cycle: N[] } {
  const graph = indexed(nodes, edges);
  const { order, placed } = stableOrder(graph);
  if (order.length === nodes.length) return { order: order.map((i) => nodes[i] as N) };
  return { cycle: cycleAmong(graph, placed) };
}

/**
 * One cycle of the graph, named: found by walking back from the earliest node that no order can place, along the
 * first-given edge into each node, until a node repeats. Listed along the edges, starting and ending at the node the
 * walk met again. Null when the graph has no cycle.
 */
export function findCycle<N>(nodes: readonly N[], edges: readonly Edge<N>[]): N[] | null {
  const result = topologicalOrder(nodes, edges);
  return 'cycle' in result ? result.cycle : null;
}

/** The same cycle (first and last the same node) started at its earliest node in `nodes` order. */
export function startAtEarliest<N>(cycle: readonly N[], nodes: readonly N[]): N[] {
  const loop = cycle.slice(0, -1);
  const first = loop.indexOf(nodes.find((node) => loop.includes(node)) as N);
  const turned = [...loop.slice(first), ...loop.slice(0, first)];
  return [...turned, turned[0] as N];
}

/** Waves by position, each in given order, with each node's depth and the predecessor that set it. */
function layers<N>(graph: Indexed<N>) {
  const waiting = [...graph.waiting];
  const depth: number[] = graph.nodes.map(() => 0);
  const via: (number | undefined)[] = graph.nodes.map(() => undefined);
  const waves: number[][] = [];
  let wave = graph.nodes.map((_, i) => i).filter((i) => waiting[i] === 0);
  while (wave.length > 0) {
    waves.push(wave);
    const coming: number[] = [];
    for (const i of wave) {
      for (const j of graph.next[i] ?? []) {
        const d = (depth[i] ?? 0) + 1;
        if (d > (depth[j] ?? 0)) {
          depth[j] = d;
          via[j] = i;
        }
        const left = (waiting[j] ?? 0) - 1;
        waiting[j] = left;
        if (left === 0) coming.push(j);
      }
    }
    wave = coming.sort((a, b) => a - b);
  }
  return { waves, depth, via };
}

/**
 * The nodes as waves: the first holds every node with no predecessor, each next one the nodes whose predecessors
 * are all in earlier waves; each wave in given order. Nodes on a cycle (and after one) are in no wave.
 */
export function waves<N>(nodes: readonly N[], edges: readonly Edge<N>[]): N[][] {
  return layers(indexed(nodes, edges)).waves.map((wave) => wave.map((i) => nodes[i] as N));
}

/**
 * The longest chain of dependent nodes, first to last. Ties go to the earliest given: the chain ends at the earliest
 * node of greatest depth, and each step back takes the earliest predecessor one wave before. Empty for no nodes.
 */
export function criticalPath<N>(nodes: readonly N[], edges: readonly Edge<N>[]): N[] {
  const { depth, via } = layers(indexed(nodes, edges));
  let end: number | undefined;
  depth.forEach((d, i) => {
    if (end === undefined || d > (depth[end] ?? 0)) end = i;
  });
  const path: N[] = [];
  for (let at = end; at !== undefined; at = via[at]) path.unshift(nodes[at] as N);
  return path;
}

/**
 * Would the new edge before → after close a cycle? Walks forward from `after` breadth-first, asking `edgesFrom` for
 * the edges leaving one level at a time, so only the part of the graph reachable from it is read. Returns the
 * shortest cycle, starting and ending at `after` (a self edge is `[after, after]`, asked nothing), or null.
 */
export async function cycleThroughEdge<N>(
  before: N,
  after: N,
  edgesFrom: (level: readonly N[]) => Promise<readonly Edge<N>[]>,
): Promise<N[] | null> {
  if (before === after) return [after, after];
  const cameFrom = new Map<N, N | null>([[after, null]]);
  let level = [after];
  while (level.length > 0) {
    const coming: N[] = [];
    for (const [from, to] of await edgesFrom(level)) {
      if (cameFrom.has(to)) continue;
      cameFrom.set(to, from);
      if (to === before) {
        const path = [before];
        for (let at = cameFrom.get(before); at !== null && at !== undefined; at = cameFrom.get(at)) path.unshift(at);
        return [...path, after];
      }
      coming.push(to);
    }
    level = coming;
  }
  return null;
}
