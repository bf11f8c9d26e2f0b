// The mirror of another runtime's task tools (Claude Code's TaskCreate and TaskUpdate): records each change as the
// runtime made it — a status change whatever the blockers, texts and metadata of any size (cut with a visible "…"),
// edges to tasks it does not hold skipped — rather than holding it to seed 001's rules, which stay for our own tools.
import { MIRROR_DESCRIPTION_MAX, MIRROR_TEXT_MAX, type TaskMirrorInput } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import { cutText, mirroredMetadata } from './mirror-rules.ts';
import type { Deps } from './ports.ts';
import type { TaskRecord } from './records.ts';
import { type TaskChanges, taskNotFound } from './task-changes.ts';
import { mergeMetadata } from './task-graph.ts';
import { get, writeTasks } from './task-service.ts';

/** An edge the runtime holds that a task graph cannot (it would close a cycle), and why. */
export interface EdgeNotRecorded {
  blockerId: string;
  blockedId: string;
  reason: string;
}

const cutOrNull = (text: string | null) => (text === null ? null : cutText(text, MIRROR_TEXT_MAX));

/** Adds blocker → blocked when both ends exist and are not deleted (the runtime skips it otherwise). */
async function mirrorEdge(changes: TaskChanges, blockerId: string, blockedId: string, notRecorded: EdgeNotRecorded[]) {
  for (const id of [blockerId, blockedId]) {
    const end = await changes.task(id).catch(() => null);
    if (!end || end.status === 'deleted') return;
  }
  try {
    await changes.addEdge(blockerId, blockedId);
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'INVALID_DEPENDENCY') throw error;
    notRecorded.push({ blockerId, blockedId, reason: error.message.replace(/^Error: invalid dependency: /, '') });
  }
}

/**
 * Records one TaskCreate or TaskUpdate of another runtime into the named list, in one transaction: `create` makes the
 * task with this id if it does not exist yet (in a new list when needed), then the fields and edges change as the
 * runtime changed them. Answers the task as recorded and the edges a graph cannot hold.
 */
export async function mirrorTask(deps: Deps, actor: Actor, input: TaskMirrorInput) {
  requireRole(actor, 'agent');
  const sessionId = actor.sessionId;
  if (input.create && !sessionId) {
    throw new DomainError('NO_OWNING_SESSION', 'Error: TaskCreate requires an owning agent session before anything is written.');
  }
  const notRecorded: EdgeNotRecorded[] = [];
  const changesAsked = Object.keys(input).some((k) => k !== 'listName' && k !== 'id' && k !== 'create');
  const written = await writeTasks(deps, actor, input.listName, { create: input.create !== undefined }, async (changes, repos) => {
    const found = await repos.tasks.get(changes.list.id, input.id);
    let task: TaskRecord;
    if (found) task = await changes.task(input.id);
    else if (input.create && sessionId) {
      const now = deps.clock.now();
      const { subject, description, activeForm, metadata } = input.create;
      task = await changes.created({
        id: input.id,
        listId: changes.list.id,
        subject: cutText(subject, MIRROR_TEXT_MAX),
        description: cutText(description, MIRROR_DESCRIPTION_MAX),
        status: 'pending',
        activeForm: activeForm?.trim() ? cutText(activeForm, MIRROR_TEXT_MAX) : null,
        owner: null,
        metadata: metadata ? mirroredMetadata(mergeMetadata({}, metadata)) : {},
        sessionId,
        repoUrl: null,
        parentId: null,
        fileKeyTail: null,
        priority: null,
        labels: [],
        version: 1,
        createdAt: now,
        updatedAt: now,
      });
    } else throw taskNotFound(input.id, changes.list.name);
    if (task.status === 'deleted') {
      if (!changesAsked) return;
      throw new DomainError('CONFLICT', `Error: task ${task.id} is deleted; it can no longer change.`);
    }
    // A delete is all the runtime does with such an update: the task's file goes, with its id in others' edges.
    if (input.status === 'deleted') {
      changes.set(task, 'status', 'deleted');
      changes.kind(task.id, 'deleted');
      await changes.removeAllEdges(task.id);
      return;
    }
    if (input.subject !== undefined) changes.set(task, 'subject', cutText(input.subject, MIRROR_TEXT_MAX));
    if (input.description !== undefined) changes.set(task, 'description', cutText(input.description, MIRROR_DESCRIPTION_MAX));
    if (input.activeForm !== undefined) changes.set(task, 'activeForm', cutOrNull(input.activeForm?.trim() ? input.activeForm : null));
    if (input.owner !== undefined) changes.set(task, 'owner', cutOrNull(input.owner?.trim() ? input.owner : null));
    if (input.metadata !== undefined) changes.set(task, 'metadata', mirroredMetadata(mergeMetadata(task.metadata, input.metadata)));
    // The runtime changes the status whatever the task's blockers: so does its record.
    if (input.status !== undefined) changes.set(task, 'status', input.status);
    for (const blocked of new Set(input.addBlocks ?? [])) await mirrorEdge(changes, task.id, blocked, notRecorded);
    for (const blocker of new Set(input.addBlockedBy ?? [])) await mirrorEdge(changes, blocker, task.id, notRecorded);
  });
  const task = written.snapshotOf(input.id) ?? (await get(deps, actor, input));
  return { task, notRecorded };
}
