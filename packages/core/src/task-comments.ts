// Comments on tasks by people and agents (issue 25): writing one, the list's comment feed, and the notes a session's
// hooks give an agent at its next start — the comments people left since that session last read them.
import type { TaskCommentInput } from '@agent-tasks/schema';
import type { Actor } from './actor.ts';
import { requirePermission } from './permissions.ts';
import { DomainError } from './errors.ts';
import type { Deps } from './ports.ts';
import type { TaskCommentRecord } from './records.ts';
import { resolveRef, taskNotFound } from './task-changes.ts';
import { presentComment } from './task-present.ts';
import { commentTopic } from './live-topics.ts';

const DEFAULT_LIST = 'default';
/** At most this many notes are given at one start (the newest). */
export const NOTES_MAX = 10;

export { commentTopic } from './live-topics.ts';

const listMissing = (name: string) => new DomainError('NOT_FOUND', `Error: task list ${JSON.stringify(name)} does not exist.`);

/** Who a comment is by: a person is an API key (its name), an agent a session (its agent name). */
async function authorOf(deps: Deps, actor: Actor) {
  if (actor.sessionId) return { author: actor.agentName ?? actor.sessionId, byPerson: false };
  const key = await deps.store.keys.get(actor.workspaceId, actor.keyId);
  return { author: key?.name ?? actor.keyId, byPerson: true };
}

/** `tasks.comment`: adds a comment to a task (not a deleted one); it reaches the list's comment feed live. */
export async function commentOnTask(deps: Deps, actor: Actor, input: TaskCommentInput) {
  requirePermission(actor, 'writeTasks');
  const listName = input.listName ?? DEFAULT_LIST;
  const { author, byPerson } = await authorOf(deps, actor);
  const comment = await deps.store.transaction(async (repos) => {
    const list = await repos.tasks.findList(actor.workspaceId, listName);
    if (!list) throw listMissing(listName);
    const task = await repos.tasks.get(list.id, await resolveRef(repos, list.id, input.id));
    if (!task) throw taskNotFound(input.id, listName);
    if (task.status === 'deleted') throw new DomainError('CONFLICT', `Error: task ${task.id} is deleted; it can no longer change.`);
    return repos.comments.add({
      listId: list.id,
      taskId: task.id,
      body: input.body,
      author,
      byPerson,
      keyId: actor.keyId,
      sessionId: actor.sessionId,
      createdAt: deps.clock.now(),
    });
  });
  const shown = presentComment(comment);
  deps.events.publish({ topic: commentTopic(actor.workspaceId, listName), id: String(comment.id), data: { ...shown, listName } });
  return shown;
}

/** A task's comments, newest first (the panel's list; TaskGet shows the newest few). */
export async function commentsOf(deps: Deps, actor: Actor, input: { listName?: string | undefined; id: string }) {
  const listName = input.listName ?? DEFAULT_LIST;
  const list = await deps.store.tasks.findList(actor.workspaceId, listName);
  if (!list) throw listMissing(listName);
  const id = await resolveRef(deps.store, list.id, input.id);
  if (!(await deps.store.tasks.get(list.id, id))) throw taskNotFound(input.id, listName);
  const [newest, count] = await Promise.all([deps.store.comments.newest(list.id, id, 200), deps.store.comments.count(list.id, id)]);
  return { count, newest: newest.map(presentComment) };
}

/** The comment feed's position: the list's newest comment id (0 when it has none or does not exist). */
export async function commentFeedPosition(deps: Deps, actor: Actor, input: { listName?: string | undefined }) {
  const list = await deps.store.tasks.findList(actor.workspaceId, input.listName ?? DEFAULT_LIST);
  return list ? deps.store.comments.lastId(list.id) : 0;
}

/** One page of the list's comments after `after`, oldest first: the feed's replay. */
export async function commentsAfter(deps: Deps, actor: Actor, input: { listName?: string | undefined; after: number }) {
  const listName = input.listName ?? DEFAULT_LIST;
  const list = await deps.store.tasks.findList(actor.workspaceId, listName);
  if (!list) return { items: [], more: false };
  const rows = await deps.store.comments.after(list.id, input.after, 201);
  return { items: rows.slice(0, 200).map((c) => ({ ...presentComment(c), listName })), more: rows.length > 200 };
}

export interface PersonNote {
  taskId: string;
  ref: string;
  subject: string;
  author: string;
  body: string;
  at: string;
}

/** The "Notes from people" text a hook adds to an agent's start, or '' when there are none. */
export function notesText(notes: readonly PersonNote[]): string {
  if (!notes.length) return '';
  return ['Notes from people:', ...notes.map((n) => `- ${n.ref} ${n.subject} — ${n.author}: ${n.body}`)].join('\n');
}

/**
 * `tasks.takeNotes`: the comments people left on the list's tasks since this session last took them (the newest
 * `NOTES_MAX`, oldest first), marked read for this session in the same transaction. Only a session has notes.
 */
export async function takeNotes(deps: Deps, actor: Actor, input: { listName: string }) {
  const sessionId = actor.sessionId;
  if (!sessionId) return { notes: [], text: '' };
  const notes = await deps.store.transaction(async (repos) => {
    const list = await repos.tasks.findList(actor.workspaceId, input.listName);
    if (!list) return [];
    const mark = await repos.comments.readMark(sessionId, list.id);
    const unread: TaskCommentRecord[] = (await repos.comments.newestFromPeople(list.id, mark, NOTES_MAX)).reverse();
    const last = unread.at(-1);
    if (!last) return [];
    await repos.comments.setReadMark(sessionId, list.id, last.id);
    const tasks = new Map((await repos.tasks.getMany(list.id, [...new Set(unread.map((c) => c.taskId))])).map((t) => [t.id, t]));
    return unread.map((c) => {
      const task = tasks.get(c.taskId);
      return {
        taskId: c.taskId,
        ref: task ? `#${task.seq}` : c.taskId,
        subject: task?.subject ?? '',
        author: c.author,
        body: c.body,
        at: c.createdAt.toISOString(),
      };
    });
  });
  return { notes, text: notesText(notes) };
}
