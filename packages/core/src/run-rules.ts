// Seed 002's rules for a checklist run: ordering by prerequisites, the cursor and its steps, revision, projections.
import type { RunMove, ChecklistEntry } from '@agent-tasks/schema';
import { DomainError } from './errors.ts';
import { type Edge, topologicalOrder } from './graph.ts';
import type { RunRecord, RunRemark } from './records.ts';

export const FLOW_NAME = 'Todo List';
export const PENDING_OUTCOME = 'Pending';

/** What a new run takes from its start attempt; everything else starts empty. */
export type RunOrigin = Pick<
  RunRecord,
  'id' | 'workspaceId' | 'sessionId' | 'parentRunId' | 'startAttemptId' | 'attemptId' | 'taskContext'
>;

/** A run just started: in intake, unnamed, no checklist or step yet, every outcome pending, version 1. */
export function intakeRun(origin: RunOrigin, now: Date): RunRecord {
  return {
    ...origin,
    name: null,
    pendingName: null,
    executionNote: null,
    status: 'intake',
    revising: false,
    connections: [],
    notice: null,
    tasks: [],
    moves: [],
    remarks: [],
    cursor: 0,
    checklistOutcome: PENDING_OUTCOME,
    executionOutcome: PENDING_OUTCOME,
    taskOutcomes: [],
    taskTimes: [],
    currentSince: null,
    blocker: null,
    revision: 0,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
}

const invalidChecklist = (text: string) => new DomainError('INVALID_CHECKLIST', `Error: invalid checklist: ${text}`);

function checkPositions(positions: readonly number[], total: number, field: string) {
  for (const p of positions) {
    if (p > total) throw invalidChecklist(`\`${field}\` names task ${p}, but the checklist has ${total} task${total === 1 ? '' : 's'}.`);
  }
}

/**
 * Orders the checklist so every prerequisite comes first, keeping the written order wherever prerequisites allow
 * (a stable order: at each place, the earliest written task whose prerequisites are placed). Records every position
 * change with the dependency behind it: a task that had to wait names the prerequisite that held it back longest; a
 * task that came forward past a task written before it names the task that needs it. A task that only took the place
 * a waiting task left is shown by that task's move. Refuses a cycle, naming it.
 */
export function orderChecklist(tasks: readonly ChecklistEntry[], needsInput: readonly { task: number; needs: readonly number[] }[] = []) {
  const total = tasks.length;
  const needs = new Map<number, number[]>();
  for (const { task, needs: list } of needsInput) {
    checkPositions([task, ...list], total, 'needs');
    if (list.includes(task)) throw invalidChecklist(`task ${task} cannot need its own result.`);
    needs.set(task, [...new Set([...(needs.get(task) ?? []), ...list])]);
  }
  const positions = Array.from({ length: total }, (_, i) => i + 1);
  const edges = [...needs].flatMap(([task, list]) => list.map((n): Edge<number> => [n, task]));
  const ordered = topologicalOrder(positions, edges);
  if ('cycle' in ordered) {
    const cycle = [...ordered.cycle].reverse(); // named as the needs run: each task, then the one it needs
    if (cycle.length === 3) {
      const [a, b] = [cycle[0] ?? 0, cycle[1] ?? 0].sort((x, y) => x - y);
      const action = (t: number | undefined) => quote(tasks[(t ?? 0) - 1]?.action ?? '');
      throw invalidChecklist(`tasks ${a} (${action(a)}) and ${b} (${action(b)}) each need the other's result; no order satisfies both.`);
    }
    throw invalidChecklist(`tasks ${cycle.join(' → ')} need each other's results in a cycle; no order satisfies them.`);
  }
  const placed = ordered.order;
  const at = (task: number) => placed.indexOf(task);
  const actionOf = (t: number) => tasks[t - 1]?.action ?? '';
  const needing = (task: number, dependency: number) => `task ${task} needs the result of task ${dependency} (${actionOf(dependency)})`;
  // A task placed after one written later waited for its prerequisites: named by the one placed last.
  const overtook = (task: number) => placed.slice(0, at(task)).some((t) => t > task);
  const waited = (task: number) => {
    const holder = [...(needs.get(task) ?? [])].sort((a, b) => at(b) - at(a))[0] ?? task;
    return needing(task, holder);
  };
  const moved = (task: number) => at(task) + 1 !== task;
  const waiters = new Set(placed.filter((t) => moved(t) && overtook(t)));
  // A task that came forward past a task written before it that kept its place (or did not wait) moved in its own
  // right: named by the first placed task written before it that needs it, else by what the passed task waits for.
  // A task that only took the place a waiting task left is no move of its own (the waiting task's move shows it).
  const cameForward = (task: number) => {
    const passed = placed.slice(at(task) + 1).filter((t) => t < task && !waiters.has(t));
    if (passed.length === 0) return null;
    const dependants = passed.filter((t) => needs.get(t)?.includes(task)).sort((a, b) => at(a) - at(b));
    const first = dependants[0];
    return first !== undefined ? needing(first, task) : waited(passed[0] ?? task);
  };
  const moves: RunMove[] = [];
  placed.forEach((task, index) => {
    if (!moved(task)) return;
    const because = waiters.has(task) ? waited(task) : cameForward(task);
    if (because) moves.push({ task, from: task, to: index + 1, because });
  });
  return { order: placed, tasks: placed.map((p) => tasks[p - 1] as ChecklistEntry), moves };
}

/** Attaches remarks to the tasks they constrain, given in written positions, translated to executed positions. */
export function placeRemarks(remarks: readonly { text: string; tasks: readonly number[] }[], order: readonly number[]): RunRemark[] {
  return remarks.map((r) => {
    checkPositions(r.tasks, order.length, 'remarks');
    return { text: r.text, tasks: [...new Set(r.tasks.map((p) => order.indexOf(p) + 1))].sort((a, b) => a - b) };
  });
}

export const taskLabel = (cursor: number, total: number) => `Task ${cursor}/${total}`;
export const REVISE_LABEL = 'Revise checklist';

/** The current task's projection, or null once the checklist is exhausted (or not taken yet). */
export function currentTask(run: Pick<RunRecord, 'status' | 'tasks' | 'cursor'>) {
  const task = run.status === 'running' ? run.tasks[run.cursor - 1] : undefined;
  return task ? { label: taskLabel(run.cursor, run.tasks.length), action: task.action, expected_result: task.expected_result } : null;
}

export function requireRunning(run: Pick<RunRecord, 'id' | 'status'>) {
  if (run.status === 'intake') throw new DomainError('CONFLICT', `Error: run ${run.id} has no checklist yet; submit it first.`);
  if (run.status === 'completed') throw new DomainError('CONFLICT', `Error: run ${run.id} is completed; it takes no more steps.`);
}

const revisingRefusal = (run: Pick<RunRecord, 'id'>) =>
  new DomainError(
    'CONFLICT',
    `Error: run ${run.id} is at its revision node (Revise checklist): send the complete corrected checklist with resume_from_task; tasks are acknowledged only outside a revision.`,
  );

/**
 * The guarded naming contract: the run's actual task name is persisted before intake (required), and within an open
 * revision, where it applies only if the revision changes the scope. Refused otherwise, with the reason.
 */
export function applyName(run: RunRecord, name: string): RunRecord {
  if (namedAlready(run, name)) return run;
  if (run.status === 'completed') throw new DomainError('CONFLICT', `Error: run ${run.id} is completed; its name no longer changes.`);
  if (run.status === 'intake') {
    run.name = name;
  } else if (run.revising) {
    run.pendingName = name;
  } else {
    throw new DomainError(
      'CONFLICT',
      `Error: run ${run.id} already has its checklist; its name changes only within a checklist revision that changes the scope (jump to "teleport-revise-tasks" first, then name it, then send the revision).`,
    );
  }
  return run;
}

/** Whether `name` is the name the run already has (within an open revision: the one it would take): naming it so changes nothing. */
export const namedAlready = (run: Pick<RunRecord, 'name' | 'pendingName' | 'revising'>, name: string) =>
  name === (run.revising ? (run.pendingName ?? run.name) : run.name);

/** Intake takes the checklist only once the run has its name (persisted through the naming call). */
export function requireName(run: Pick<RunRecord, 'id' | 'name'>) {
  if (run.name === null) {
    throw new DomainError(
      'CONFLICT',
      `Error: run ${run.id} has no name yet: persist the actual task name first with checklist_name (runId "${run.id}", name), then submit the checklist.`,
    );
  }
}

const taskKey = (t: ChecklistEntry) => JSON.stringify([t.action, t.expected_result]);
const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text);

/**
 * A run started with a ready checklist in its task context takes exactly that content at intake: every item with its
 * wording and scope unchanged, nothing dropped, nothing added. The order is the executor's (needs may reorder it).
 */
export function checkTaskContext(context: readonly ChecklistEntry[] | null, submitted: readonly ChecklistEntry[]) {
  if (!context) return;
  const left = new Map<string, number>();
  for (const t of context) left.set(taskKey(t), (left.get(taskKey(t)) ?? 0) + 1);
  submitted.forEach((t, i) => {
    const n = left.get(taskKey(t)) ?? 0;
    if (n === 0) {
      throw invalidChecklist(
        `this run's task context holds a ready checklist; submit it unchanged (wording and scope as written, nothing added): \`tasks[${i}]\` (${quote(t.action)}) is not in it.`,
      );
    }
    left.set(taskKey(t), n - 1);
  });
  const missing = context.findIndex((t) => (left.get(taskKey(t)) ?? 0) > 0);
  if (missing >= 0) {
    throw invalidChecklist(
      `this run's task context holds a ready checklist; submit it unchanged (nothing dropped): its task ${missing + 1} (${quote(context[missing]?.action ?? '')}) is missing.`,
    );
  }
}

type Needs = readonly { task: number; needs: readonly number[] }[];
type Remarks = readonly { text: string; tasks: readonly number[] }[];

export const CONTEXT_ORDER_NOTICE =
  "The ready checklist of this run's task context keeps its written order wherever prerequisites allow: the order of the submitted array was not used. To run a task later, state what it needs in `needs`; each move is then shown with the dependency behind it.";

/**
 * A ready checklist's written order is its author's: the submitted array (already checked to hold exactly the same
 * items) only names positions for `needs` and `remarks`. Returns the written list with those positions translated to
 * it, so the order follows the written list and prerequisites alone, and every difference is a move with its
 * dependency; `reordered` says the submitted array was in another order. Without a task context, the submission is
 * the written list.
 */
export function asWritten(
  context: readonly ChecklistEntry[] | null,
  input: { tasks: readonly ChecklistEntry[]; needs?: Needs; remarks?: Remarks },
) {
  const same = { tasks: input.tasks, needs: input.needs ?? [], remarks: input.remarks ?? [], reordered: false };
  if (!context) return same;
  const unused = new Set(context.keys());
  // Submitted position (1-based) → written position; an item given twice maps to its occurrences in written order.
  const written = input.tasks.map((t) => {
    const at = [...unused].find((j) => sameTask(context[j], t)) ?? 0;
    unused.delete(at);
    return at + 1;
  });
  if (written.every((w, i) => w === i + 1)) return same;
  const to = (p: number) => written[p - 1] ?? p; // a position past the end stays as given, to be refused as such
  return {
    tasks: context,
    needs: (input.needs ?? []).map((n) => ({ task: to(n.task), needs: n.needs.map(to) })),
    remarks: (input.remarks ?? []).map((r) => ({ text: r.text, tasks: r.tasks.map(to) })),
    reordered: true,
  };
}

/** The jump to the revision node: no step leads into it, so a revision is always a deliberate decision. */
export function applyTeleport(run: RunRecord, now: Date): RunRecord {
  requireRunning(run);
  if (run.revising)
    throw new DomainError('CONFLICT', `Error: run ${run.id} is already at its revision node; send the corrected checklist.`);
  closePass(run, now);
  run.currentSince = null;
  run.revising = true;
  run.blocker = null;
  return run;
}

/** Time the current task has been current, added to its tally. */
function closePass(run: RunRecord, now: Date) {
  const index = run.cursor - 1;
  if (run.currentSince && index >= 0 && index < run.taskTimes.length) {
    run.taskTimes[index] = (run.taskTimes[index] ?? 0) + Math.max(0, now.getTime() - run.currentSince.getTime());
  }
}

/** A schema-valid acknowledgement of the current task advances the cursor exactly once. */
export function applyStep(run: RunRecord, task: number | undefined, outcome: string, now: Date): RunRecord {
  requireRunning(run);
  if (run.revising) throw revisingRefusal(run);
  const total = run.tasks.length;
  if (task !== undefined && task !== run.cursor) {
    throw new DomainError(
      'STALE_STEP',
      task < run.cursor
        ? `Error: stale step: task ${task}/${total} was already acknowledged; the current task is ${run.cursor}/${total}.`
        : `Error: stale step: task ${task}/${total} is not current; the current task is ${run.cursor}/${total}.`,
      { cursor: run.cursor, total },
    );
  }
  closePass(run, now);
  run.taskOutcomes[run.cursor - 1] = outcome;
  run.executionOutcome = outcome;
  run.cursor += 1;
  run.blocker = null;
  run.currentSince = now;
  if (run.cursor > total) run.status = 'completed';
  return run;
}

const sameTask = (a: ChecklistEntry | undefined, b: ChecklistEntry | undefined) =>
  a !== undefined && b !== undefined && a.action === b.action && a.expected_result === b.expected_result;

const scopeKey = (tasks: readonly ChecklistEntry[]) =>
  tasks
    .map((t) => JSON.stringify([t.action, t.expected_result]))
    .sort()
    .join('\n');

/**
 * The time each task's passes spent, carried into a revised checklist: a task keeps its time wherever the revision
 * puts it (at its own position first, else at the first place the revision gives the same task); a new task has none.
 */
export function carryTimes(before: readonly ChecklistEntry[], times: readonly number[], after: readonly ChecklistEntry[]): number[] {
  const unused = new Set(before.keys());
  const take = (i: number) => {
    unused.delete(i);
    return times[i] ?? 0;
  };
  const carried: (number | null)[] = after.map((t, i) => (unused.has(i) && sameTask(before[i], t) ? take(i) : null));
  return carried.map((kept, i) => {
    if (kept !== null) return kept;
    const from = [...unused].find((j) => sameTask(before[j], after[i]));
    return from === undefined ? 0 : take(from);
  });
}

/**
 * A deliberate revision: the complete corrected checklist and the position to continue from. Executed tasks keep
 * their positions unchanged; everything before `resumeFrom` counts as done; a position past the end completes. A name
 * given within the revision applies only when the scope changed; ordering alone retains the name.
 */
export function applyRevision(
  run: RunRecord,
  input: { tasks: readonly ChecklistEntry[]; resumeFrom: number; checklistOutcome: string; executionOutcome: string },
  now: Date,
): RunRecord {
  requireRunning(run);
  const executed = run.cursor - 1;
  for (let p = 1; p <= executed; p++) {
    if (!sameTask(run.tasks[p - 1], input.tasks[p - 1])) {
      throw new DomainError(
        'INVALID_REVISION',
        `Error: invalid revision: task ${p} was already executed and must stay unchanged at position ${p}.`,
        { position: p },
      );
    }
  }
  const scopeChanged = scopeKey(run.tasks) !== scopeKey(input.tasks);
  closePass(run, now);
  const total = input.tasks.length;
  run.taskOutcomes = input.tasks.map((_, i) =>
    i < executed && i + 1 < input.resumeFrom ? (run.taskOutcomes[i] ?? PENDING_OUTCOME) : PENDING_OUTCOME,
  );
  run.taskTimes = carryTimes(run.tasks, run.taskTimes, input.tasks);
  // A remark stays with the tasks it constrains, wherever the revision put them.
  const keyOf = (t: ChecklistEntry | undefined) => (t ? JSON.stringify([t.action, t.expected_result]) : '');
  run.remarks = run.remarks
    .map((r) => {
      const keys = new Set(r.tasks.map((p) => keyOf(run.tasks[p - 1])));
      return { text: r.text, tasks: input.tasks.flatMap((t, i) => (keys.has(keyOf(t)) ? [i + 1] : [])) };
    })
    .filter((r) => r.tasks.length > 0);
  run.tasks = [...input.tasks];
  run.cursor = input.resumeFrom;
  run.checklistOutcome = input.checklistOutcome;
  run.executionOutcome = input.executionOutcome;
  if (run.pendingName !== null) {
    if (scopeChanged) run.name = run.pendingName;
    else {
      run.notice = `The name stays ${JSON.stringify(run.name)}: this revision only reorders the checklist, and ordering alone retains the name (a new name applies only when the scope changes).`;
    }
  }
  run.pendingName = null;
  run.revising = false;
  run.revision += 1;
  run.blocker = null;
  run.currentSince = now;
  if (run.cursor > total) {
    run.cursor = total + 1;
    run.status = 'completed';
  }
  return run;
}
