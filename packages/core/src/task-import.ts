// Import and export of a task list as the JSON task files other agent tools keep (sisyphus, Claude Code).
import { type TaskFileFormat, taskStatuses } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import type { Deps, LiveEvent } from './ports.ts';
import type { TaskChangeRecord, TaskEdge, TaskRecord } from './records.ts';
import { taskTopic } from './task-changes.ts';
import { presentChange, presentTask } from './task-present.ts';
import { type TaskFile, parseTaskFiles, renderTaskFiles } from './task-files.ts';
import { DEFAULT_LIST, ensureList, lostListRace } from './task-service.ts';

export { parseTaskFiles, renderTaskFiles, type ParsedTask, type ParsedTaskFiles, type TaskFile } from './task-files.ts';

/** The fields a new task starts with, as its first change records them (from nothing to its value). */
function initialFields(task: TaskRecord): Record<string, { from: unknown; to: unknown }> {
  const { id, listId, seq, version, createdAt, updatedAt, threadId, ...fields } = task;
  const initial = Object.entries({ ...fields, threadID: threadId }).filter(([, v]) => v !== null);
  return Object.fromEntries(initial.map(([k, v]) => [k, { from: null, to: v }]));
}

/**
 * Imports a batch of task files into a list, all or nothing, in one transaction: sisyphus ids are kept (refused when
 * one is taken), claude ids become new T-… ids; edges are kept. Each task is recorded as one 'imported' change.
 *
 * The files are parsed and checked before the transaction (known edges, no self edge, no cycle, none to a deleted
 * task), and every task written is new, so the transaction is a handful of bulk statements — counters reserved once,
 * tasks, edges and changes inserted in batches — and holds the writer briefly, however large the import.
 */
export async function importTasks(
  deps: Deps,
  actor: Actor,
  input: { listName?: string | undefined; format: TaskFileFormat; files: readonly TaskFile[] },
) {
  requireRole(actor, 'agent');
  const parsed = parseTaskFiles(input.format, input.files);
  const listName = input.listName ?? DEFAULT_LIST;
  const thread = actor.sessionId ?? `import:${actor.keyId}`;
  const ids = new Map(parsed.tasks.map((task) => [task.id, input.format === 'sisyphus' ? task.id : `T-${deps.ids.uuid()}`]));
  const edges = parsed.edges.map((e) => ({ blockerId: ids.get(e.blockerId) as string, blockedId: ids.get(e.blockedId) as string }));
  const edgesOf = new Map<string, TaskEdge[]>();
  for (const e of edges) for (const end of [e.blockerId, e.blockedId]) edgesOf.set(end, [...(edgesOf.get(end) ?? []), e]);
  await deps.pause?.();

  let madeList = false;
  const importAll = () =>
    deps.store.transaction(async (repos) => {
      if (input.format === 'sisyphus') {
        const takenIds = new Set(await repos.tasks.takenIds([...ids.values()]));
        const taken = [...ids.values()].find((id) => takenIds.has(id));
        if (taken) throw new DomainError('INVALID_IMPORT', `Error: invalid import: task ${taken} already exists.`);
      }
      const list = await ensureList(deps, repos, actor, listName, () => (madeList = true));
      await repos.tasks.lockList(list.id);
      const now = deps.clock.now();
      const firstSeq = await repos.tasks.reserveTaskSeqs(list.id, parsed.tasks.length);
      const records: TaskRecord[] = parsed.tasks.map((task, i) => ({
        id: ids.get(task.id) as string,
        listId: list.id,
        seq: firstSeq + i,
        subject: task.subject,
        description: task.description,
        status: task.status,
        activeForm: task.activeForm,
        owner: task.owner,
        metadata: task.metadata,
        threadId: task.threadId ?? thread,
        version: 1,
        createdAt: now,
        updatedAt: now,
      }));
      await repos.tasks.insertMany(records);
      await repos.tasks.addEdges(list.id, edges);
      await deps.pause?.();
      await repos.tasks.refreshOpenBlockers([...new Set(edges.map((e) => e.blockedId))]);
      const firstChange = await repos.tasks.reserveChangeSeqs(list.id, records.length);
      const changes: TaskChangeRecord[] = [];
      for (const [i, task] of records.entries()) {
        if (i % 200 === 0) await deps.pause?.();
        const own = edgesOf.get(task.id) ?? [];
        const fields = initialFields(task);
        const blocks = own.filter((e) => e.blockerId === task.id).map((e) => e.blockedId);
        const blockedBy = own.filter((e) => e.blockedId === task.id).map((e) => e.blockerId);
        if (blocks.length) fields.blocks = { from: [], to: blocks };
        if (blockedBy.length) fields.blockedBy = { from: [], to: blockedBy };
        changes.push({
          listId: list.id,
          seq: firstChange + i,
          taskId: task.id,
          kind: 'imported',
          sessionId: actor.sessionId,
          keyId: actor.keyId,
          at: now,
          changes: fields,
          snapshot: presentTask(task, own, list.name),
        });
      }
      await repos.tasks.appendChanges(changes);
      return changes.map((r): LiveEvent => ({
        topic: taskTopic(list.workspaceId, list.name),
        id: String(r.seq),
        data: { ...presentChange(r), task: r.snapshot },
      }));
    });
  // Into a new list that a concurrent first write (in another process) inserted first: once more, into that list.
  const events = await importAll().catch(async (error: unknown) => {
    if (!(await lostListRace(deps, actor, listName, madeList, error))) throw error;
    madeList = false;
    return importAll();
  });
  for (const event of events) deps.events.publish(event);
  return { listName, imported: parsed.tasks.length, ids: Object.fromEntries(ids) };
}

/** Every task of the list (deleted included) with its edges, as files of `format`; none when the list does not exist. */
export async function exportTasks(deps: Deps, actor: Actor, input: { listName?: string | undefined; format: TaskFileFormat }) {
  const listName = input.listName ?? DEFAULT_LIST;
  const list = await deps.store.tasks.findList(actor.workspaceId, listName);
  if (!list) return { listName, files: [] };
  const { tasks, edges } = await deps.store.tasks.graph(list.id, taskStatuses);
  return { listName, files: renderTaskFiles(input.format, tasks, edges) };
}
