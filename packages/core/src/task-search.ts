// Full-text search over a list's tasks (subjects, descriptions, comments): the query's words and the use case.
import type { TaskSearchInput } from '@agent-tasks/schema';
import type { Actor } from './actor.ts';
import type { Deps } from './ports.ts';

/** At most this many words of a query are searched for. */
const WORDS_MAX = 8;

/**
 * The words a query searches for: runs of letters and digits, lower-cased, each once. Every one must match (as a word
 * or a word's beginning); punctuation and search operators are plain text, so no query is a syntax error.
 */
export function searchWords(query: string): string[] {
  const words = (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => w.normalize('NFKC'));
  return [...new Set(words)].slice(0, WORDS_MAX);
}

/** `tasks.search`: the list's tasks matching the query, best first, each with where it matched. */
export async function searchTasks(deps: Deps, actor: Actor, input: TaskSearchInput) {
  const listName = input.listName ?? 'default';
  const list = await deps.store.tasks.findList(actor.workspaceId, listName);
  const words = searchWords(input.query);
  if (!list || words.length === 0) return { listName, hits: [] };
  const hits = await deps.store.search.search(list.id, words, input.limit ?? 20);
  const tasks = new Map(
    (
      await deps.store.tasks.getMany(
        list.id,
        hits.map((h) => h.taskId),
      )
    ).map((t) => [t.id, t]),
  );
  return {
    listName,
    hits: hits.flatMap((h) => {
      const task = tasks.get(h.taskId);
      if (!task || task.status === 'deleted') return [];
      return [{ id: task.id, ref: `#${task.seq}`, subject: task.subject, status: task.status, rank: h.rank, snippet: h.snippet }];
    }),
  };
}
