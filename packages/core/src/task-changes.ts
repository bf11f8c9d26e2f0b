// Collects one transaction's changes to a task list (fields and edges), then versions, records and publishes them.
import { taskTopic } from './live-topics.ts';
import { LostRace } from './compare-and-set.ts';
import { DomainError } from './errors.ts';
import type { Actor } from './actor.ts';
import type { Deps, LiveEvent, NewTask, Repositories } from './ports.ts';
import type { TaskChangeKind, TaskChangeRecord, TaskEdge, TaskListRecord, TaskRecord } from './records.ts';
import { TASK_REF, type TaskStatus } from '@agent-tasks/schema';
import { cycleError, isResolved, selfDependencyError } from './task-graph.ts';
import { presentChange, presentTask } from './task-present.ts';

/** The id a reference names: `#n` is the task created n-th in the list; anything else is an id already. */
export async function resolveRef(repos: Pick<Repositories, 'tasks'>, listId: string, ref: string): Promise<string> {
  if (!TASK_REF.test(ref)) return ref;
  return (await repos.tasks.idOfSeq(listId, Number(ref.slice(1)))) ?? ref;
}

/** The name a change record gives a task field (the task shape's name). */
const shownField = (field: string) => (field === 'repoUrl' ? 'repoURL' : field === 'parentId' ? 'parentID' : field);

/** The fields a new task starts with, as its first change records them (from nothing to its value). */
export function initialFields(task: TaskRecord): Record<string, { from: unknown; to: unknown }> {
  const { id, listId, seq, version, createdAt, updatedAt, sessionId, fileKeyTail, ...fields } = task;
  const initial = Object.entries({ ...fields, threadID: sessionId }).filter(
    ([k, v]) => v !== null && !(k === 'labels' && !task.labels.length),
  );
  return Object.fromEntries(initial.map(([k, v]) => [shownField(k), { from: null, to: v }]));
}

export const taskNotFound = (id: string, listName: string) =>
  new DomainError('NOT_FOUND', `Error: task ${id} not found in list "${listName}".`);

/** Removes the edge from `edges` if it is there (an edge added then removed in one call never existed). */
function takeOut(edges: TaskEdge[], blockerId: string, blockedId: string) {
  const at = edges.findIndex((e) => e.blockerId === blockerId && e.blockedId === blockedId);
  if (at >= 0) edges.splice(at, 1);
  return at >= 0;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

export class TaskChanges {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly fromVersion = new Map<string, number>();
  private readonly fields = new Map<string, Record<string, { from: unknown; to: unknown }>>();
  private readonly kinds = new Map<string, TaskChangeKind>();
  private readonly added: TaskEdge[] = [];
  private readonly removed: TaskEdge[] = [];
  /** Bumped by every edge change this write makes: edges read before one are stale after it. */
  private edgeChanges = 0;
  private edgesRead: { ids: string; at: number; edges: TaskEdge[] } | null = null;

  constructor(
    private readonly deps: Deps,
    private readonly repos: Repositories,
    private readonly actor: Actor,
    readonly list: TaskListRecord,
  ) {}

  /** The id a reference names: a task id as it is, `#n` the task created n-th in this list (itself when there is none). */
  async resolve(ref: string): Promise<string> {
    return resolveRef(this.repos, this.list.id, ref);
  }

  /** A task of this list (deleted ones too: callers decide), loaded once per transaction. */
  async task(ref: string): Promise<TaskRecord> {
    const id = await this.resolve(ref);
    const known = this.tasks.get(id);
    if (known) return known;
    const task = await this.repos.tasks.get(this.list.id, id);
    if (!task) throw taskNotFound(ref, this.list.name);
    this.tasks.set(id, task);
    this.fromVersion.set(id, task.version);
    return task;
  }

  /** Inserts a new task (numbered next in the list unless it brings its number) and records it from nothing. */
  async created(fresh: NewTask, kind: TaskChangeKind = 'created'): Promise<TaskRecord> {
    const task: TaskRecord = { ...fresh, seq: await this.repos.tasks.insert(fresh) };
    this.tasks.set(task.id, task);
    this.kinds.set(task.id, kind);
    this.fields.set(task.id, initialFields(task));
    return task;
  }

  set<
    K extends 'subject' | 'description' | 'status' | 'activeForm' | 'owner' | 'metadata' | 'repoUrl' | 'parentId' | 'priority' | 'labels',
  >(task: TaskRecord, field: K, value: TaskRecord[K]) {
    if (JSON.stringify(task[field]) === JSON.stringify(value)) return;
    const changes = this.fields.get(task.id) ?? {};
    const name = shownField(field);
    changes[name] = { from: name in changes ? changes[name]?.from : task[field], to: value };
    this.fields.set(task.id, changes);
    task[field] = value;
  }

  /** Records a change of something kept beside the task's own fields (its evidence, requirements or lease). */
  note(task: TaskRecord, field: string, from: unknown, to: unknown) {
    const changes = this.fields.get(task.id) ?? {};
    changes[field] = { from: field in changes ? changes[field]?.from : from, to };
    this.fields.set(task.id, changes);
    this.tasks.set(task.id, task);
  }

  kind(id: string, kind: TaskChangeKind) {
    this.kinds.set(id, kind);
  }

  /**
   * The edges touching these tasks as this write stands. Read once: asked again for the same tasks with no edge change
   * in between (an update that changes no edge, then its commit), the first read answers.
   */
  async edgesOf(ids: readonly string[]): Promise<TaskEdge[]> {
    const key = ids.join('\n');
    const read = this.edgesRead;
    if (read && read.ids === key && read.at === this.edgeChanges) return read.edges;
    const edges = ids.length ? await this.repos.tasks.edgesOf(this.list.id, ids) : [];
    this.edgesRead = { ids: key, at: this.edgeChanges, edges };
    return edges;
  }

  /** Adds blocker → blocked after checking both ends and that it closes no cycle. */
  async addEdge(blockerRef: string, blockedRef: string) {
    for (const ref of [blockerRef, blockedRef]) {
      const task = await this.task(ref).catch(() => null);
      if (!task || task.status === 'deleted') {
        throw new DomainError('INVALID_DEPENDENCY', `Error: invalid dependency: task ${ref} not found in list "${this.list.name}".`);
      }
    }
    const [blockerId, blockedId] = [await this.resolve(blockerRef), await this.resolve(blockedRef)];
    if (blockerId === blockedId) throw selfDependencyError(blockerRef);
    this.edgeChanges++;
    const outcome = await this.repos.tasks.addEdge(this.list.id, { blockerId, blockedId });
    if (!outcome.added) {
      if (outcome.cycle) throw cycleError(outcome.cycle);
      return; // there already
    }
    if (!takeOut(this.removed, blockerId, blockedId)) this.added.push({ blockerId, blockedId });
  }

  async removeEdge(blockerRef: string, blockedRef: string) {
    const [blockerId, blockedId] = [await this.resolve(blockerRef), await this.resolve(blockedRef)];
    this.edgeChanges++;
    this.removedEdges(await this.repos.tasks.removeEdges(this.list.id, [{ blockerId, blockedId }]));
  }

  /** Removes every edge of the task, on either side, in one store call (a hub's hundreds of edges included). */
  async removeAllEdges(id: string) {
    const edges = await this.edgesOf([id]);
    this.edgeChanges++;
    if (edges.length) this.removedEdges(await this.repos.tasks.removeEdges(this.list.id, edges));
  }

  private removedEdges(gone: readonly TaskEdge[]) {
    for (const { blockerId, blockedId } of gone) {
      if (!takeOut(this.added, blockerId, blockedId)) this.removed.push({ blockerId, blockedId });
    }
  }

  /** Versions every touched task, records one change per task, and returns the live events to publish. */
  async commit(): Promise<{ events: LiveEvent[]; changes: TaskChangeRecord[] }> {
    const touched = new Set([...this.fields.keys(), ...[...this.added, ...this.removed].flatMap((e) => [e.blockerId, e.blockedId])]);
    const ids = [...touched];
    const edges = await this.edgesOf(ids);
    // The touched tasks not loaded yet (the other ends of changed edges), read at once.
    const unread = ids.filter((id) => !this.tasks.has(id));
    for (const task of unread.length ? await this.repos.tasks.getMany(this.list.id, unread) : []) {
      this.tasks.set(task.id, task);
      this.fromVersion.set(task.id, task.version);
    }
    const now = this.deps.clock.now();
    const writes: { task: TaskRecord; fromVersion: number }[] = [];
    const pending: Omit<TaskChangeRecord, 'seq'>[] = [];
    for (const id of ids) {
      const task = await this.task(id);
      const changes = this.fields.get(id) ?? {};
      const isNew = !this.fromVersion.has(id);
      for (const [field, mine, other] of [
        ['blocks', 'blockerId', 'blockedId'],
        ['blockedBy', 'blockedId', 'blockerId'],
      ] as const) {
        const after = edges.filter((e) => e[mine] === id).map((e) => e[other]);
        const before = isNew
          ? []
          : [
              ...after.filter((x) => !this.added.some((e) => e[mine] === id && e[other] === x)),
              ...this.removed.filter((e) => e[mine] === id).map((e) => e[other]),
            ];
        if (!sameSet(before, after)) changes[field] = { from: before, to: after };
      }
      if (Object.keys(changes).length === 0) continue;
      if (!isNew) {
        const from = this.fromVersion.get(id) ?? task.version;
        task.version = from + 1;
        task.updatedAt = now;
        writes.push({ task, fromVersion: from });
      }
      pending.push({
        listId: this.list.id,
        taskId: id,
        kind: this.kinds.get(id) ?? 'updated',
        sessionId: this.actor.sessionId,
        keyId: this.actor.keyId,
        at: now,
        changes,
        snapshot: presentTask(task, edges, this.list.name),
      });
    }
    // Readiness: the blocked side of every changed edge, and the dependants of tasks that became (un)resolved.
    const readiness = new Set([...this.added, ...this.removed].map((e) => e.blockedId));
    for (const change of pending) {
      const status = change.changes.status;
      if (status && isResolved(status.from as TaskStatus) !== isResolved(status.to as TaskStatus)) {
        for (const e of edges) if (e.blockerId === change.taskId) readiness.add(e.blockedId);
      }
    }
    if (pending.length === 0 && writes.length === 0 && readiness.size === 0) return { events: [], changes: [] };
    // The search index follows a task's subject, description and deletion: a write that changed none leaves it alone.
    const texts = pending.filter((c) => 'subject' in c.changes || 'description' in c.changes || 'status' in c.changes).map((c) => c.taskId);
    const records = await this.repos.tasks.commit(this.list.id, { tasks: writes, changes: pending, readiness: [...readiness], texts });
    if (!records) throw new LostRace();
    const events = records.map((r) => ({
      topic: taskTopic(this.list.workspaceId, this.list.name),
      id: String(r.seq),
      data: { ...presentChange(r), task: r.snapshot },
    }));
    return { events, changes: records };
  }
}
