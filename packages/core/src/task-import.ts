// Import and export of a task list as the JSON task files other agent tools keep (sisyphus, Claude Code).
import { type TaskFileFormat, taskStatuses } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import type { Deps, LiveEvent, StagedRows } from './ports.ts';
import type { TaskChangeRecord, TaskEdge, TaskListRecord, TaskRecord } from './records.ts';
import { taskTopic } from './live-topics.ts';
import { initialFields } from './task-changes.ts';
import { presentChange, presentTask } from './task-present.ts';
import { type ParsedTaskFiles, type TaskFile, parseTaskFilesInSlices, renderTaskFiles } from './task-files.ts';
import { DEFAULT_LIST, lostListRace, writeTasks } from './task-service.ts';

/** Another import into the workspace is staging (in this or another process); try again once it is done. */
export class ImportInProgress extends Error {
  /** When the staging import last wrote (its heartbeat). */
  readonly heartbeat: Date;
  constructor(heartbeat: Date) {
    super('another import into this workspace is running');
    this.heartbeat = heartbeat;
  }
}

/**
 * An import's lease on its staging list: every staging transaction renews it (a live import writes every few
 * milliseconds, and waits for a lock no longer than the busy timeout), so a staging list not written for this long
 * belongs to an import whose process died (or whose clean-up failed), and the workspace's next import removes it.
 */
export const IMPORT_LEASE_MS = 10_000;

/** The answer to an import that waited its time for another one (or a dead one's lease) in vain: 409, and when to retry. */
export const importBusy = (retryAfterSeconds: number) =>
  new DomainError('CONFLICT', `Error: another import into this workspace is in progress; try again in ${retryAfterSeconds} s.`, {
    retryAfterSeconds,
  });

export {
  HIGH_WATERMARK_FILE,
  highWatermarkOf,
  parseTaskFiles,
  renderTaskFiles,
  type ParsedTask,
  type ParsedTaskFiles,
  type TaskFile,
} from './task-files.ts';

/** Rows per staging transaction: each holds the writer for a few milliseconds, so other writes queue briefly. */
const STAGE_ROWS = 100;

const taken = (id: string) => new DomainError('INVALID_IMPORT', `Error: invalid import: task ${id} already exists.`);
const numberTaken = (seq: number, listName: string) =>
  new DomainError(
    'INVALID_IMPORT',
    `Error: invalid import: task #${seq} was created in list "${listName}" while the import ran; import the folder again to update it in place.`,
  );

/** The highest Claude Code number a folder has used: its tasks' and its `.highwatermark`. */
const topNumber = (parsed: ParsedTaskFiles) => Math.max(parsed.highWatermark ?? 0, ...parsed.tasks.map((t) => Number(t.id)));

/**
 * A Claude Code folder imported again into a list that has its numbers: each file's task `n` updates the list's `#n`
 * in place (its fields and its edges among the folder's tasks, as the file has them), new numbers are created as `#n`,
 * and only what changed is recorded (an `imported` change for a new task, `updated` for a changed one). One write.
 */
async function importInPlace(deps: Deps, actor: Actor, listName: string, parsed: ParsedTaskFiles, thread: string) {
  const key = (e: TaskEdge) => `${e.blockerId}\n${e.blockedId}`;
  // Read once, outside any write: the tasks the folder changes (new, other fields, other edges among the folder's
  // tasks) are the only ones the write touches, so an unchanged folder writes nothing.
  const found = await deps.store.tasks.findList(actor.workspaceId, listName);
  const current = found ? await deps.store.tasks.graph(found.id, taskStatuses) : { tasks: [], edges: [] };
  const bySeq = new Map(current.tasks.map((t) => [t.seq, t]));
  const known = new Map<string, TaskRecord>();
  for (const file of parsed.tasks) {
    const task = bySeq.get(Number(file.id));
    if (task) known.set(file.id, task);
  }
  const deleted = new Set(parsed.tasks.filter((t) => t.status === 'deleted').map((t) => t.id));
  const idOfFile = (id: string) => known.get(id)?.id ?? `new:${id}`;
  const folderIds = new Set([...known.values()].map((t) => t.id));
  const deletedIds = new Set([...deleted].map(idOfFile));
  const edgeKeys = (edges: readonly TaskEdge[], keepEdge: (e: TaskEdge) => boolean) => {
    const of = new Map<string, Set<string>>();
    for (const e of edges.filter(keepEdge))
      for (const end of [e.blockerId, e.blockedId]) of.set(end, (of.get(end) ?? new Set()).add(key(e)));
    return of;
  };
  const had = edgeKeys(
    current.edges,
    (e) => (folderIds.has(e.blockerId) && folderIds.has(e.blockedId)) || deletedIds.has(e.blockerId) || deletedIds.has(e.blockedId),
  );
  const wants = edgeKeys(
    parsed.edges.map((e) => ({ blockerId: idOfFile(e.blockerId), blockedId: idOfFile(e.blockedId) })),
    () => true,
  );
  const sameKeys = (a = new Set<string>(), b = new Set<string>()) => a.size === b.size && [...a].every((k) => b.has(k));
  const changed = (file: ParsedTaskFiles['tasks'][number]) => {
    const task = known.get(file.id);
    if (!task) return true;
    const fields = ['subject', 'description', 'status', 'activeForm', 'owner', 'metadata', 'priority', 'labels', 'fileKeyTail'] as const;
    return fields.some((f) => JSON.stringify(task[f]) !== JSON.stringify(file[f])) || !sameKeys(had.get(task.id), wants.get(task.id));
  };
  const touched = parsed.tasks.filter(changed);
  const ids = () => Object.fromEntries(parsed.tasks.map((t) => [t.id, idOfFile(t.id)]));
  if (touched.length === 0 && found) {
    await deps.store.transaction((repos) => repos.tasks.raiseTaskSeq(found.id, topNumber(parsed)));
    return { listName, imported: parsed.tasks.length, ids: ids() };
  }

  const written = await writeTasks(deps, actor, listName, { create: true }, async (changes, repos) => {
    const list = changes.list;
    const idOf = new Map(parsed.tasks.flatMap((t) => (known.has(t.id) ? [[t.id, known.get(t.id)?.id as string] as const] : [])));
    const existed: string[] = [];
    const now = deps.clock.now();
    for (const file of touched) {
      const id = await repos.tasks.idOfSeq(list.id, Number(file.id));
      if (id === null) {
        const task: TaskRecord = {
          id: `T-${deps.ids.uuid()}`,
          listId: list.id,
          seq: Number(file.id),
          subject: file.subject,
          description: file.description,
          status: file.status,
          activeForm: file.activeForm,
          owner: file.owner,
          metadata: file.metadata,
          sessionId: file.threadId ?? thread,
          repoUrl: file.repoUrl,
          parentId: file.parentId,
          fileKeyTail: file.fileKeyTail,
          priority: file.priority,
          labels: file.labels,
          version: 1,
          createdAt: now,
          updatedAt: now,
        };
        await changes.created(task, 'imported');
        idOf.set(file.id, task.id);
        continue;
      }
      const task = await changes.task(id);
      for (const field of ['subject', 'description', 'status', 'activeForm', 'owner', 'metadata', 'priority', 'labels'] as const) {
        changes.set(task, field, file[field]);
      }
      // The file's layout: kept with the task, written when the task is (an unchanged task keeps the one it has).
      task.fileKeyTail = file.fileKeyTail;
      if (file.status === 'deleted') changes.kind(task.id, 'deleted');
      idOf.set(file.id, task.id);
      existed.push(task.id);
    }
    const folder = new Set(idOf.values());
    const gone = new Set([...deleted].map((id) => idOf.get(id)));
    const mine = new Set(touched.map((t) => idOf.get(t.id)));
    const wanted = parsed.edges
      .map((e) => ({ blockerId: idOf.get(e.blockerId) as string, blockedId: idOf.get(e.blockedId) as string }))
      .filter((e) => mine.has(e.blockerId) || mine.has(e.blockedId));
    const keep = new Set(wanted.map(key));
    // Edges among the folder's tasks are the files' (edges to other tasks of the list stay); a deleted task has none.
    for (const edge of existed.length ? await repos.tasks.edgesOf(list.id, existed) : []) {
      const ends = [edge.blockerId, edge.blockedId];
      if (ends.some((id) => gone.has(id)) || (ends.every((id) => folder.has(id)) && !keep.has(key(edge)))) {
        await changes.removeEdge(edge.blockerId, edge.blockedId);
      }
    }
    for (const edge of wanted) await changes.addEdge(edge.blockerId, edge.blockedId);
    await repos.tasks.raiseTaskSeq(list.id, topNumber(parsed));
    return Object.fromEntries(idOf);
  });
  return { listName, imported: parsed.tasks.length, ids: written.result };
}

/** The change record of each imported task (its fields from nothing, its edges), numbered from `firstChange`. */
function importChanges(
  actor: Actor,
  list: TaskListRecord,
  records: readonly TaskRecord[],
  edgesOf: ReadonlyMap<string, TaskEdge[]>,
  now: Date,
  firstChange: number,
): TaskChangeRecord[] {
  return records.map((task, i) => {
    const own = edgesOf.get(task.id) ?? [];
    const fields = initialFields(task);
    const blocks = own.filter((e) => e.blockerId === task.id).map((e) => e.blockedId);
    const blockedBy = own.filter((e) => e.blockedId === task.id).map((e) => e.blockerId);
    if (blocks.length) fields.blocks = { from: [], to: blocks };
    if (blockedBy.length) fields.blockedBy = { from: [], to: blockedBy };
    return {
      listId: list.id,
      seq: firstChange + i,
      taskId: task.id,
      kind: 'imported' as const,
      sessionId: actor.sessionId,
      keyId: actor.keyId,
      at: now,
      changes: fields,
      snapshot: presentTask(task, own, list.name),
    };
  });
}

const eventsOf = (workspaceId: string, listName: string, changes: readonly TaskChangeRecord[]) =>
  changes.map((r): LiveEvent => ({
    topic: taskTopic(workspaceId, listName),
    id: String(r.seq),
    data: { ...presentChange(r), task: r.snapshot },
  }));

/** One staging transaction: the rows, and the staging list's heartbeat (so a long import is never taken for dead). */
const stage = async (deps: Deps, staging: TaskListRecord, rows: StagedRows) => {
  await deps.store.transaction((repos) => repos.tasks.stageImport(staging, deps.clock.now(), rows));
  await deps.pause?.();
};

/** Stages `rows` in slices, each in a short transaction of its own, letting other work in between. */
async function stageInSlices<T>(deps: Deps, staging: TaskListRecord, rows: readonly T[], size: number, rowsOf: (slice: T[]) => StagedRows) {
  for (let i = 0; i < rows.length; i += size) await stage(deps, staging, rowsOf(rows.slice(i, i + size)));
}

/**
 * Imports a batch of task files into a list, all or nothing: sisyphus ids are kept (refused when one is taken in the
 * list; ids are scoped to their list); a Claude Code task `n` becomes the list's `#n` (its number kept, so an export
 * writes it back as `n`), and a folder whose numbers the list already has updates those tasks in place instead
 * (`importInPlace`); edges are kept. Each task is recorded as one 'imported' change.
 *
 * The files are parsed and checked first (known edges, no self edge, no cycle, none to a deleted task). The rows are
 * then written into a hidden staging list in short transactions of a few hundred rows — other writes take the writer
 * in between — and one last short transaction moves them into the list (counters reserved, sisyphus seqs shifted if
 * tasks were created meanwhile). Nothing is visible before that move; a failure removes the staging list.
 */
export async function importTasks(
  deps: Deps,
  actor: Actor,
  input: { listName?: string | undefined; format: TaskFileFormat; files: readonly TaskFile[] },
  options: { leaseMs?: number } = {},
) {
  requireRole(actor, 'agent');
  const leaseMs = options.leaseMs ?? IMPORT_LEASE_MS;
  const parsed = await parseTaskFilesInSlices(input.format, input.files, deps.pause ?? (async () => {}));
  const listName = input.listName ?? DEFAULT_LIST;
  const thread = actor.sessionId ?? `import:${actor.keyId}`;
  const numbered = input.format === 'claude';
  const numbers = numbered ? parsed.tasks.map((task) => Number(task.id)) : [];
  const ids = new Map(parsed.tasks.map((task) => [task.id, numbered ? `T-${deps.ids.uuid()}` : task.id]));
  const newIds = [...ids.values()];
  const edges = parsed.edges.map((e) => ({ blockerId: ids.get(e.blockerId) as string, blockedId: ids.get(e.blockedId) as string }));
  const edgesOf = new Map<string, TaskEdge[]>();
  for (const e of edges) for (const end of [e.blockerId, e.blockedId]) edgesOf.set(end, [...(edgesOf.get(end) ?? []), e]);
  await deps.pause?.();

  // Refused before anything is written: an id taken in the list. The seqs the tasks will most likely get, so their
  // change records (which name them as #n) are written once.
  const now = deps.clock.now();
  const staging: TaskListRecord = {
    id: deps.ids.id('tl'),
    workspaceId: actor.workspaceId,
    name: `:import:${deps.ids.uuid()}`,
    createdAt: now,
  };
  /** The task counter an import of Claude Code numbers raised, to put back if the import fails. */
  let raised: { listId: string; from: number; to: number } | null = null;
  const expectedSeq = await deps.store.transaction(async (repos) => {
    raised = null; // as of this run of the work
    // One import per workspace at a time, whichever process or replica runs it: the caller waits and tries again.
    const heartbeat = await repos.tasks.importInProgress(actor.workspaceId, new Date(now.getTime() - leaseMs));
    if (heartbeat) throw new ImportInProgress(heartbeat);
    const list = await repos.tasks.findList(actor.workspaceId, listName);
    if (list && input.format === 'sisyphus') {
      const [first] = (await repos.tasks.taken(list.id, { ids: newIds })).ids;
      if (first !== undefined) throw taken(first);
    }
    if (list && numbered) {
      // The folder imported again: its tasks are updated in place, not staged.
      if ((await repos.tasks.taken(list.id, { seqs: numbers })).seqs.length) return null;
      // Its numbers are the import's from now on: a task created meanwhile is numbered after them.
      const from = await repos.tasks.taskSeqOf(list.id);
      if (from < topNumber(parsed)) {
        await repos.tasks.raiseTaskSeq(list.id, topNumber(parsed));
        raised = { listId: list.id, from, to: topNumber(parsed) };
      }
    }
    await repos.tasks.stageImport(staging, now, {});
    return (list ? await repos.tasks.taskSeqOf(list.id) : 0) + 1;
  });
  if (expectedSeq === null) return importInPlace(deps, actor, listName, parsed, thread);

  const records: TaskRecord[] = parsed.tasks.map((task, i) => ({
    id: ids.get(task.id) as string,
    listId: staging.id,
    seq: numbered ? Number(task.id) : expectedSeq + i,
    subject: task.subject,
    description: task.description,
    status: task.status,
    activeForm: task.activeForm,
    owner: task.owner,
    metadata: task.metadata,
    sessionId: task.threadId ?? thread,
    repoUrl: task.repoUrl,
    parentId: task.parentId,
    fileKeyTail: task.fileKeyTail,
    priority: task.priority,
    labels: task.labels,
    version: 1,
    createdAt: now,
    updatedAt: now,
  }));
  const target = { ...staging, name: listName };
  try {
    await stageInSlices(deps, staging, records, STAGE_ROWS, (slice) => ({ tasks: slice }));
    await stageInSlices(deps, staging, edges, STAGE_ROWS * 2, (slice) => ({ edges: slice }));
    if (edges.length) await stage(deps, staging, { graph: edges });
    // The change records, built a slice at a time (numbered 1…n in the staging list).
    const staged: TaskChangeRecord[] = [];
    for (let i = 0; i < records.length; i += STAGE_ROWS) {
      const slice = importChanges(actor, target, records.slice(i, i + STAGE_ROWS), edgesOf, now, i + 1);
      staged.push(...slice);
      await stage(deps, staging, { changes: slice.map((c) => ({ ...c, listId: staging.id })) });
    }

    let madeList = false;
    const publish = () =>
      deps.store.transaction(async (repos) => {
        madeList = false; // as of this run of the work
        const list = await repos.tasks.findList(actor.workspaceId, listName, { hold: true });
        if (!list) {
          madeList = true;
          // A new list: the staging list becomes it, as staged (its tasks #1…#n, its changes 1…n); no row moves.
          await repos.tasks.publishImport(
            staging.id,
            { name: listName, taskSeq: numbered ? topNumber(parsed) : records.length },
            records.length,
          );
          return eventsOf(
            actor.workspaceId,
            listName,
            staged.map((c) => ({ ...c, listId: staging.id })),
          );
        }
        if (input.format === 'sisyphus') {
          const [first] = (await repos.tasks.taken(list.id, { ids: newIds })).ids;
          if (first !== undefined) throw taken(first);
        }
        if (numbered) {
          // Claude Code's numbers are kept: none may have been taken meanwhile, and none is given out again.
          const [first] = (await repos.tasks.taken(list.id, { seqs: numbers })).seqs;
          if (first !== undefined) throw numberTaken(first, listName);
        }
        const { taskShift, firstChange } = await repos.tasks.publishImport(
          staging.id,
          { listId: list.id, stagedFrom: expectedSeq, keepNumbers: numbered ? topNumber(parsed) : undefined },
          records.length,
        );
        if (taskShift === 0)
          return eventsOf(
            list.workspaceId,
            list.name,
            staged.map((c) => ({ ...c, listId: list.id, seq: c.seq + firstChange - 1 })),
          );
        // Tasks were created in the list meanwhile: the records, which name each task's #n, are written again.
        const shifted = records.map((t) => ({ ...t, seq: t.seq + taskShift }));
        const rebuilt = importChanges(actor, list, shifted, edgesOf, now, 0).map(({ seq, ...change }) => change);
        const changes = await repos.tasks.commit(list.id, { tasks: [], changes: rebuilt, readiness: [] });
        return eventsOf(list.workspaceId, list.name, changes ?? []);
      });
    // A new list that a concurrent first write (in another process) made first: once more, into that list.
    const events = await publish().catch(async (error: unknown) => {
      if (!(await lostListRace(deps, actor, listName, madeList, error))) throw error;
      madeList = false;
      return publish();
    });
    for (const event of events) deps.events.publish(event);
  } catch (error) {
    // Numbers reserved for the import go back unless a task took one meanwhile.
    await deps.store.transaction((repos) => repos.tasks.abandonImport(staging.id, raised ?? undefined)).catch(() => undefined);
    throw error;
  }
  return { listName, imported: parsed.tasks.length, ids: Object.fromEntries(ids) };
}

/**
 * Every task of the list with its edges, as files of `format` (sisyphus: deleted ones included; claude: live ones and
 * the `.highwatermark`); none when the list does not exist.
 */
export async function exportTasks(deps: Deps, actor: Actor, input: { listName?: string | undefined; format: TaskFileFormat }) {
  const listName = input.listName ?? DEFAULT_LIST;
  const list = await deps.store.tasks.findList(actor.workspaceId, listName);
  if (!list) return { listName, files: [] };
  const { tasks, edges } = await deps.store.tasks.graph(list.id, taskStatuses);
  return { listName, files: renderTaskFiles(input.format, tasks, edges, await deps.store.tasks.taskSeqOf(list.id)) };
}
