// Import and export of a task list as the JSON task files other agent tools keep (sisyphus, Claude Code).
import { type TaskFileFormat, taskStatuses } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import type { Deps, LiveEvent, Repositories } from './ports.ts';
import type { TaskListRecord, TaskRecord } from './records.ts';
import { TaskChanges } from './task-changes.ts';
import { type TaskFile, parseTaskFiles, renderTaskFiles } from './task-files.ts';
import { DEFAULT_LIST } from './task-service.ts';

export { parseTaskFiles, renderTaskFiles, type ParsedTask, type ParsedTaskFiles, type TaskFile } from './task-files.ts';

/** Tasks per change collector: its commit reads the edges of all its tasks in one query, kept under SQLite's 999 parameters. */
const COMMIT_CHUNK = 200;

async function findOrCreateList(deps: Deps, repos: Repositories, actor: Actor, name: string): Promise<TaskListRecord> {
  const found = await repos.tasks.findList(actor.workspaceId, name);
  if (found) return found;
  const list = { id: deps.ids.id('tl'), workspaceId: actor.workspaceId, name, createdAt: deps.clock.now() };
  await repos.tasks.createList(list);
  return list;
}

/**
 * Imports a batch of task files into a list, all or nothing, in one transaction: sisyphus ids are kept (refused when
 * one is taken), claude ids become new T-… ids; edges are kept. Each task is recorded as one 'imported' change.
 *
 * Every task written is new, so no compare-and-set can lose a race and nothing needs a retry. The batch's edges were
 * checked by parseTaskFiles (known, not self, no cycle, none to a deleted task) and only join tasks created here, so
 * they are stored directly; the changes are committed by collectors of COMMIT_CHUNK tasks, after all edges are in.
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
  const { ids, events } = await deps.store.transaction(async (repos) => {
    const ids = new Map<string, string>();
    for (const task of parsed.tasks) {
      const id = input.format === 'sisyphus' ? task.id : `T-${deps.ids.uuid()}`;
      if (input.format === 'sisyphus' && (await repos.tasks.idTaken(id))) {
        throw new DomainError('INVALID_IMPORT', `Error: invalid import: task ${id} already exists.`);
      }
      ids.set(task.id, id);
    }
    const list = await findOrCreateList(deps, repos, actor, listName);
    const collectors: TaskChanges[] = [];
    for (const [i, task] of parsed.tasks.entries()) {
      if (i % COMMIT_CHUNK === 0) collectors.push(new TaskChanges(deps, repos, actor, list));
      const now = deps.clock.now();
      const record: TaskRecord = {
        id: ids.get(task.id) as string,
        listId: list.id,
        seq: await repos.tasks.nextTaskSeq(list.id),
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
      };
      await collectors[collectors.length - 1]?.created(record, 'imported');
    }
    for (const edge of parsed.edges) {
      await repos.tasks.addEdge(list.id, { blockerId: ids.get(edge.blockerId) as string, blockedId: ids.get(edge.blockedId) as string });
    }
    await repos.tasks.refreshOpenBlockers([...new Set(parsed.edges.map((e) => ids.get(e.blockedId) as string))]);
    const events: LiveEvent[] = [];
    for (const changes of collectors) events.push(...(await changes.commit()).events);
    return { ids, events };
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
