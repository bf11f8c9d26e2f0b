// Reads for the dashboard: the session tree with counts and last activity, task lists, a list's whole graph, the outbox.
import type { SessionTreeNode, TaskGraph, TaskGraphNode } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import type { Deps } from './ports.ts';
import { presentSession } from './present.ts';
import { readableSessions } from './session-access.ts';
import { presentOutboxMessage } from './channel-service.ts';
import type { SessionRecord, TodoUpdateRecord } from './records.ts';
import { isResolved, parallelPlan } from './task-graph.ts';
import { presentTask } from './task-present.ts';
import { countTodos } from './todo-rules.ts';

/** Orders sessions as a tree, pre-order: each subagent right after its parent; siblings oldest first. */
export function sessionTreeOrder(sessions: readonly SessionRecord[]): { session: SessionRecord; depth: number; children: number }[] {
  const known = new Set(sessions.map((s) => s.id));
  const childrenOf = new Map<string | null, SessionRecord[]>();
  const byAge = [...sessions].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  for (const s of byAge) {
    const parent = s.parentId !== null && known.has(s.parentId) ? s.parentId : null;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), s]);
  }
  const out: { session: SessionRecord; depth: number; children: number }[] = [];
  const stack = [...(childrenOf.get(null) ?? [])].reverse().map((session) => ({ session, depth: 0 }));
  while (stack.length > 0) {
    const { session, depth } = stack.pop() as { session: SessionRecord; depth: number };
    const kids = childrenOf.get(session.id) ?? [];
    out.push({ session, depth, children: kids.length });
    for (const kid of [...kids].reverse()) stack.push({ session: kid, depth: depth + 1 });
  }
  return out;
}

export async function sessionTree(deps: Deps, actor: Actor): Promise<{ sessions: SessionTreeNode[] }> {
  const sessions = readableSessions(actor, await deps.store.sessions.list(actor.workspaceId));
  const refs = sessions.filter((s) => s.todoRevision > 0).map((s) => ({ sessionId: s.id, revision: s.todoRevision }));
  const latest = new Map<string, TodoUpdateRecord>((await deps.store.todos.atRevisions(refs)).map((u) => [u.sessionId, u]));
  return {
    sessions: sessionTreeOrder(sessions).map(({ session, depth, children }) => {
      const card = latest.get(session.id);
      return {
        session: presentSession(session),
        depth,
        children,
        counts: card?.counts ?? countTodos([]),
        revision: session.todoRevision,
        lastActivityAt: (card?.createdAt ?? session.createdAt).toISOString(),
      };
    }),
  };
}

export async function taskLists(deps: Deps, actor: Actor) {
  const lists = await deps.store.tasks.lists(actor.workspaceId);
  return {
    lists: lists.map((l) => ({
      name: l.name,
      createdAt: l.createdAt.toISOString(),
      counts: { pending: l.counts.pending ?? 0, inProgress: l.counts.in_progress ?? 0, completed: l.counts.completed ?? 0 },
    })),
  };
}

/** The whole graph of a list (deleted tasks left out): every task with its open blockers and readiness, the waves and critical path. */
export async function taskGraph(deps: Deps, actor: Actor, input: { listName?: string | undefined }): Promise<TaskGraph> {
  const listName = input.listName ?? 'default';
  // The feed position is read before the graph, so a reader that resumes after it misses no change.
  const list = (await deps.store.tasks.lists(actor.workspaceId)).find((l) => l.name === listName);
  if (!list) return { listName, tasks: [], waves: [], criticalPath: [], lastChangeSeq: 0 };
  const { tasks, edges } = await deps.store.tasks.graph(list.id, ['pending', 'in_progress', 'completed']);
  const ordered = [...tasks].sort((a, b) => a.seq - b.seq);
  const status = new Map(ordered.map((t) => [t.id, t.status]));
  const edgesOf = new Map<string, typeof edges>();
  for (const e of edges) {
    edgesOf.set(e.blockerId, [...(edgesOf.get(e.blockerId) ?? []), e]);
    edgesOf.set(e.blockedId, [...(edgesOf.get(e.blockedId) ?? []), e]);
  }
  const nodes: TaskGraphNode[] = ordered.map((t) => {
    const own = edgesOf.get(t.id) ?? [];
    const unresolvedBlockers = own
      .filter((e) => e.blockedId === t.id && !isResolved(status.get(e.blockerId) ?? 'deleted'))
      .map((e) => e.blockerId);
    return { ...presentTask(t, own, listName), unresolvedBlockers, ready: t.status === 'pending' && unresolvedBlockers.length === 0 };
  });
  const remaining = ordered.filter((t) => !isResolved(t.status)).map((t) => t.id);
  const { waves, criticalPath } = parallelPlan(remaining, edges);
  return { listName, tasks: nodes, waves, criticalPath, lastChangeSeq: list.changeSeq };
}

/** The workspace's notifications, newest first, each with its delivery state and last error (admin only). */
export async function outboxMessages(deps: Deps, actor: Actor, input: { limit: number }) {
  requireRole(actor, 'admin');
  const messages = await deps.store.outbox.recent(actor.workspaceId, input.limit);
  return { messages: messages.map(presentOutboxMessage) };
}
