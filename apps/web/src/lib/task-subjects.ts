// Task subjects by id, to name blockers and dependants in tables, the graph and the panel.
import type { TaskGraph } from '@agent-tasks/schema';
import { useMemo } from 'react';

export function useSubjects(graph: TaskGraph) {
  return useMemo(() => new Map(graph.tasks.map((t) => [t.id, t.subject])), [graph]);
}
