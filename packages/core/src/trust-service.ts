// Use cases of task trust: list settings, evidence a hook saw, the completion check, lease renewal and expiry.
import type { EvidenceInput, EvidenceProvenance, Task, TaskListSettingsInput } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { retryLostRaces } from './compare-and-set.ts';
import { DomainError } from './errors.ts';
import { completionRefusal, presentEvidence, reportsSuccess, verdictOf } from './evidence-rules.ts';
import type { Deps, Repositories } from './ports.ts';
import type { TaskListRecord, TaskRecord } from './records.ts';
import { TaskChanges, resolveRef, taskNotFound } from './task-changes.ts';
import type { EvidenceRecord, LeaseRecord } from './trust-ports.ts';

const DEFAULT_LIST = 'default';
const listNameOf = (input: { listName?: string | undefined }) => input.listName ?? DEFAULT_LIST;

/** The key a lease's expiry is recorded under (no caller made it). */
export const LEASE_KEY = 'lease-timer';
/** The key a GitHub check's evidence is recorded under. */
export const GITHUB_KEY = 'github';

const presentLease = (l: LeaseRecord) => ({ owner: l.owner, leaseMs: l.leaseMs, expiresAt: l.expiresAt.toISOString() });

/** The task as TaskGet shows it, with its requirements, evidence (and verdict) and lease when it has them. */
export async function withTrust(repos: Pick<Repositories, 'trust'>, listId: string, task: Task): Promise<Task> {
  const { evidence, leases, requirements: requires } = await repos.trust.trustOf(listId, [task.id]);
  const verdict = verdictOf(evidence);
  const lease = leases[0];
  return {
    ...task,
    ...(requires.length ? { requires: requires.map((r) => r.capability) } : {}),
    ...(evidence.length ? { evidence: evidence.map(presentEvidence) } : {}),
    ...(verdict ? { verdict } : {}),
    ...(lease ? { lease: presentLease(lease) } : {}),
  };
}

/** Many tasks as TaskGet shows them, each with its requirements, evidence, verdict and lease (the dashboard's graph). */
export async function withTrustMany<T extends Task>(repos: Pick<Repositories, 'trust'>, listId: string, tasks: readonly T[]): Promise<T[]> {
  const ids = tasks.map((t) => t.id);
  const { evidence, leases, requirements: requires } = await repos.trust.trustOf(listId, ids);
  const group = <R extends { taskId: string }>(rows: readonly R[]) => {
    const by = new Map<string, R[]>();
    for (const r of rows) by.set(r.taskId, [...(by.get(r.taskId) ?? []), r]);
    return by;
  };
  const [evidenceBy, leaseBy, requiresBy] = [group(evidence), group(leases), group(requires)];
  return tasks.map((task) => {
    const rows = evidenceBy.get(task.id) ?? [];
    const verdict = verdictOf(rows);
    const lease = leaseBy.get(task.id)?.[0];
    const needs = requiresBy.get(task.id) ?? [];
    return {
      ...task,
      ...(needs.length ? { requires: needs.map((r) => r.capability) } : {}),
      ...(rows.length ? { evidence: rows.map(presentEvidence) } : {}),
      ...(verdict ? { verdict } : {}),
      ...(lease ? { lease: presentLease(lease) } : {}),
    };
  });
}

/** Verdicts and lease ends of many tasks (a list page, the dashboard). */
export async function trustOfMany(repos: Pick<Repositories, 'trust'>, listId: string, ids: readonly string[]) {
  const { evidence, leases } = await repos.trust.trustOf(listId, ids);
  const out = new Map<string, { verdict?: ReturnType<typeof verdictOf>; leaseExpiresAt?: string }>();
  for (const id of ids) {
    const verdict = verdictOf(evidence.filter((e) => e.taskId === id));
    const lease = leases.find((l) => l.taskId === id);
    out.set(id, { ...(verdict ? { verdict } : {}), ...(lease ? { leaseExpiresAt: lease.expiresAt.toISOString() } : {}) });
  }
  return out;
}

export const evidenceRows = (
  listId: string,
  taskId: string,
  inputs: readonly EvidenceInput[],
  provenance: EvidenceProvenance,
  at: Date,
): EvidenceRecord[] => inputs.map((body) => ({ listId, taskId, provenance, success: reportsSuccess(body), body, at }));

/** Adds evidence to a task inside a write: stored, and recorded in the task's change. */
export async function attachEvidence(changes: TaskChanges, repos: Repositories, task: TaskRecord, rows: readonly EvidenceRecord[]) {
  if (!rows.length) return;
  await repos.trust.addEvidence(rows);
  changes.note(task, 'evidence', null, rows.map(presentEvidence));
}

/** Refuses `completed` when the list requires evidence the task (with `adding`) lacks. */
export async function checkCompletion(
  repos: Repositories,
  list: TaskListRecord,
  task: TaskRecord,
  ref: string,
  adding: readonly EvidenceRecord[],
) {
  const settings = await repos.trust.settings(list.id);
  if (!settings.requireEvidence && !settings.requireVerified) return;
  const rows = [...(await repos.trust.evidenceOf(list.id, [task.id])), ...adding];
  const refusal = completionRefusal(settings, rows, ref, list.name);
  if (refusal) throw new DomainError('EVIDENCE_REQUIRED', refusal);
}

/**
 * After the owner's write (or a heartbeat): the lease runs for its length again from now; a task no longer in progress
 * under that owner loses it. Returns the new end when renewed.
 */
export async function renewLease(deps: Deps, repos: Repositories, list: TaskListRecord, task: TaskRecord, agent: string | null) {
  const [lease] = await repos.trust.leasesOf(list.id, [task.id]);
  if (!lease) return null;
  if (task.status !== 'in_progress' || task.owner !== lease.owner) {
    await repos.trust.dropLease(list.id, task.id);
    return null;
  }
  if (agent !== lease.owner) return null;
  const renewed = { ...lease, expiresAt: new Date(deps.clock.now().getTime() + lease.leaseMs) };
  await repos.trust.putLease(renewed);
  return renewed;
}

async function listNamed(repos: Pick<Repositories, 'tasks'>, actor: Actor, name: string) {
  const list = await repos.tasks.findList(actor.workspaceId, name);
  if (!list) throw new DomainError('NOT_FOUND', `Error: task list ${JSON.stringify(name)} does not exist.`);
  return list;
}

export async function listSettings(deps: Deps, actor: Actor, input: { listName?: string | undefined }) {
  const name = listNameOf(input);
  const list = await deps.store.tasks.findList(actor.workspaceId, name);
  const settings = list ? await deps.store.trust.settings(list.id) : { requireEvidence: false, requireVerified: false, leaseMs: null };
  return { listName: name, ...settings };
}

/** Sets a list's trust settings (admin); the list is made when it does not exist yet. */
export async function setListSettings(deps: Deps, actor: Actor, input: TaskListSettingsInput) {
  requireRole(actor, 'admin');
  const name = listNameOf(input);
  return deps.store.transaction(async (repos) => {
    let list = await repos.tasks.findList(actor.workspaceId, name);
    if (!list) {
      list = { id: deps.ids.id('tl'), workspaceId: actor.workspaceId, name, createdAt: deps.clock.now() };
      await repos.tasks.createList(list);
    }
    const now = await repos.trust.settings(list.id);
    const next = {
      requireEvidence: input.requireEvidence ?? now.requireEvidence,
      requireVerified: input.requireVerified ?? now.requireVerified,
      leaseMs: input.leaseMs === undefined ? now.leaseMs : input.leaseMs,
    };
    await repos.trust.saveSettings(list.id, next);
    return { listName: name, ...next };
  });
}

/** The owner renews its claim's lease. */
export async function heartbeat(deps: Deps, actor: Actor, input: { listName?: string | undefined; id: string }) {
  requireRole(actor, 'agent');
  const name = listNameOf(input);
  const renewed = await deps.store.transaction(async (repos) => {
    const list = await listNamed(repos, actor, name);
    const task = await repos.tasks.get(list.id, await resolveRef(repos, list.id, input.id));
    if (!task) throw taskNotFound(input.id, name);
    const [lease] = await repos.trust.leasesOf(list.id, [task.id]);
    const refuse = (why: string) => new DomainError('CONFLICT', `Error: cannot renew the lease of ${input.id}: ${why}.`);
    if (!lease) throw refuse("it has no lease (claim it with `leaseMs`, or set the list's `leaseMs`)");
    if (lease.owner !== actor.agentName) throw refuse(`it is claimed by ${lease.owner}`);
    const next = { ...lease, expiresAt: new Date(deps.clock.now().getTime() + lease.leaseMs) };
    await repos.trust.putLease(next);
    return next;
  });
  deps.leases?.scheduled(renewed.expiresAt);
  return { id: renewed.taskId, lease: presentLease(renewed) };
}

/**
 * Evidence a runtime hook saw (a command it watched run): attached, with provenance `hook`, to the list's in-progress
 * tasks the caller works on (owned by its agent name, or by nobody). A list that does not exist attaches to nothing.
 */
export async function recordHookEvidence(deps: Deps, actor: Actor, input: { listName?: string | undefined; evidence: EvidenceInput }) {
  requireRole(actor, 'agent');
  const name = listNameOf(input);
  const list = await deps.store.tasks.findList(actor.workspaceId, name);
  if (!list) return { taskIds: [] };
  const events = await retryLostRaces('Error: the task kept changing under concurrent writers; try again.', () =>
    deps.store.transaction(async (repos) => {
      await repos.tasks.findList(list.workspaceId, list.name, { hold: true });
      const open = await repos.tasks.list(list.id, { statuses: ['in_progress'], limit: 20 });
      const mine = open.filter((t) => t.owner === null || t.owner === actor.agentName);
      const changes = new TaskChanges(deps, repos, actor, list);
      const at = deps.clock.now();
      for (const t of mine) {
        const task = await changes.task(t.id);
        await attachEvidence(changes, repos, task, evidenceRows(list.id, task.id, [input.evidence], 'hook', at));
        changes.kind(task.id, 'evidence');
      }
      return (await changes.commit()).events;
    }),
  );
  for (const event of events) deps.events.publish(event);
  return { taskIds: events.map((e) => (e.data as { taskId: string }).taskId) };
}

/** Whether the task may be completed now under its list's settings (asked before a runtime completes it). */
export async function completionCheck(deps: Deps, actor: Actor, input: { listName?: string | undefined; id: string }) {
  const name = listNameOf(input);
  const list = await deps.store.tasks.findList(actor.workspaceId, name);
  if (!list) return { allowed: true, reason: null };
  const task = await deps.store.tasks.get(list.id, await resolveRef(deps.store, list.id, input.id));
  if (!task) return { allowed: true, reason: null };
  const settings = await deps.store.trust.settings(list.id);
  const reason = completionRefusal(settings, await deps.store.trust.evidenceOf(list.id, [task.id]), input.id, list.name);
  return { allowed: reason === null, reason };
}

/** The actor a lease's expiry is recorded as: the workspace's, no key or session made it. */
const leaseActor = (workspaceId: string, keyId = LEASE_KEY): Actor => ({
  workspaceId,
  role: 'agent',
  keyId,
  sessionId: null,
  agentName: null,
});

/**
 * Returns every task whose lease ran out to ready: owner cleared, status pending, a `lease_expired` change and its live
 * event. Each expiry is its own transaction that reads the lease again, so several processes acting on the same lease
 * return the task once. Resolves with how many tasks it returned.
 */
export async function expireLeases(deps: Deps): Promise<number> {
  let expired = 0;
  for (;;) {
    const due = await deps.store.trust.dueLeases(deps.clock.now(), 50);
    if (!due.length) return expired;
    for (const lease of due) if (await expireOne(deps, lease)) expired++;
    if (due.length < 50) return expired;
  }
}

async function expireOne(deps: Deps, lease: LeaseRecord): Promise<boolean> {
  const events = await retryLostRaces('Error: the task kept changing under concurrent writers; try again.', () =>
    deps.store.transaction(async (repos) => {
      const list = await repos.trust.listOf(lease.listId);
      if (!list) {
        await repos.trust.dropLease(lease.listId, lease.taskId);
        return [];
      }
      await repos.tasks.findList(list.workspaceId, list.name, { hold: true });
      const [now] = await repos.trust.leasesOf(list.id, [lease.taskId]);
      if (!now || now.expiresAt.getTime() > deps.clock.now().getTime()) return [];
      await repos.trust.dropLease(list.id, lease.taskId);
      const changes = new TaskChanges(deps, repos, leaseActor(list.workspaceId), list);
      const task = await changes.task(lease.taskId).catch(() => null);
      if (!task || task.status !== 'in_progress' || task.owner !== now.owner) return [];
      changes.set(task, 'status', 'pending');
      changes.set(task, 'owner', null);
      changes.note(task, 'lease', presentLease(now), null);
      changes.kind(task.id, 'lease_expired');
      return (await changes.commit()).events;
    }),
  );
  for (const event of events) deps.events.publish(event);
  return events.length > 0;
}

/** What a GitHub `check_run`, `check_suite` or `status` event says: a check's name, conclusion, link and commit. */
export interface CheckResult {
  name: string;
  conclusion: string;
  url: string;
  commit: string;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : null);
const obj = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * The check result a GitHub event carries, or null for one that carries none yet (a check still running, a pending
 * status) or another event. check_run: `check_run.{name, conclusion, html_url, head_sha}`; check_suite:
 * `check_suite.{conclusion, head_sha, app.name}` (named by its app); status: `{ context, state, target_url, sha }`.
 */
export function checkResultOf(event: string, payload: unknown): CheckResult | null {
  const p = obj(payload);
  const repo = str(obj(p.repository).html_url);
  if (event === 'check_run') {
    const run = obj(p.check_run);
    const name = str(run.name);
    const conclusion = str(run.conclusion);
    const commit = str(run.head_sha);
    if (!name || !conclusion || !commit) return null;
    return { name, conclusion, commit, url: str(run.html_url) ?? str(run.details_url) ?? repo ?? '' };
  }
  if (event === 'check_suite') {
    const suite = obj(p.check_suite);
    const conclusion = str(suite.conclusion);
    const commit = str(suite.head_sha);
    if (!conclusion || !commit) return null;
    const name = str(obj(suite.app).name) ?? 'check suite';
    return { name, conclusion, commit, url: repo ? `${repo}/commit/${commit}/checks` : (str(suite.url) ?? '') };
  }
  if (event === 'status') {
    const name = str(p.context);
    const conclusion = str(p.state);
    const commit = str(p.sha);
    if (!name || !conclusion || !commit || conclusion === 'pending') return null;
    return { name, conclusion, commit, url: str(p.target_url) ?? (repo ? `${repo}/commit/${commit}` : '') };
  }
  return null;
}

/** Whether a task names this check: `metadata.commit` (the sha, or a prefix of 7 or more) or `metadata.check` (its name). */
/** A commit named by at least its first 7 hex digits. */
const namesCommit = (named: string | null | undefined, check: CheckResult) =>
  typeof named === 'string' && named.length >= 7 && check.commit.toLowerCase().startsWith(named.toLowerCase());

/**
 * Whether a task names the check's commit or the check: `metadata.commit`, `metadata.check` (a name or a list), or a
 * label `commit:<sha>` or `check:<name>`.
 */
function namesCheck(task: { metadata: Record<string, unknown>; labels: readonly string[] }, check: CheckResult): boolean {
  const { metadata, labels } = task;
  if (namesCommit(str(metadata.commit), check)) return true;
  const name = metadata.check;
  if (name === check.name || (Array.isArray(name) && name.includes(check.name))) return true;
  return labels.some((label) =>
    label.startsWith('commit:') ? namesCommit(label.slice('commit:'.length), check) : label === `check:${check.name}`,
  );
}

/**
 * A GitHub delivery, its signature already verified: recorded once by its delivery id (a replay records nothing), and
 * its check result attached as `ci` evidence to every task of the workspace that names the commit or the check.
 */
export async function receiveGithubEvent(
  deps: Deps,
  workspaceId: string,
  delivery: { id: string; event: string; payload: unknown },
): Promise<{ duplicate: boolean; taskIds: string[] }> {
  const check = checkResultOf(delivery.event, delivery.payload);
  const candidates = check
    ? [
        ...(await deps.store.trust.tasksMentioning(workspaceId, check.commit.slice(0, 7).toLowerCase())),
        ...(await deps.store.trust.tasksMentioning(workspaceId, check.name)),
      ].filter((t) => namesCheck(t, check))
    : [];
  const byList = new Map<string, Set<string>>();
  for (const t of candidates) byList.set(t.listId, (byList.get(t.listId) ?? new Set()).add(t.taskId));
  const outcome = await retryLostRaces('Error: the task kept changing under concurrent writers; try again.', () =>
    deps.store.transaction(async (repos) => {
      const at = deps.clock.now();
      if (!(await repos.trust.recordDelivery(workspaceId, delivery.id, delivery.event, at))) return { duplicate: true, events: [] };
      const events = [];
      for (const [listId, ids] of byList) {
        const list = await repos.trust.listOf(listId);
        if (!list || !check) continue;
        await repos.tasks.findList(list.workspaceId, list.name, { hold: true });
        const changes = new TaskChanges(deps, repos, leaseActor(workspaceId, GITHUB_KEY), list);
        for (const id of ids) {
          const task = await changes.task(id);
          if (task.status === 'deleted') continue;
          const { name, conclusion, url, commit } = check;
          await attachEvidence(
            changes,
            repos,
            task,
            evidenceRows(list.id, id, [{ kind: 'check', name, conclusion, url, commit }], 'ci', at),
          );
          changes.kind(id, 'evidence');
        }
        events.push(...(await changes.commit()).events);
      }
      return { duplicate: false, events };
    }),
  );
  for (const event of outcome.events) deps.events.publish(event);
  return { duplicate: outcome.duplicate, taskIds: outcome.events.map((e) => (e.data as { taskId: string }).taskId) };
}

/** Sets the workspace's GitHub webhook secret (admin). */
export async function setGithubSecret(deps: Deps, actor: Actor, input: { secret: string }) {
  requireRole(actor, 'admin');
  await deps.store.transaction((repos) => repos.trust.setGithubSecret(actor.workspaceId, input.secret, deps.clock.now()));
  return { workspaceId: actor.workspaceId };
}
