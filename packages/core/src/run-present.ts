// The run's view: the three blocks Checklist → Prepare → Work, the current projection, and the terminal output.
import type { RunView } from '@agent-tasks/schema';
import type { RunConnectionRecord, RunRecord } from './records.ts';
import { FLOW_NAME, REVISE_LABEL, currentTask, taskLabel } from './run-rules.ts';

/** A child's success connection as its parent shows it: one line, no evidence. */
export function presentConnection(c: RunConnectionRecord) {
  const named = c.name === null ? '' : ` ${JSON.stringify(c.name)}`;
  return {
    runId: c.runId,
    name: c.name,
    at: c.at.toISOString(),
    line: `Success connection: child run ${c.runId}${named} reached its End node.`,
  };
}

function workRole(run: RunRecord): RunView['blocks']['work']['role'] {
  if (run.status === 'completed') return 'done';
  if (run.status === 'intake') return 'intake';
  return run.revising ? 'revise' : 'task';
}

const LABELS = { intake: () => 'Checklist intake', revise: () => REVISE_LABEL, done: (total: number) => `Done ${total}/${total}` } as const;

/** Texts by the 1-based task positions they name: each remark under every task it governs, each note under its task. */
function byPosition<T>(items: readonly T[], positions: (item: T) => readonly number[], text: (item: T) => string) {
  const at = new Map<number, string[]>();
  for (const item of items) {
    const named = positions(item);
    for (const position of named.length > 1 ? new Set(named) : named) {
      const texts = at.get(position);
      if (texts) texts.push(text(item));
      else at.set(position, [text(item)]);
    }
  }
  return at;
}

/** The one part of a run's view that moves with the clock: the in-progress entry's time (index 0-based), counted on. */
export interface LiveTime {
  index: number;
  /** The entry's time before its current stretch. */
  baseMs: number;
  since: Date;
}

/** A revision uses no task projection: the jump may come when the current task no longer describes the work. */
const currentOf = (run: RunRecord) => (run.revising ? null : currentTask(run));

/** Where the clock shows in the run's view, or null (no entry in progress, or no time counted for it). */
export function liveTimeOf(run: RunRecord): LiveTime | null {
  if (!currentOf(run) || !run.currentSince) return null;
  return { index: run.cursor - 1, baseMs: run.taskTimes[run.cursor - 1] ?? 0, since: run.currentSince };
}

const elapsedMs = (live: LiveTime, now: Date) => live.baseMs + Math.max(0, now.getTime() - live.since.getTime());

/** Where the clock's number sits in a run's view (for a read cache's copy of a kept view), and its value at `now`. */
export const liveTimeAt = (live: LiveTime, now: Date) => ({
  path: ['blocks', 'work', 'tasks', live.index, 'timeMs'] as const,
  value: elapsedMs(live, now),
});

export function presentRun(run: RunRecord, now: Date): RunView {
  const total = run.tasks.length;
  const current = currentOf(run);
  const inProgress = current ? run.cursor : null;
  const done = run.status === 'completed' ? total : Math.max(0, Math.min(run.cursor - 1, total));
  const live = liveTimeOf(run);
  const role = workRole(run);
  // One pass over the remarks and the notes, not one per task (a 100-task view is made on every step).
  const remarks = byPosition(
    run.remarks,
    (r) => r.tasks,
    (r) => r.text,
  );
  // The notes people left on a task, as "<author>: <text>"; the field is there only for a task that has some.
  const notes = byPosition(
    run.personNotes,
    (n) => [n.task],
    (n) => `${n.author}: ${n.text}`,
  );
  const completed = run.status === 'completed';
  return {
    id: run.id,
    flow: FLOW_NAME,
    name: run.name,
    pendingName: run.pendingName,
    status: run.status,
    revising: run.revising,
    attemptId: run.attemptId,
    sessionId: run.sessionId,
    parentRunId: run.parentRunId,
    executionNote: run.executionNote,
    taskContext: run.taskContext ? { tasks: [...run.taskContext] } : null,
    // The checklist as read, shared (a record's checklist is frozen where the store keeps it): its text may be known.
    tasks: run.tasks as RunView['tasks'],
    cursor: run.cursor,
    total,
    current,
    moves: [...run.moves],
    remarks: [...run.remarks],
    blocker: run.blocker,
    notice: run.notice,
    connections: run.connections.map(presentConnection),
    blocks: {
      checklist: { synopsis: run.checklistOutcome },
      prepare: {
        length: total,
        cursor: run.cursor,
        action: current?.action ?? null,
        expected_result: current?.expected_result ?? null,
      },
      work: {
        role,
        label: role === 'task' ? taskLabel(run.cursor, total) : LABELS[role](total),
        tasks: run.tasks.map((task, i) => {
          const entry: RunView['blocks']['work']['tasks'][number] = {
            title: task.action,
            state: i + 1 < run.cursor || completed ? 'done' : i + 1 === inProgress ? 'in_progress' : 'pending',
            outcome: run.taskOutcomes[i] ?? 'Pending',
            timeMs: live && i === live.index ? elapsedMs(live, now) : (run.taskTimes[i] ?? 0),
            remarks: remarks.get(i + 1) ?? [],
          };
          const noted = notes.get(i + 1);
          if (noted) entry.notes = noted;
          return entry;
        }),
        current_task: Math.min(run.cursor, total),
        total_tasks: total,
        done,
        inProgress,
        synopsis: run.executionOutcome,
      },
    },
    output: run.status === 'completed' ? {} : null,
    revision: run.revision,
    version: run.version,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
  };
}
