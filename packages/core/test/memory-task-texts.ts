// The in-memory store's comments and full-text search: plain scans over its state (the real store indexes them).
import type { TaskCommentRepository, TaskSearchRepository } from '../src/ports.ts';
import type { TaskCommentRecord, TaskRecord } from '../src/records.ts';

export interface TaskTextState {
  comments: TaskCommentRecord[];
  /** `sessionId\u0000listId` → the newest people's comment that session was given. */
  noteReads: Map<string, number>;
}

export const emptyTaskTexts = (): TaskTextState => ({ comments: [], noteReads: new Map() });

const copy = (c: TaskCommentRecord): TaskCommentRecord => ({ ...c, createdAt: new Date(c.createdAt.getTime()) });

/** `requireTask` refuses (as a constraint would) a comment whose task is not in its list. */
export function memoryComments(state: () => TaskTextState, requireTask: (listId: string, id: string) => void): TaskCommentRepository {
  return {
    async add(comment) {
      requireTask(comment.listId, comment.taskId);
      const s = state();
      const record = { ...comment, id: (s.comments.at(-1)?.id ?? 0) + 1 };
      s.comments.push(copy(record));
      return copy(record);
    },
    newest: async (listId, taskId, limit) =>
      state()
        .comments.filter((c) => c.listId === listId && c.taskId === taskId)
        .reverse()
        .slice(0, limit)
        .map(copy),
    count: async (listId, taskId) => state().comments.filter((c) => c.listId === listId && c.taskId === taskId).length,
    after: async (listId, afterId, limit) =>
      state()
        .comments.filter((c) => c.listId === listId && c.id > afterId)
        .slice(0, limit)
        .map(copy),
    newestFromPeople: async (listId, afterId, limit) =>
      state()
        .comments.filter((c) => c.listId === listId && c.byPerson && c.id > afterId)
        .reverse()
        .slice(0, limit)
        .map(copy),
    lastId: async (listId) => state().comments.findLast((c) => c.listId === listId)?.id ?? 0,
    readMark: async (sessionId, listId) => state().noteReads.get(`${sessionId}\u0000${listId}`) ?? 0,
    async setReadMark(sessionId, listId, commentId) {
      state().noteReads.set(`${sessionId}\u0000${listId}`, commentId);
    },
  };
}

/** Every word a prefix of some word of the task's text; ranked by how many matches, the subject's counting most. */
export function memorySearch(state: () => TaskTextState, tasksOf: (listId: string) => TaskRecord[]): TaskSearchRepository {
  return {
    async search(listId, words, limit) {
      // No word finds nothing (as the real stores: an empty query matches no row).
      if (words.length === 0) return [];
      const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      const hits = tasksOf(listId).flatMap((task) => {
        if (task.status === 'deleted') return [];
        const comments = state()
          .comments.filter((c) => c.listId === listId && c.taskId === task.id)
          .map((c) => c.body)
          .join(' ');
        const fields = [wordsOf(task.subject), wordsOf(task.description), wordsOf(comments)];
        const all = fields.flat();
        if (!words.every((w) => all.some((x) => x.startsWith(w)))) return [];
        const rank = fields.reduce((sum, f, i) => sum + f.filter((x) => words.some((w) => x.startsWith(w))).length * (3 - i), 0);
        const snippet = task.subject
          .split(/(\s+)/)
          .map((part) => (words.some((w) => part.toLowerCase().startsWith(w)) ? `[${part}]` : part))
          .join('');
        return [{ taskId: task.id, seq: task.seq, subject: task.subject, status: task.status, rank, snippet }];
      });
      return hits.sort((a, b) => b.rank - a.rank).slice(0, limit);
    },
  };
}
