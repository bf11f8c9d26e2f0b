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

/** The notes people left on the task at `position`, when it has any (as "<author>: <text>"). */
function notesOf(run: RunRecord, position: number) {
  const notes = run.personNotes.filter((n) => n.task === position).map((n) => `${n.author}: ${n.text}`);
  return notes.length ? { notes } : {};
}

export function presentRun(run: RunRecord, now: Date): RunView {
  const total = run.tasks.length;
  // A revision uses no task projection: the jump may come when the current task no longer describes the work.
  const current = run.revising ? null : currentTask(run);
  const inProgress = current ? run.cursor : null;
  const done = run.status === 'completed' ? total : Math.max(0, Math.min(run.cursor - 1, total));
  const liveMs = run.currentSince && inProgress ? Math.max(0, now.getTime() - run.currentSince.getTime()) : 0;
  const role = workRole(run);
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
    taskContext: run.taskContext ? { tasks: run.taskContext } : null,
    tasks: run.tasks,
    cursor: run.cursor,
    total,
    current,
    moves: run.moves,
    remarks: run.remarks,
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
        tasks: run.tasks.map((task, i) => ({
          title: task.action,
          state: i + 1 < run.cursor || run.status === 'completed' ? 'done' : i + 1 === inProgress ? 'in_progress' : 'pending',
          outcome: run.taskOutcomes[i] ?? 'Pending',
          timeMs: (run.taskTimes[i] ?? 0) + (i + 1 === inProgress ? liveMs : 0),
          remarks: run.remarks.filter((r) => r.tasks.includes(i + 1)).map((r) => r.text),
          ...notesOf(run, i + 1),
        })),
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
