// The task graph use cases (seed 001): TaskCreate, TaskGet, TaskList, TaskUpdate, claims, the plan, history, feed.
import {
  TASK_COMMENTS_SHOWN,
  TASK_SEARCH_PAGE_MAX,
  type Task,
  type TaskClaimInput,
  type TaskCreateInput,
  type TaskListInput,
  type TaskSummary,
  type TaskUpdateInput,
} from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { isPersonKey, requirePermission } from './permissions.ts';
import { LostRace, retryLostRaces } from './compare-and-set.ts';
import { DomainError } from './errors.ts';
import { frozen } from './frozen.ts';
import type { Deps, Repositories, TaskListFilter } from './ports.ts';
import type { TaskListRecord, TaskRecord } from './records.ts';
import { TaskChanges, resolveRef, taskNotFound } from './task-changes.ts';
import { nearestNames } from './nearest-names.ts';
import { checkStatusMove, isReady, mergeMetadata, parallelPlan } from './task-graph.ts';
import { presentChange, presentComment, presentSummary, presentTask } from './task-present.ts';
import { searchWords } from './task-search.ts';
import { attachEvidence, checkCompletion, evidenceRows, renewLease, trustOfMany, withTrust } from './trust-service.ts';

export const DEFAULT_LIST = 'default';

const listNameOf = (input: { listName?: string | undefined }) => input.listName ?? DEFAULT_LIST;

async function findList(repos: Repositories, actor: Actor, name: string) {
  return repos.tasks.findList(actor.workspaceId, name);
}

/** The list by name, made when it does not exist yet (`made` is then told). */
/** Within a write the list found is held against writers in other processes (a new one is, being inserted). */
export async function ensureList(deps: Deps, repos: Repositories, actor: Actor, name: string, made: () => void): Promise<TaskListRecord> {
  const found = await repos.tasks.findList(actor.workspaceId, name, { hold: true });
  if (found) return found;
  const list = { id: deps.ids.id('tl'), workspaceId: actor.workspaceId, name, createdAt: deps.clock.now() };
  made();
  await repos.tasks.createList(list);
  return list;
}

/**
 * Whether a write that failed after making a new list lost that list's insert to a concurrent first write (in another
 * process: its name is unique in the workspace) — then it should run again, into the list that won.
 */
export async function lostListRace(deps: Deps, actor: Actor, listName: string, madeList: boolean, error: unknown) {
  return madeList && !(error instanceof DomainError) && (await deps.store.tasks.findList(actor.workspaceId, listName)) !== null;
}

/** A list that does not exist, said plainly, with the workspace's nearest list names. */
async function listMissing(repos: Pick<Repositories, 'tasks'>, actor: Actor, name: string) {
  const names = await repos.tasks.listNames(actor.workspaceId);
  const hint = names.length
    ? `the nearest names are ${nearestNames(name, names)
        .map((n) => JSON.stringify(n))
        .join(', ')}`
    : 'this workspace has no task lists yet (TaskCreate starts one)';
  return new DomainError('NOT_FOUND', `Error: task list ${JSON.stringify(name)} does not exist; ${hint}.`);
}

async function existingList(repos: Repositories, actor: Actor, name: string) {
  const list = await findList(repos, actor, name);
  if (!list) throw await listMissing(repos, actor, name);
  return list;
}

/**
 * What a write did: the work's result, each changed task as committed (what a read would answer), and the task the
 * write answers with (with `answers`: the task whose id the work returns) with its trust fields, read in the same
 * transaction.
 */
interface Written<T> {
  result: T;
  snapshotOf(id: string): Task | undefined;
  answer: Task | undefined;
}

/**
 * Runs one write transaction, retrying when a concurrent writer won a compare-and-set; publishes after commit. With
 * `answers`, the task whose id the work returns (none for null) is read with its trust fields before the commit: on
 * SQLite the first read after a commit costs far more (measured 220 against 12 µs on a 10,000-task list), and the
 * answer is the transaction's own state.
 */
async function write<T>(
  deps: Deps,
  actor: Actor,
  listName: string,
  options: { create: boolean; answers?: boolean; footprint?: string },
  work: (changes: TaskChanges, repos: Repositories) => Promise<T>,
): Promise<Written<T>> {
  requirePermission(actor, 'writeTasks');
  return retryLostRaces('Error: the task kept changing under concurrent writers; try again.', async () => {
    let madeList = false;
    const transaction = deps.store.transaction(
      async (repos) => {
        madeList = false; // as of this run of the work
        const list = options.create
          ? await ensureList(deps, repos, actor, listName, () => (madeList = true))
          : await repos.tasks.findList(actor.workspaceId, listName, { hold: true });
        if (!list) throw await listMissing(repos, actor, listName);
        const changes = new TaskChanges(deps, repos, actor, list);
        const result = await work(changes, repos);
        const committed = await changes.commit();
        const answered = options.answers ? (result as { id: string } | null)?.id : undefined;
        const snapshot = answered ? committed.changes.findLast((r) => r.taskId === answered)?.snapshot : undefined;
        const answer = snapshot ? await withTrust(repos, list.id, snapshot) : undefined;
        return { result, events: committed.events, records: committed.changes, answer };
      },
      options.footprint === undefined ? undefined : { footprint: options.footprint },
    );
    const { result, events, records, answer } = await transaction.catch(async (error: unknown) => {
      if (await lostListRace(deps, actor, listName, madeList, error)) throw new LostRace();
      throw error;
    });
    for (const event of events) deps.events.publish(event);
    // The answer is the task as this transaction left it: no read after the write.
    return { result, snapshotOf: (id: string) => records.findLast((r) => r.taskId === id)?.snapshot, answer };
  });
}

/** One write transaction on a list (made when `create` and missing), as every task use case runs: for the importer. */
export const writeTasks = write;

async function present(repos: Repositories, list: TaskListRecord, task: TaskRecord) {
  return presentTask(task, await repos.tasks.edgesOf(list.id, [task.id]), list.name);
}

/**
 * Creates a task: an agent's from its session (`threadID` is that session), a person's from a member or admin key at
 * the dashboard (`threadID` is then the key's id); an agent key without a session is refused.
 */
export async function create(deps: Deps, actor: Actor, input: TaskCreateInput) {
  requirePermission(actor, 'writeTasks');
  if (!actor.sessionId && !isPersonKey(actor)) {
    throw new DomainError('NO_OWNING_SESSION', 'Error: TaskCreate requires an owning agent session before anything is written.');
  }
  const sessionId = actor.sessionId ?? actor.keyId;
  const written = await write(deps, actor, listNameOf(input), { create: true, answers: true }, async (changes, repos) => {
    const now = deps.clock.now();
    const task = await changes.created({
      id: `T-${deps.ids.uuid()}`,
      listId: changes.list.id,
      subject: input.subject,
      description: input.description ?? '',
      status: 'pending',
      activeForm: input.activeForm ?? null,
      owner: input.owner ?? null,
      metadata: input.metadata ? mergeMetadata({}, input.metadata) : {},
      sessionId,
      repoUrl: input.repoURL ?? null,
      parentId: input.parentID ?? null,
      fileKeyTail: null,
      priority: input.priority ?? null,
      labels: input.labels ?? [],
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
    if (input.requires?.length) {
      const requires = [...new Set(input.requires)];
      await repos.trust.setRequirements(changes.list.id, task.id, requires);
      changes.note(task, 'requires', null, requires);
    }
    for (const blocker of input.blockedBy ?? []) await changes.addEdge(blocker, task.id);
    for (const blocked of input.blocks ?? []) await changes.addEdge(task.id, blocked);
    return { id: task.id, listId: changes.list.id };
  });
  return written.answer ?? get(deps, actor, { listName: input.listName, id: written.result.id });
}

/** The task a reference names in the caller's list, with that list; refused when either does not exist. */
async function findTask(deps: Deps, actor: Actor, input: { listName?: string | undefined; id: string }) {
  const name = listNameOf(input);
  const list = await existingList(deps.store, actor, name);
  const task = await deps.store.tasks.get(list.id, await resolveRef(deps.store, list.id, input.id));
  if (!task) throw taskNotFound(input.id, name);
  return { list, task };
}

export async function get(deps: Deps, actor: Actor, input: { listName?: string | undefined; id: string }) {
  const { list, task } = await findTask(deps, actor, input);
  return withTrust(deps.store, list.id, await present(deps.store, list, task));
}

/** TaskGet: the task with its newest comments and how many it has. */
export async function getTaskDetail(deps: Deps, actor: Actor, input: { listName?: string | undefined; id: string }) {
  const { list, task } = await findTask(deps, actor, input);
  const [shown, newest, count] = await Promise.all([
    present(deps.store, list, task).then((shown) => withTrust(deps.store, list.id, shown)),
    deps.store.comments.newest(list.id, task.id, TASK_COMMENTS_SHOWN),
    deps.store.comments.count(list.id, task.id),
  ]);
  return { ...shown, comments: { count, newest: newest.map(presentComment) } };
}

const wholeOrDelta = (field: 'blockedBy' | 'blocks') =>
  new DomainError(
    'INVALID_INPUT',
    `Error: invalid input: \`${field}\` sets the whole list; send it alone, or change it with \`add${field[0]?.toUpperCase()}${field.slice(1)}\`/\`remove${field[0]?.toUpperCase()}${field.slice(1)}\`, not both.`,
  );

function staleVersion(task: TaskRecord, expected: number, current: unknown) {
  return new DomainError(
    'STALE_VERSION',
    `Error: stale version: task ${task.id} was read at version ${expected} but is now at version ${task.version}; read it again.`,
    { currentVersion: task.version, current },
  );
}

/** A task list's footprint (`TransactionOptions`): its writes go in turn, beside those of other lists and sessions. */
export const listFootprint = (workspaceId: string, listName: string) => `tasks:${workspaceId}/${listName}`;

/** What an update may change and touch nothing but its task's row, lease and search text: a footprint of the task's own. */
const OWN_FIELDS = new Set([
  'listName',
  'id',
  'expectedVersion',
  'subject',
  'description',
  'activeForm',
  'metadata',
  'repoURL',
  'priority',
  'labels',
]);

/**
 * An update's footprint: a task's own within its list's for one that changes only the task's own fields (two such on other
 * tasks of one list may run side by side); else its list's. (A task named two ways, by id and by `#seq`, gets two
 * footprints: their compare-and-set on the task's version still orders them.)
 */
export const updateFootprint = (workspaceId: string, input: TaskUpdateInput) => {
  const list = listFootprint(workspaceId, listNameOf(input));
  const own = Object.entries(input).every(([field, value]) => value === undefined || OWN_FIELDS.has(field));
  return own ? `${list}/task:${input.id}` : list;
};

export async function update(deps: Deps, actor: Actor, input: TaskUpdateInput) {
  const footprint = updateFootprint(actor.workspaceId, input);
  const written = await write(deps, actor, listNameOf(input), { create: false, answers: true, footprint }, async (changes, repos) => {
    const task = await changes.task(input.id);
    if (input.expectedVersion !== undefined && input.expectedVersion !== task.version) {
      throw staleVersion(task, input.expectedVersion, await present(repos, changes.list, task));
    }
    if (task.status === 'deleted') {
      throw new DomainError('CONFLICT', `Error: task ${task.id} is deleted; it can no longer change.`);
    }
    if (input.subject !== undefined) changes.set(task, 'subject', input.subject);
    if (input.description !== undefined) changes.set(task, 'description', input.description);
    if (input.activeForm !== undefined) changes.set(task, 'activeForm', input.activeForm);
    if (input.owner !== undefined) changes.set(task, 'owner', input.owner);
    if (input.metadata !== undefined) changes.set(task, 'metadata', mergeMetadata(task.metadata, input.metadata));
    if (input.repoURL !== undefined) changes.set(task, 'repoUrl', input.repoURL);
    if (input.parentID !== undefined) changes.set(task, 'parentId', input.parentID);
    if (input.priority !== undefined) changes.set(task, 'priority', input.priority);
    if (input.labels !== undefined) changes.set(task, 'labels', input.labels);
    if (input.blockedBy !== undefined && (input.addBlockedBy || input.removeBlockedBy)) throw wholeOrDelta('blockedBy');
    if (input.blocks !== undefined && (input.addBlocks || input.removeBlocks)) throw wholeOrDelta('blocks');
    // A whole list replaces the edges on its side: edges it drops go first, so the cycle check sees the new graph.
    const edges = await changes.edgesOf([task.id]);
    const ids = async (refs: readonly string[]) => new Set(await Promise.all(refs.map((r) => changes.resolve(r))));
    if (input.blockedBy !== undefined) {
      const keep = await ids(input.blockedBy);
      for (const e of edges) if (e.blockedId === task.id && !keep.has(e.blockerId)) await changes.removeEdge(e.blockerId, task.id);
    }
    if (input.blocks !== undefined) {
      const keep = await ids(input.blocks);
      for (const e of edges) if (e.blockerId === task.id && !keep.has(e.blockedId)) await changes.removeEdge(task.id, e.blockedId);
    }
    for (const id of new Set(input.blockedBy ?? [])) await changes.addEdge(id, task.id);
    for (const id of new Set(input.blocks ?? [])) await changes.addEdge(task.id, id);
    for (const id of input.removeBlockedBy ?? []) await changes.removeEdge(id, task.id);
    for (const id of input.removeBlocks ?? []) await changes.removeEdge(task.id, id);
    for (const id of input.addBlockedBy ?? []) await changes.addEdge(id, task.id);
    for (const id of input.addBlocks ?? []) await changes.addEdge(task.id, id);
    const now = deps.clock.now();
    const evidence = evidenceRows(changes.list.id, task.id, input.evidence ?? [], 'agent', now);
    if (input.status === 'completed' && task.status !== 'completed') {
      await checkCompletion(repos, changes.list, task, input.id, evidence);
    }
    await attachEvidence(changes, repos, task, evidence);
    if (input.status === 'deleted') {
      changes.set(task, 'status', 'deleted');
      changes.kind(task.id, 'deleted');
      await changes.removeAllEdges(task.id);
    } else if (input.status !== undefined && input.status !== task.status) {
      const unresolved = (await repos.tasks.unresolvedBlockers(changes.list.id, [task.id])).map((e) => e.blockerId);
      checkStatusMove(task.id, input.status, unresolved);
      changes.set(task, 'status', input.status);
    }
    // Any write by the owner renews its lease; a task that left the owner or progress loses it.
    const renewed = await renewLease(deps, repos, changes.list, task, actor.agentName);
    return { id: task.id, leaseEnds: renewed?.expiresAt ?? null };
  });
  if (written.result.leaseEnds) deps.leases?.scheduled(written.result.leaseEnds);
  return written.answer ?? get(deps, actor, input);
}

/** How recent another agent's claim must be for "nothing ready" to read as a lost race. */
const RACE_WINDOW_MS = 5_000;

/** The latest claim by another agent in the last few seconds: why a claim-next found nothing ready, if it was a race. */
async function lostRace(deps: Deps, actor: Actor, listName: string, agent: string) {
  const list = await findList(deps.store, actor, listName);
  if (!list) return null;
  const position = await deps.store.tasks.feedPosition(list.id);
  const recent = await deps.store.tasks.changesAfter(list.id, Math.max(0, position - 50), 50);
  const since = deps.clock.now().getTime() - RACE_WINDOW_MS;
  const claim = recent.findLast((c) => c.kind === 'claimed' && c.at.getTime() >= since && c.snapshot.owner !== agent);
  return claim ? { id: claim.taskId, ref: claim.snapshot.ref ?? claim.taskId, owner: claim.snapshot.owner ?? '' } : null;
}

/** Claims a named task, or the oldest ready one: status in_progress and owner set, atomically. */
export async function claim(deps: Deps, actor: Actor, input: TaskClaimInput) {
  requireRole(actor, 'agent');
  const agent = input.owner ?? actor.agentName;
  if (!agent) {
    throw new DomainError('NO_OWNING_SESSION', 'Error: a claim needs an agent name: call with a session token or name an `owner`.');
  }
  if (input.id === undefined && !(await findList(deps.store, actor, listNameOf(input)))) {
    if (input.listName !== undefined) throw await listMissing(deps.store, actor, input.listName);
    return { task: null };
  }
  const written = await write(deps, actor, listNameOf(input), { create: false, answers: true }, async (changes, repos) => {
    let task: TaskRecord | null;
    const capabilities = actor.sessionId ? await repos.trust.capabilitiesOf(actor.sessionId) : [];
    if (input.id === undefined) {
      // The oldest ready task whose requirements the session meets.
      const next = await repos.trust.firstReadyFor(changes.list.id, agent, capabilities);
      if (!next) return null;
      task = await changes.task(next);
    } else {
      task = await changes.task(input.id);
      const refuse = (why: string) => new DomainError('CLAIM_REFUSED', `Error: cannot claim ${input.id}: ${why}.`);
      if (task.owner !== null && task.owner !== agent) throw refuse(`already claimed by ${task.owner}`);
      if (task.status !== 'pending') throw refuse(`it is ${task.status}, not pending`);
      const unresolved = (await repos.tasks.unresolvedBlockers(changes.list.id, [task.id])).map((e) => e.blockerId);
      if (unresolved.length) throw refuse(`blocked by ${unresolved.join(', ')}`);
      const requires = (await repos.trust.requirementsOf(changes.list.id, [task.id])).map((r) => r.capability);
      const missing = requires.filter((c) => !capabilities.includes(c));
      if (missing.length) {
        throw refuse(
          `it requires ${missing.join(', ')}, which this session did not declare (open the session with \`capabilities\` naming ${missing.length > 1 ? 'them' : 'it'})`,
        );
      }
    }
    changes.set(task, 'status', 'in_progress');
    changes.set(task, 'owner', agent);
    changes.kind(task.id, 'claimed');
    const settings = input.leaseMs === undefined ? await repos.trust.settings(changes.list.id) : null;
    const leaseMs = input.leaseMs ?? settings?.leaseMs ?? null;
    let leaseEnds: Date | null = null;
    if (leaseMs !== null) {
      leaseEnds = new Date(deps.clock.now().getTime() + leaseMs);
      await repos.trust.putLease({ listId: changes.list.id, taskId: task.id, owner: agent, leaseMs, expiresAt: leaseEnds });
      changes.note(task, 'lease', null, { owner: agent, leaseMs, expiresAt: leaseEnds.toISOString() });
    } else {
      await repos.trust.dropLease(changes.list.id, task.id);
    }
    return { id: task.id, leaseEnds };
  });
  const claimed = written.result;
  if (claimed === null) return { task: null, lostRace: await lostRace(deps, actor, listNameOf(input), agent) };
  if (claimed.leaseEnds) deps.leases?.scheduled(claimed.leaseEnds);
  return { task: written.answer ?? (await get(deps, actor, { listName: input.listName, id: claimed.id })) };
}

export async function list(deps: Deps, actor: Actor, input: TaskListInput) {
  const name = listNameOf(input);
  const list = await findList(deps.store, actor, name);
  if (!list && input.listName !== undefined) throw await listMissing(deps.store, actor, name);
  if (!list) return { listName: name, tasks: [] };
  const asked = typeof input.status === 'string' ? [input.status] : input.status;
  const statuses = asked ?? (input.includeCompleted ? ['pending', 'in_progress', 'completed'] : ['pending', 'in_progress']);
  const agent = actor.agentName;
  const priorities = typeof input.priority === 'string' ? [input.priority] : input.priority;
  // readyOnly: the tasks the caller can start (unowned or its own); with an owner, the tasks that owner can start now
  // among its own (unowned ones are nobody's: `owner` filters by owner with or without readyOnly).
  const filter = {
    statuses: input.readyOnly ? statuses.filter((s) => s === 'pending') : statuses,
    owner: input.owner,
    readyFor: input.readyOnly && input.owner === undefined ? (agent ?? '') : undefined,
    ready: input.readyOnly && input.owner !== undefined,
    priorities,
    label: input.label,
    limit: input.limit ?? 1000,
  };
  // A page without a search is kept for reuse until the list's next change (see pageCacheable).
  const key = input.query === undefined && deps.readCache ? pageKey(list.id, name, agent, filter) : null;
  const stamp = key === null ? 0 : await deps.store.tasks.feedPosition(list.id);
  const kept = key === null ? undefined : deps.readCache?.get(key, stamp);
  if (kept !== undefined) return kept as TaskListPage;
  // With a query: the matching tasks best first, then the other filters on them.
  const tasks =
    input.query === undefined ? await deps.store.tasks.list(list.id, filter) : await matching(deps, list.id, input.query, filter, agent);
  // A ready task has no unresolved blocker: only other pages look them up.
  const unresolved = input.readyOnly
    ? []
    : await deps.store.tasks.unresolvedBlockers(
        list.id,
        tasks.map((t) => t.id),
      );
  const trusted = await trustOfMany(
    deps.store,
    list.id,
    tasks.map((t) => t.id),
  );
  const page = {
    listName: name,
    tasks: tasks.map((t) => ({
      ...presentSummary(
        t,
        unresolved.filter((e) => e.blockedId === t.id).map((e) => e.blockerId),
        agent,
      ),
      ...trusted.get(t.id),
    })),
  };
  if (key !== null && pageCacheable(page)) deps.readCache?.put(key, stamp, frozen(page), page.tasks.length + 1);
  return page;
}

type TaskListPage = { listName: string; tasks: TaskSummary[] };

/** A page's key in the read cache: the list, the reader (readiness and `mine` depend on it) and the filter. */
const pageKey = (listId: string, name: string, agent: string | null, filter: TaskListFilter) =>
  `tasks.list\n${listId}\n${name}\n${agent ?? ''}\n${JSON.stringify(filter)}`;

/**
 * Whether a page may be reused until the list's feed position moves. Every write to a task, its edges or its evidence
 * records a change (TaskChanges), which moves it; a lease's renewal (a heartbeat) does not, so a page showing a lease is
 * read again every time. A task without a lease gets one only by a claim, which is a change.
 */
const pageCacheable = (page: TaskListPage) => page.tasks.every((t) => t.leaseExpiresAt === undefined);

/** TaskList's `query`: the tasks the search finds (best first) that pass the list's other filters. */
async function matching(deps: Deps, listId: string, query: string, filter: TaskListFilter, agent: string | null) {
  const words = searchWords(query);
  if (!words.length) return [];
  const hits = await deps.store.search.search(listId, words, Math.min(filter.limit, TASK_SEARCH_PAGE_MAX));
  const byId = new Map(
    (
      await deps.store.tasks.getMany(
        listId,
        hits.map((h) => h.taskId),
      )
    ).map((t) => [t.id, t]),
  );
  const found = hits.flatMap((h) => byId.get(h.taskId) ?? []);
  const unresolved =
    filter.readyFor !== undefined || filter.ready
      ? await deps.store.tasks.unresolvedBlockers(
          listId,
          found.map((t) => t.id),
        )
      : [];
  const ready = (t: TaskRecord) =>
    isReady(
      t,
      unresolved.filter((e) => e.blockedId === t.id).map((e) => e.blockerId),
      filter.ready ? t.owner : (agent ?? ''),
    );
  return found.filter(
    (t) =>
      filter.statuses.includes(t.status) &&
      (filter.owner === undefined || t.owner === filter.owner) &&
      (filter.priorities === undefined || (t.priority !== null && filter.priorities.includes(t.priority))) &&
      (filter.label === undefined || t.labels.includes(filter.label)) &&
      (filter.readyFor === undefined && !filter.ready ? true : ready(t)),
  );
}

/** The remaining (pending and in-progress) graph as waves, and its critical path. */
export async function plan(deps: Deps, actor: Actor, input: { listName?: string | undefined }) {
  const name = listNameOf(input);
  const list = await findList(deps.store, actor, name);
  if (!list && input.listName !== undefined) throw await listMissing(deps.store, actor, name);
  if (!list) return { listName: name, waves: [], criticalPath: [], criticalPathLength: 0 };
  const { tasks, edges } = await deps.store.tasks.graph(list.id, ['pending', 'in_progress']);
  const ids = [...tasks].sort((a, b) => a.seq - b.seq).map((t) => t.id);
  return { listName: name, ...parallelPlan(ids, edges) };
}

export async function history(deps: Deps, actor: Actor, input: { listName?: string | undefined; id: string }) {
  const { list, task } = await findTask(deps, actor, input);
  const changes = await deps.store.tasks.changesOf(list.id, task.id);
  // Who made each change, by the key's name: a person's change reads as the person's key.
  const keyIds = [...new Set(changes.map((c) => c.keyId))];
  const keys = await Promise.all(keyIds.map((id) => deps.store.keys.get(actor.workspaceId, id)));
  const names = new Map(keys.flatMap((k) => (k ? [[k.id, k.name] as const] : [])));
  return {
    changes: changes.map((c) => {
      const shown = presentChange(c);
      return { ...shown, by: { ...shown.by, keyName: names.get(c.keyId) ?? null } };
    }),
  };
}

/** The list feed's current position (its last change), 0 when the list does not exist yet. */
export async function feedPosition(deps: Deps, actor: Actor, input: { listName?: string | undefined }) {
  const list = await findList(deps.store, actor, listNameOf(input));
  return list ? deps.store.tasks.feedPosition(list.id) : 0;
}

/** One page of the list's changes after `after`, oldest first, each with the task as it stood: the feed's replay. */
export async function changesAfter(deps: Deps, actor: Actor, input: { listName?: string | undefined; after: number; limit?: number }) {
  const name = listNameOf(input);
  const list = await findList(deps.store, actor, name);
  if (!list) return { events: [], more: false };
  const limit = input.limit ?? 500;
  const rows = await deps.store.tasks.changesAfter(list.id, input.after, limit + 1);
  const events = rows.slice(0, limit).map((r) => ({ ...presentChange(r), task: r.snapshot }));
  return { events, more: rows.length > limit };
}
