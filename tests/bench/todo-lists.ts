// The 10-item todo lists the bench writes (fixed task texts, statuses that move on every write) and their diffs.
import type { TodoItem } from '@agent-tasks/schema';

const TASKS = [
  'Read the failing test output',
  'Find where the session revision is advanced',
  'Write a regression test for the stale revision',
  'Fix the compare-and-set on the session row',
  'Run the unit tests for the core package',
  'Run the black-box tests against the server',
  'Update the SDK docs for baseRevision',
  'Check the migration for the new index',
  'Review the diff with the team lead',
  'Open the pull request and link the issue',
];

export const LIST_SIZE = TASKS.length;

/**
 * The list at a session's write number `step`: the first `step mod 11` items completed, the next one in progress,
 * the rest pending. Consecutive steps always differ, and at most one item is in progress (the one-active rule).
 */
export function listAt(step: number): TodoItem[] {
  const done = step % (LIST_SIZE + 1);
  return TASKS.map((content, i) => ({
    content,
    status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
  }));
}

/** The same counts and diff the server stores with each update: the domain's own functions. */
export { countTodos as countsOf, diffTodos as diffLists } from '@agent-tasks/core';

/**
 * The todos.write requests wrk replays for these sessions' tokens: each session's 11 lists in order, the sessions taken
 * in turn (step by step), so the requests under way at once come from as many sessions as there are connections. An
 * agent waits for its write's answer before the next: a session never has several writes under way, as it would with
 * each session's writes back to back in the file, which wrk's connections take in turn.
 */
export function todoWrites(tokens: readonly string[]) {
  return Array.from({ length: LIST_SIZE + 1 }, (_, step) =>
    tokens.map((token) => ({ method: 'POST' as const, path: '/trpc/todos.write', token, body: { todos: listAt(step) } })),
  ).flat();
}
