// The checklist run use cases (seed 002): two-phase start, intake, steps, revision, blockers, reads, notifications.
import { runTopic } from './live-topics.ts';
import type { RunIntakeInput, RunReviseInput, RunStepInput, ChecklistEntry, RunView } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { LostRace, retryLostRaces } from './compare-and-set.ts';
import { requirePermission } from './permissions.ts';
import { DomainError } from './errors.ts';
import { frozen } from './frozen.ts';
import type { Deps, LiveEvent, Repositories } from './ports.ts';
import type { RunConnectionRecord, RunRecord, RunStepRecordData } from './records.ts';
import { notificationPayload } from './channel-payload.ts';
import { type NotificationKind, notificationFor } from './run-notifications.ts';
import { type LiveTime, liveTimeAt, liveTimeOf, presentConnection, presentRun } from './run-present.ts';
import { presentStored } from './run-view-source.ts';
import { canDriveRun } from './session-access.ts';
import {
  CONTEXT_ORDER_NOTICE,
  PENDING_OUTCOME,
  REVISE_LABEL,
  applyName,
  applyRevision,
  applyStep,
  applyTeleport,
  asWritten,
  checkTaskContext,
  intakeRun,
  namedAlready,
  orderChecklist,
  placeRemarks,
  requireName,
  taskLabel,
} from './run-rules.ts';

/**
 * Run, start attempt and step attempt ids are UUIDs, hex digits and dashes only: the ids Moira writes and its clients
 * read back from an answer (`Process ID: ([a-f0-9-]+)`, `Step attempt ID:\s*([a-f0-9-]+)`), taken as given.
 */
const runScopedId = (deps: Deps) => deps.ids.uuid();

function requireSession(actor: Actor): string {
  requireRole(actor, 'agent');
  if (!actor.sessionId) {
    throw new DomainError('NO_OWNING_SESSION', 'Error: a checklist run requires an owning agent session before anything is written.');
  }
  return actor.sessionId;
}

async function findRun(repos: Repositories, actor: Actor, runId: string) {
  const run = await repos.runs.get(actor.workspaceId, runId);
  if (!run) throw new DomainError('NOT_FOUND', `Error: run ${runId} not found.`);
  return run;
}

/**
 * Who may act on a run — drive it, report its blocker, and name it as the parent of a new run (which gives it a success
 * connection when that child completes): one rule for all three.
 */
async function requireRunActor(repos: Repositories, actor: Actor, run: RunRecord) {
  if (!(await drivenBy(repos, actor, run.sessionId))) {
    throw new DomainError('FORBIDDEN', `Error: forbidden: run ${run.id} belongs to another agent.`);
  }
}

/** Prepare: refuses without a notification channel unless told to skip the check; returns the start attempt id. */
export async function prepareStart(
  deps: Deps,
  actor: Actor,
  input: { parentExecutionId: string; skipNotificationCheck?: boolean | undefined; taskContext?: { tasks: ChecklistEntry[] } | undefined },
) {
  const sessionId = requireSession(actor);
  return deps.store.transaction(async (repos) => {
    const parent = input.parentExecutionId === 'none' ? null : await findRun(repos, actor, input.parentExecutionId);
    if (parent) await requireRunActor(repos, actor, parent);
    if (!input.skipNotificationCheck && (await repos.channels.list(actor.workspaceId)).length === 0) {
      throw new DomainError(
        'NO_CHANNEL',
        'Error: Todo List notifies when the checklist is ready and when all tasks are done, but this workspace has no notification channel. Ask an admin to add one, or prepare the start again with skipNotificationCheck: true.',
      );
    }
    const start = {
      id: runScopedId(deps),
      workspaceId: actor.workspaceId,
      sessionId,
      parentRunId: parent?.id ?? null,
      skipNotificationCheck: input.skipNotificationCheck ?? false,
      taskContext: input.taskContext?.tasks ?? null,
      runId: null,
      createdAt: deps.clock.now(),
    };
    await repos.runs.createStart(start);
    return { startAttemptId: start.id };
  });
}

/** Execute: starts the run from a prepared attempt, once. */
export async function executeStart(deps: Deps, actor: Actor, input: { startAttemptId: string }) {
  requireSession(actor);
  const now = deps.clock.now();
  const run = await deps.store.transaction(async (repos) => {
    const start = await repos.runs.getStart(actor.workspaceId, input.startAttemptId);
    if (!start || !(await drivenBy(repos, actor, start.sessionId))) {
      throw new DomainError('NOT_FOUND', `Error: start attempt ${input.startAttemptId} not found for this agent.`);
    }
    const run = intakeRun(
      {
        id: runScopedId(deps),
        workspaceId: actor.workspaceId,
        sessionId: start.sessionId,
        parentRunId: start.parentRunId,
        startAttemptId: start.id,
        attemptId: runScopedId(deps),
        taskContext: start.taskContext,
      },
      now,
    );
    if (start.runId || !(await repos.runs.markStartExecuted(start.id, run.id))) {
      throw new DomainError('CONFLICT', `Error: start attempt ${start.id} was already executed (run ${start.runId ?? 'started'}).`);
    }
    await repos.runs.create(run);
    return run;
  });
  return publishRun(deps, run);
}

/** Whether the agent behind `actor` started what the agent session `ownerId` started (session-access: canDriveRun). */
async function drivenBy(repos: Repositories, actor: Actor, ownerId: string) {
  const session = (id: string | null) => (id === null ? Promise.resolve(null) : repos.sessions.get(actor.workspaceId, id));
  const caller = await session(actor.sessionId);
  // A session driving its own run (every step of the usual walk) is read once.
  const owner = ownerId === actor.sessionId ? caller : await session(ownerId);
  return canDriveRun(actor, owner, caller, session);
}

function publishRun(deps: Deps, run: RunRecord, connection?: RunConnectionRecord, shown?: RunView) {
  const view = shown ?? presentRun(run, deps.clock.now());
  const data = { version: run.version, run: view, ...(connection ? { connection: presentConnection(connection) } : {}) };
  deps.events.publish({ topic: runTopic(run.id), id: String(run.version), data } satisfies LiveEvent);
  return view;
}

async function enqueueNotification(deps: Deps, repos: Repositories, run: RunRecord, kind: NotificationKind) {
  // A run started with skipNotificationCheck runs without notifications.
  if ((await repos.runs.getStart(run.workspaceId, run.startAttemptId))?.skipNotificationCheck) return;
  const notification = notificationFor(kind, run, deps.runPage(run.id));
  for (const channel of await repos.channels.list(run.workspaceId)) {
    const idempotencyKey = `${run.id}:${kind}:${channel.id}`;
    await repos.outbox.enqueue({
      id: deps.ids.id('msg'),
      workspaceId: run.workspaceId,
      channelId: channel.id,
      url: channel.url,
      runId: run.id,
      kind,
      payload: notificationPayload(channel.kind, notification, idempotencyKey),
      idempotencyKey,
      attempts: 0,
      nextAttemptAt: deps.clock.now(),
      deliveredAt: null,
      lastError: null,
      createdAt: deps.clock.now(),
    });
  }
}

type StepData = Omit<RunStepRecordData, 'runId' | 'seq' | 'at' | 'attemptId'>;

/**
 * Writes a changed run with a version check and records its step (every change bumps the version once, one step each).
 * A step that consumed an attempt keeps that attempt's fingerprint; a retry of the attempt answers the view right after
 * the change again (`answerOf`).
 */
async function saveRun(
  repos: Repositories,
  run: RunRecord,
  from: number,
  step: StepData & { attemptId: string | null; fingerprint?: string | null },
  now: Date,
): Promise<RunView> {
  run.version = from + 1;
  run.updatedAt = now;
  const recorded = { ...step, fingerprint: step.fingerprint ?? null, runId: run.id, seq: from, at: now };
  if (!(await repos.runs.save(run, from, recorded))) throw new LostRace();
  return presentStored(run, now);
}

/**
 * What an answered attempt answered: the view right after its step, which is the run at the next version presented
 * at that version's time (or the answer kept whole by steps older than prior fields; failing both, the run as it is).
 */
async function answerOf(repos: Repositories, run: RunRecord, answered: RunStepRecordData, now: Date): Promise<RunView> {
  if (answered.answer) return JSON.parse(answered.answer) as RunView;
  const then = await repos.runs.atVersion(run.workspaceId, run.id, answered.seq + 1);
  return then ? presentStored(then, then.updatedAt) : presentRun(run, now);
}

/** A child that reached its End node gives its parent the success connection: a line in its view and an event on its feed. */
async function connectParent(repos: Repositories, child: RunRecord, now: Date) {
  if (!child.parentRunId) return null;
  const parent = await repos.runs.get(child.workspaceId, child.parentRunId);
  if (!parent) return null;
  const connection: RunConnectionRecord = { runId: child.id, name: child.name, at: now };
  parent.connections = [...parent.connections, connection];
  parent.notice = null;
  const line = presentConnection(connection).line;
  await saveRun(
    repos,
    parent,
    parent.version,
    { kind: 'connection', label: 'Success connection', task: null, evidence: null, outcome: line, attemptId: null },
    now,
  );
  return { parent, connection };
}

const staleAttempt = (run: RunRecord, attemptId: string) =>
  new DomainError(
    'STALE_STEP',
    `Error: stale attempt: ${attemptId} is not the current step attempt of run ${run.id}; the current one is ${run.attemptId}. Read the run and answer its current step.`,
    { attemptId: run.attemptId },
  );

/** What a call sends with an attempt, besides the run and the attempt: the kind of call and its response. */
type AttemptRequest = { call: 'name' | 'intake' | 'step' | 'teleport' | 'revise' } & Record<string, unknown>;

/** The same JSON for the same value whatever the order of its keys (undefined fields left out, as JSON does). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonical(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The fingerprint of what an attempt was answered with: a retry must send exactly the same call and response. */
const fingerprintOf = (deps: Deps, request: AttemptRequest) => deps.hasher.hash(`run-attempt:${canonical(request)}`);

const conflictingAttempt = (run: RunRecord, attemptId: string, kind: string) =>
  new DomainError(
    'CONFLICT',
    `Error: conflict: attempt ${attemptId} of run ${run.id} was already answered (${kind}) with another step response; a retried attempt answers only exactly the same response. Nothing was recorded. Read the run and answer its current step${run.attemptId ? ` (attempt ${run.attemptId})` : ''}.`,
    { attemptId: run.attemptId },
  );

/**
 * Loads the caller's own run, lets `change` mutate it, then writes it with a version check, records the step and
 * queues notifications, all in one transaction; publishes the new view after commit. A `change` that returns null
 * changed nothing: nothing is written, recorded or published. A call that `consumes` the step attempt (intake, step,
 * teleport, revision) answers the current one; a retry of an already consumed attempt with the same request answers
 * exactly what the attempt answered, changing nothing; the same attempt with another request is a conflict; an unknown
 * attempt is stale.
 */
async function changeRun(
  deps: Deps,
  actor: Actor,
  runId: string,
  options: { consumes: boolean; attemptId?: string | undefined; request?: AttemptRequest },
  change: (run: RunRecord, repos: Repositories, now: Date) => Promise<StepData | null> | StepData | null,
) {
  requireSession(actor);
  const fingerprint = options.request ? fingerprintOf(deps, options.request) : null;
  return retryLostRaces('Error: the run kept changing under concurrent calls; read it and try again.', async () => {
    type Done = { replayed: RunView } | { run: RunRecord; view: RunView; connected: Awaited<ReturnType<typeof connectParent>> };
    const done = await deps.store.transaction(async (repos): Promise<Done> => {
      const run = await findRun(repos, actor, runId);
      await requireRunActor(repos, actor, run);
      if (options.attemptId !== undefined && options.attemptId !== run.attemptId) {
        const answered = await repos.runs.findStepByAttempt(run.id, options.attemptId);
        if (answered) {
          if (answered.fingerprint && answered.fingerprint !== fingerprint)
            throw conflictingAttempt(run, options.attemptId, answered.label);
          return { replayed: await answerOf(repos, run, answered, deps.clock.now()) };
        }
        if (run.status === 'completed') throw new DomainError('CONFLICT', `Error: run ${run.id} is completed; it takes no more steps.`);
        throw staleAttempt(run, options.attemptId);
      }
      const now = deps.clock.now();
      const wasCompleted = run.status === 'completed';
      const wasIntake = run.status === 'intake';
      const from = run.version;
      const consumed = options.consumes ? run.attemptId : null;
      const notice = run.notice;
      run.notice = null;
      const step = await change(run, repos, now);
      if (step === null) {
        run.notice = notice;
        return { replayed: presentRun(run, now) };
      }
      if (options.consumes) run.attemptId = run.status === 'completed' ? null : runScopedId(deps);
      if (wasIntake && run.status === 'running') await enqueueNotification(deps, repos, run, 'checklist_ready');
      let connected: Awaited<ReturnType<typeof connectParent>> = null;
      if (!wasCompleted && run.status === 'completed') {
        await enqueueNotification(deps, repos, run, 'all_tasks_done');
        connected = await connectParent(repos, run, now);
      }
      const view = await saveRun(repos, run, from, { ...step, attemptId: consumed, fingerprint: consumed ? fingerprint : null }, now);
      return { run, view, connected };
    });
    // A replayed attempt (or a change of nothing) changed nothing, so it publishes nothing.
    if ('replayed' in done) return done.replayed;
    if (done.connected) publishRun(deps, done.connected.parent, done.connected.connection);
    return publishRun(deps, done.run, undefined, done.view);
  });
}

/** The naming call: before intake (required there), or within an open revision; refused otherwise with the reason. */
export async function name(deps: Deps, actor: Actor, input: { runId: string; name: string; attemptId?: string | undefined }) {
  const request: AttemptRequest = { call: 'name', name: input.name };
  return changeRun(deps, actor, input.runId, { consumes: false, attemptId: input.attemptId, request }, (run) => {
    // The name it already has (after trimming): nothing to record, no version, no history entry.
    if (namedAlready(run, input.name)) return null;
    applyName(run, input.name);
    return { kind: 'name', label: 'Name', task: null, evidence: null, outcome: input.name };
  });
}

/** Intake: the checklist, ordered so every prerequisite comes first; work starts on task 1. The name must be persisted. */
export async function intake(deps: Deps, actor: Actor, input: RunIntakeInput) {
  const { runId: _run, attemptId: _attempt, ...response } = input;
  const request: AttemptRequest = { call: 'intake', ...response };
  return changeRun(deps, actor, input.runId, { consumes: true, attemptId: input.attemptId, request }, (run, _repos, now) => {
    if (run.status !== 'intake') {
      throw new DomainError('CONFLICT', `Error: run ${run.id} already has its checklist; revise it instead.`);
    }
    requireName(run);
    checkTaskContext(run.taskContext, input.tasks);
    const written = asWritten(run.taskContext, input);
    const ordered = orderChecklist(written.tasks, written.needs);
    run.executionNote = input.execution_note ?? null;
    run.tasks = ordered.tasks;
    run.moves = ordered.moves;
    run.remarks = placeRemarks(written.remarks, ordered.order);
    if (written.reordered) run.notice = CONTEXT_ORDER_NOTICE;
    run.checklistOutcome = input.progress_checklist_outcome;
    run.taskOutcomes = ordered.tasks.map(() => PENDING_OUTCOME);
    run.taskTimes = ordered.tasks.map(() => 0);
    run.cursor = 1;
    run.currentSince = now;
    run.status = 'running';
    return { kind: 'intake', label: 'Checklist intake', task: null, evidence: null, outcome: input.progress_checklist_outcome };
  });
}

/** Step: acknowledges the current task with its evidence, exactly once per attempt; `task`, when given, guards the position. */
export async function step(deps: Deps, actor: Actor, input: RunStepInput) {
  const { runId: _run, attemptId: _attempt, ...response } = input;
  const request: AttemptRequest = { call: 'step', ...response };
  return changeRun(deps, actor, input.runId, { consumes: true, attemptId: input.attemptId, request }, (run, _repos, now) => {
    const label = taskLabel(run.cursor, run.tasks.length);
    const position = run.cursor;
    applyStep(run, input.task, input.progress_execution_outcome, now);
    return { kind: 'step', label, task: position, evidence: input.evidence, outcome: input.progress_execution_outcome };
  });
}

/** The jump to the revision node ("teleport-revise-tasks"): the Work block's role becomes Revise checklist. */
export async function teleport(deps: Deps, actor: Actor, input: { runId: string; attemptId?: string | undefined }) {
  const request: AttemptRequest = { call: 'teleport' };
  return changeRun(deps, actor, input.runId, { consumes: true, attemptId: input.attemptId, request }, (run, _repos, now) => {
    applyTeleport(run, now);
    return { kind: 'teleport', label: REVISE_LABEL, task: run.cursor, evidence: null, outcome: null };
  });
}

/** The revision: from the revision node, or straight from a task (the jump and the revision in one call). */
export async function revise(deps: Deps, actor: Actor, input: RunReviseInput) {
  const { runId: _run, attemptId: _attempt, ...response } = input;
  const request: AttemptRequest = { call: 'revise', ...response };
  return changeRun(deps, actor, input.runId, { consumes: true, attemptId: input.attemptId, request }, (run, _repos, now) => {
    applyRevision(
      run,
      {
        tasks: input.tasks,
        resumeFrom: input.resume_from_task,
        checklistOutcome: input.progress_checklist_outcome,
        executionOutcome: input.progress_execution_outcome,
      },
      now,
    );
    return { kind: 'revise', label: REVISE_LABEL, task: input.resume_from_task, evidence: null, outcome: input.progress_execution_outcome };
  });
}

/** Records a verified blocker for display; the cursor stays where it is. */
export async function reportBlocker(deps: Deps, actor: Actor, input: { runId: string; blocker: string | null }) {
  return changeRun(deps, actor, input.runId, { consumes: false }, (run) => {
    if (run.status !== 'running' || run.revising) {
      throw new DomainError(
        'CONFLICT',
        `Error: run ${run.id} ${run.revising ? 'is at its revision node' : 'is not running'}; there is no task to be blocked.`,
      );
    }
    run.blocker = input.blocker;
    return { kind: 'blocker', label: 'Blocker', task: run.cursor, evidence: null, outcome: input.blocker };
  });
}

/**
 * `runs.note`: a person (or any writer of the workspace) leaves a note on the run's current task; the agent's next
 * directive carries it, and every one after while that task is current. Recorded as a step of the run (kind `note`).
 */
export async function note(deps: Deps, actor: Actor, input: { runId: string; text: string }) {
  requirePermission(actor, 'writeTasks');
  const author = actor.sessionId
    ? (actor.agentName ?? actor.sessionId)
    : ((await deps.store.keys.get(actor.workspaceId, actor.keyId))?.name ?? actor.keyId);
  return retryLostRaces('Error: the run kept changing under concurrent calls; read it and try again.', async () => {
    const { run, view } = await deps.store.transaction(async (repos) => {
      const run = await findRun(repos, actor, input.runId);
      if (run.status !== 'running' || run.revising) {
        const where = run.status === 'completed' ? 'is completed' : run.revising ? 'is at its revision node' : 'is at checklist intake';
        throw new DomainError('CONFLICT', `Error: run ${run.id} ${where}; there is no current task to leave a note on.`);
      }
      const now = deps.clock.now();
      run.personNotes = [...run.personNotes, { task: run.cursor, text: input.text, author, at: now.toISOString() }];
      const step = { kind: 'note' as const, label: `Note from ${author}`, task: run.cursor, evidence: null, outcome: input.text };
      return { run, view: await saveRun(repos, run, run.version, { ...step, attemptId: null }, now) };
    });
    return publishRun(deps, run, undefined, view);
  });
}

/**
 * A run's view. Kept for reuse (deps.readCache) at the run's version, which every change to the run moves (`save`'s
 * compare-and-set): a read of that one column, then the view as kept, its in-progress entry's time counted to now
 * (the cache's copy with that one number set).
 */
export async function get(deps: Deps, actor: Actor, input: { runId: string }) {
  const key = deps.readCache ? `runs.get\n${actor.workspaceId}\n${input.runId}` : null;
  if (key !== null) {
    const version = await deps.store.runs.versionOf(actor.workspaceId, input.runId);
    const kept = version === null ? undefined : (deps.readCache?.get(key, version) as KeptRunView | undefined);
    if (kept && !kept.live) return kept.view;
    if (kept?.live) {
      const { path, value } = liveTimeAt(kept.live, deps.clock.now());
      return deps.readCache?.withNumber(kept.view, path, value) as RunView;
    }
  }
  const run = await findRun(deps.store, actor, input.runId);
  const view = presentRun(run, deps.clock.now());
  // Kept at the version of the row it was presented from.
  if (key !== null) deps.readCache?.put(key, run.version, frozen({ view, live: liveTimeOf(run) }), run.tasks.length + 1);
  return view;
}

type KeptRunView = { view: RunView; live: LiveTime | null };

/** Read by a run page link, which carries no key: the unguessable run id is the capability. */
export async function getByLink(deps: Deps, runId: string) {
  const run = await deps.store.runs.getAnywhere(runId);
  return run ? presentRun(run, deps.clock.now()) : null;
}

export async function list(deps: Deps, actor: Actor, input: { sessionId?: string | undefined }) {
  const runs = await deps.store.runs.list(actor.workspaceId, { sessionId: input.sessionId, limit: 100 });
  const now = deps.clock.now();
  return { runs: runs.map((r) => presentRun(r, now)) };
}

export async function history(deps: Deps, actor: Actor, input: { runId: string }) {
  const run = await findRun(deps.store, actor, input.runId);
  const steps = await deps.store.runs.steps(run.id);
  return {
    steps: steps.map((s) => ({
      seq: s.seq,
      label: s.label,
      kind: s.kind,
      task: s.task,
      evidence: s.evidence,
      outcome: s.outcome,
      at: s.at.toISOString(),
    })),
  };
}
