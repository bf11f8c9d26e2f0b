// Maps task records and their edges to the seed's task shape and list summaries.
import type { Task, TaskChange, TaskComment, TaskSummary } from '@agent-tasks/schema';
import type { TaskChangeRecord, TaskCommentRecord, TaskEdge, TaskRecord, TaskSummaryRecord } from './records.ts';
import { isReady } from './task-graph.ts';

export function presentTask(task: TaskRecord, edges: readonly TaskEdge[], listName: string): Task {
  return {
    id: task.id,
    ref: `#${task.seq}`,
    listName,
    subject: task.subject,
    description: task.description,
    status: task.status,
    ...(task.activeForm === null ? {} : { activeForm: task.activeForm }),
    blocks: edges.filter((e) => e.blockerId === task.id).map((e) => e.blockedId),
    blockedBy: edges.filter((e) => e.blockedId === task.id).map((e) => e.blockerId),
    ...(task.owner === null ? {} : { owner: task.owner }),
    metadata: task.metadata,
    ...(task.repoUrl === null ? {} : { repoURL: task.repoUrl }),
    ...(task.parentId === null ? {} : { parentID: task.parentId }),
    ...(task.priority === null ? {} : { priority: task.priority }),
    labels: [...task.labels],
    threadID: task.sessionId,
    version: task.version,
    createdAt: task.createdAt.toISOString(),
    updatedAt: task.updatedAt.toISOString(),
  };
}

export function presentSummary(task: TaskSummaryRecord, unresolved: readonly string[], agent: string | null): TaskSummary {
  return {
    id: task.id,
    ref: `#${task.seq}`,
    subject: task.subject,
    status: task.status,
    ...(task.owner === null ? {} : { owner: task.owner }),
    ...(task.activeForm === null ? {} : { activeForm: task.activeForm }),
    blockedBy: [...unresolved],
    ...(task.priority === null ? {} : { priority: task.priority }),
    ...(task.labels.length ? { labels: [...task.labels] } : {}),
    ready: isReady(task, unresolved, agent),
    version: task.version,
  };
}

export const presentChange = (c: TaskChangeRecord): TaskChange => ({
  seq: c.seq,
  taskId: c.taskId,
  kind: c.kind,
  by: { sessionId: c.sessionId, keyId: c.keyId },
  at: c.at.toISOString(),
  changes: c.changes as TaskChange['changes'],
});

export const presentComment = (c: TaskCommentRecord): TaskComment => ({
  id: c.id,
  taskId: c.taskId,
  body: c.body,
  author: c.author,
  by: c.byPerson ? 'person' : 'agent',
  at: c.createdAt.toISOString(),
});
