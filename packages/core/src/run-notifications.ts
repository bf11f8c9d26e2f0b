// The two notifications of a checklist run (seed 002), in English: "Checklist ready" and "All tasks done".
import type { RunMove } from '@agent-tasks/schema';
import type { RunRecord } from './records.ts';
import { FLOW_NAME } from './run-rules.ts';

export type NotificationKind = 'checklist_ready' | 'all_tasks_done';

/** One checklist line: its mark, position and action ("▶ 1. Build the image"). */
export const checklistLine = (t: { mark: string; position: number; action: string }) => `${t.mark} ${t.position}. ${t.action}`;

/** Where the order differs from the written list, and why: a heading line, then one line per move (none when none). */
export const orderChangeLines = (moves: readonly RunMove[]) =>
  moves.length
    ? ['Order changed from the written list:', ...moves.map((m) => `- written task ${m.task} moved to position ${m.to}: ${m.because}`)]
    : [];

/** The progress line above the checklist: how many tasks are done of how many ("📝 0/3"). */
export const progressLine = (done: number, total: number) => `📝 ${done}/${total}`;

/**
 * The text as Moira writes it: the heading `[Todo List · <run task>](<run page>)` (the flow and the run's task, linked
 * to the run page: `url`, built by the server with `Deps.runPage`), the title, the progress line `📝 <done>/<total>`,
 * then one line per task: ▶ on the first and ○ on the rest when the checklist is ready, ✓ on every task when all are
 * done. Each chat kind renders the linked heading in its own markup.
 */
export function notificationFor(kind: NotificationKind, run: Pick<RunRecord, 'id' | 'name' | 'tasks' | 'moves'>, url: string) {
  const title = kind === 'checklist_ready' ? 'Checklist ready' : 'All tasks done';
  const mark = (index: number) => (kind === 'all_tasks_done' ? '✓' : index === 0 ? '▶' : '○');
  const checklist = run.tasks.map((task, i) => ({ position: i + 1, mark: mark(i), action: task.action }));
  const heading = `${FLOW_NAME} · ${run.name ?? run.id}`;
  const progress = progressLine(kind === 'all_tasks_done' ? run.tasks.length : 0, run.tasks.length);
  // Before any work starts, the author sees where the order differs from the written list, and why.
  const moves = kind === 'checklist_ready' ? run.moves : [];
  const text = [`[${heading}](${url})`, title, progress, ...checklist.map(checklistLine), ...orderChangeLines(moves)].join('\n');
  return { kind, flow: FLOW_NAME, title, heading, progress, run: { id: run.id, name: run.name, url }, checklist, moves, text };
}

/** Delay before the next delivery attempt: exponential from `baseMs`, capped at `maxMs`. */
export function retryDelay(attempts: number, baseMs: number, maxMs: number) {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
}
