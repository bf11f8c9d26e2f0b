// Shared test fixtures: a bootstrapped workspace with admin/agent/viewer actors and a session, plus exact-refusal helpers.
import { expect } from 'vitest';
import type { ErrorCode, RunIntakeInput, ChecklistEntry, TodoItem } from '@agent-tasks/schema';
import { type Actor, type Deps, DomainError, channels, resolveActor, runs, sessions, todos, keys, workspaces } from '../src/index.ts';
import { FakeSender, type MemoryStore, type RecordingEvents, makeDeps } from './memory-store.ts';

/** A regex that matches exactly `text` (toThrow with a bare string only checks "contains"). */
export const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/** Asserts the promise rejects with a DomainError of `code` whose message is exactly `text`; returns the error. */
export async function expectRefused(promise: Promise<unknown>, code: ErrorCode, text: string): Promise<DomainError> {
  await expect(promise).rejects.toThrow(exactly(text));
  await expect(promise).rejects.toBeInstanceOf(DomainError);
  await expect(promise).rejects.toMatchObject({ code, message: text });
  return promise.then(
    () => {
      throw new Error('unreachable');
    },
    (e: DomainError) => e,
  );
}

/** Same as expectRefused, for a synchronous call. */
export function expectThrows(call: () => unknown, code: ErrorCode, text: string): DomainError {
  expect(call).toThrow(exactly(text));
  try {
    call();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    expect(e).toMatchObject({ code, message: text });
    return e as DomainError;
  }
  throw new Error('unreachable');
}

export const item = (content: string, status: TodoItem['status'] = 'pending'): TodoItem => ({ content, status });

export interface World {
  deps: Deps;
  store: MemoryStore;
  events: RecordingEvents;
  clock: ReturnType<typeof makeDeps>['clock'];
  workspaceId: string;
  adminKey: string;
  admin: Actor;
  agentKey: string;
  agent: Actor;
  viewerKey: string;
  viewer: Actor;
  /** A session opened with the agent key, and an actor calling with its session token. */
  sessionId: string;
  sessionToken: string;
  session: Actor;
}

/** Bootstraps a workspace on an empty store, creates agent and viewer keys, and opens one session. */
export async function makeWorld(): Promise<World> {
  const { deps, store, clock, events } = makeDeps();
  const boot = await workspaces.bootstrap(deps);
  if (!boot) throw new Error('bootstrap returned null on an empty store');
  const admin = await resolveActor(deps, boot.adminKey);
  const agentKey = (await keys.create(deps, admin, { name: 'agent', role: 'agent' })).token;
  const viewerKey = (await keys.create(deps, admin, { name: 'viewer', role: 'viewer' })).token;
  const agent = await resolveActor(deps, agentKey);
  const viewer = await resolveActor(deps, viewerKey);
  const opened = await sessions.open(deps, agent, { title: 'chat' });
  const session = await resolveActor(deps, opened.token);
  return {
    deps,
    store,
    events,
    clock,
    workspaceId: boot.workspaceId,
    adminKey: boot.adminKey,
    admin,
    agentKey,
    agent,
    viewerKey,
    viewer,
    sessionId: opened.session.id,
    sessionToken: opened.token,
    session,
  };
}

/** Captures what a refusal must leave untouched: the store, the published events, the list and its cards. */
export async function recordedState(w: Pick<World, 'deps' | 'store' | 'events' | 'admin'>, sessionId: string) {
  return {
    snapshot: w.store.snapshot(),
    events: w.events.published.length,
    list: await todos.get(w.deps, w.admin, { sessionId }),
    cards: (await todos.history(w.deps, w.admin, { sessionId, limit: 100 })).cards,
  };
}

/** Asserts nothing was recorded since `before`: same revision and list, no new card, no event, store unchanged. */
export async function expectNothingRecorded(
  w: Pick<World, 'deps' | 'store' | 'events' | 'admin'>,
  sessionId: string,
  before: Awaited<ReturnType<typeof recordedState>>,
) {
  const after = await recordedState(w, sessionId);
  expect(after.list.revision).toBe(before.list.revision);
  expect(after.list).toEqual(before.list);
  expect(after.cards).toHaveLength(before.cards.length);
  expect(after.events).toBe(before.events);
  expect(after.snapshot).toEqual(before.snapshot);
}

/** Opens a session named `agentName` with the agent key (a subagent of `parent` when given); returns its actor. */
export async function agentSession(w: Pick<World, 'deps' | 'agent'>, agentName: string, parent?: Actor): Promise<Actor> {
  const opened = await sessions.open(w.deps, parent ?? w.agent, { title: agentName, agentName });
  return resolveActor(w.deps, opened.token);
}

/** Opens a session named `agentName` with a new agent key of the workspace (another agent); returns its actor. */
export async function otherAgentSession(w: Pick<World, 'deps' | 'admin'>, agentName: string): Promise<Actor> {
  const key = await resolveActor(w.deps, (await keys.create(w.deps, w.admin, { name: `${agentName} key`, role: 'agent' })).token);
  return agentSession({ deps: w.deps, agent: key }, agentName);
}

/** Captures what a refused task write must leave untouched: the whole store (tasks, versions, edges, change log) and the events. */
export function taskState(w: Pick<World, 'store' | 'events'>) {
  return { snapshot: w.store.snapshot(), events: w.events.published.length };
}

/** Asserts no task, version, edge, list, counter or change record moved since `before`, and nothing was published. */
export function expectNoTaskChange(w: Pick<World, 'store' | 'events'>, before: ReturnType<typeof taskState>) {
  const after = taskState(w);
  expect(after.events).toBe(before.events);
  expect(after.snapshot.tasks).toEqual(before.snapshot.tasks);
  expect(after.snapshot.taskEdges).toEqual(before.snapshot.taskEdges);
  expect(after.snapshot.taskChanges).toEqual(before.snapshot.taskChanges);
  expect(after.snapshot).toEqual(before.snapshot);
}

/** A checklist task; the expected result defaults to "<action>: done". */
export const runTask = (action: string, expected_result = `${action}: done`): ChecklistEntry => ({ action, expected_result });

/** `n` tasks "Task 1", "Task 2", … (or with another prefix). */
export const runTasks = (n: number, prefix = 'Task') => Array.from({ length: n }, (_, i) => runTask(`${prefix} ${i + 1}`));

/** Adds a notification channel to the workspace (as its admin). */
export function addChannel(w: Pick<World, 'deps' | 'admin'>, name = 'ops', url = `https://hooks.example.com/${name}`) {
  return channels.create(w.deps, new FakeSender(), w.admin, { name, url });
}

/**
 * Prepares and executes a start as `actor` (the world's session by default); the run is in intake. Unless told, the
 * check is skipped only when the workspace has no channel (a skipped start runs without notifications).
 */
export async function startRun(
  w: Pick<World, 'deps' | 'session'>,
  options: { actor?: Actor; skipNotificationCheck?: boolean; parentExecutionId?: string } = {},
) {
  const actor = options.actor ?? w.session;
  const hasChannel = (await w.deps.store.channels.list(actor.workspaceId)).length > 0;
  const { startAttemptId } = await runs.prepareStart(w.deps, actor, {
    parentExecutionId: options.parentExecutionId ?? 'none',
    skipNotificationCheck: options.skipNotificationCheck ?? !hasChannel,
  });
  return runs.executeStart(w.deps, actor, { startAttemptId });
}

/** Starts a run, names it and submits its checklist (default: three tasks); the run is running on task 1. */
export async function startedRun(
  w: Pick<World, 'deps' | 'session'>,
  intake: Partial<Omit<RunIntakeInput, 'runId'>> & { name?: string } = {},
  options: { actor?: Actor; skipNotificationCheck?: boolean; parentExecutionId?: string } = {},
) {
  const started = await startRun(w, options);
  const { name = 'Ship the release', ...rest } = intake;
  await runs.name(w.deps, options.actor ?? w.session, { runId: started.id, name });
  return runs.intake(w.deps, options.actor ?? w.session, {
    runId: started.id,
    tasks: runTasks(3),
    progress_checklist_outcome: 'Three ordered tasks are ready',
    ...rest,
  });
}
