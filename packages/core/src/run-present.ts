// The run's view: the three blocks Checklist → Prepare → Work, the current projection, and the terminal output.
import type { RunView } from '@agent-tasks/schema';
import type { RunRecord } from './records.ts';
import { FLOW_NAME, currentTask, taskLabel } from './run-rules.ts';

export function presentRun(run: RunRecord, now: Date): RunView {
  const total = run.tasks.length;
  const current = currentTask(run);
  const inProgress = current ? run.cursor : null;
  const done = run.status === 'completed' ? total : Math.max(0, Math.min(run.cursor - 1, total));
  const liveMs = run.currentSince && inProgress ? Math.max(0, now.getTime() - run.currentSince.getTime()) : 0;
  return {
    id: run.id,
    flow: FLOW_NAME,
    name: run.name,
    status: run.status,
    sessionId: run.sessionId,
    parentRunId: run.parentRunId,
    executionNote: run.executionNote,
    tasks: run.tasks,
    cursor: run.cursor,
    total,
    current,
    moves: run.moves,
    remarks: run.remarks,
    blocker: run.blocker,
    blocks: {
      checklist: { synopsis: run.checklistOutcome },
      prepare: {
        length: total,
        cursor: run.cursor,
        action: current?.action ?? null,
        expected_result: current?.expected_result ?? null,
      },
      work: {
        label: run.status === 'completed' ? `Done ${total}/${total}` : run.status === 'intake' ? 'Checklist intake' : taskLabel(run.cursor, total),
        tasks: run.tasks.map((task, i) => ({
          title: task.action,
          state: i + 1 < run.cursor || run.status === 'completed' ? 'done' : i + 1 === inProgress ? 'in_progress' : 'pending',
          outcome: run.taskOutcomes[i] ?? 'Pending',
          timeMs: (run.taskTimes[i] ?? 0) + (i + 1 === inProgress ? liveMs : 0),
          remarks: run.remarks.filter((r) => r.tasks.includes(i + 1)).map((r) => r.text),
        })),
        currentTask: Math.min(run.cursor, total),
        totalTasks: total,
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
