// The run card's view model (seed 002 "Execution progress"): every word the card shows, block by block, from the run
// view alone. Pure; the server draws it (its SVG drawing, geometry and text measuring live there).
import type { RunView } from '@agent-tasks/schema';

export type CardTaskState = RunView['blocks']['work']['tasks'][number]['state'];

/** The status pill's colour, by meaning. */
export type CardTone = 'done' | 'pending' | 'in_progress' | 'blocker';

export const STATE_MARKS: Record<CardTaskState, string> = { done: '✓', in_progress: '▶', pending: '○' };
const STATE_WORDS: Record<CardTaskState, string> = { done: 'Done', in_progress: 'In progress', pending: 'Pending' };

/** How many reorderings the Checklist block lists before "+N more". */
export const MOVES_SHOWN = 5;

export interface RunCardTask {
  number: number;
  state: CardTaskState;
  mark: string;
  title: string;
  /** The task in progress shows its whole action; the others keep to two lines. */
  wholeTitle: boolean;
  outcome: string;
  remarks: string[];
  time: string;
}

export interface RunCardModel {
  flow: string;
  status: { word: string; tone: CardTone };
  name: string;
  /** The image's title and description (for screen readers and tooltips). */
  title: string;
  desc: string;
  checklist: { synopsis: string; facts: string; moves: string[] };
  prepare: { facts: [label: string, value: string][]; action: string; hasAction: boolean };
  work: { label: string; doneText: string; fraction: number; synopsis: string; blocker: string | null; tasks: RunCardTask[] };
  footer: string;
}

/**
 * Text as one displayable line: characters XML 1.0 cannot carry even escaped (C0 controls but tab/newline, lone
 * surrogates, U+FFFE/U+FFFF) and C1 controls removed or replaced, runs of whitespace collapsed to one space.
 */
export function displayText(text: string): string {
  return (
    text
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
      // eslint-disable-next-line no-control-regex -- control characters cannot be shown (nor written in XML): removed on purpose
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** Milliseconds as a short duration: 45s, 3m 05s, 1h 02m, 2d 03h. */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms < 1000) return '<1s';
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${String(h % 24).padStart(2, '0')}h`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function status(view: RunView): RunCardModel['status'] {
  if (view.status === 'completed') return { word: 'Completed', tone: 'done' };
  if (view.status === 'intake') return { word: 'Checklist intake', tone: 'pending' };
  if (view.revising) return { word: 'Revising', tone: view.blocker ? 'blocker' : 'in_progress' };
  return view.blocker ? { word: 'Blocked', tone: 'blocker' } : { word: 'Running', tone: 'in_progress' };
}

function checklist(view: RunView): RunCardModel['checklist'] {
  const facts = [plural(view.total, 'task')];
  if (view.revision > 0) facts.push(`revised ${view.revision}×`);
  if (view.remarks.length > 0) facts.push(plural(view.remarks.length, 'remark'));
  const moves = view.moves.slice(0, MOVES_SHOWN).map((m) => `Written task ${m.task} → position ${m.to}: ${m.because}`);
  const more = view.moves.length - MOVES_SHOWN;
  if (more > 0) moves.push(`+${more} more`);
  return { synopsis: view.blocks.checklist.synopsis, facts: facts.join(' · '), moves };
}

function prepare(view: RunView): RunCardModel['prepare'] {
  const { length, cursor, action } = view.blocks.prepare;
  const none =
    view.status === 'intake'
      ? 'Waiting for the checklist'
      : view.revising
        ? 'None: the checklist is being revised'
        : 'None: the checklist is exhausted';
  return {
    facts: [
      ['Length', String(length)],
      ['Cursor', view.status === 'intake' ? '—' : String(cursor)],
    ],
    action: action ?? none,
    hasAction: Boolean(action),
  };
}

function workBlock(view: RunView): RunCardModel['work'] {
  const work = view.blocks.work;
  return {
    label: work.label,
    doneText: `${work.done} of ${work.total_tasks} done`,
    fraction: work.total_tasks > 0 ? work.done / work.total_tasks : 0,
    synopsis: work.synopsis,
    blocker: view.blocker ? `Blocked: ${view.blocker}` : null,
    tasks: work.tasks.map((task, i) => ({
      number: i + 1,
      state: task.state,
      mark: STATE_MARKS[task.state],
      title: task.title,
      wholeTitle: task.state === 'in_progress',
      outcome:
        task.state !== 'done' && task.outcome === 'Pending' ? STATE_WORDS[task.state] : `${STATE_WORDS[task.state]} · ${task.outcome}`,
      remarks: task.remarks.map((remark) => `Remark: ${remark}`),
      time: task.state === 'pending' && task.timeMs === 0 ? '—' : formatDuration(task.timeMs),
    })),
  };
}

/** Everything the run's card says: heading (flow, status, run name), Checklist → Prepare → Work, and the footer. */
export function runCardModel(view: RunView): RunCardModel {
  const work = view.blocks.work;
  return {
    flow: view.flow,
    status: status(view),
    name: view.name ?? view.id,
    title: `${view.flow} — ${displayText(view.name ?? view.id)}`,
    desc: `${work.label} · ${work.done} of ${work.total_tasks} tasks done`,
    checklist: checklist(view),
    prepare: prepare(view),
    work: workBlock(view),
    footer: `Run ${view.id} · revision ${view.revision} · updated ${view.updatedAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}`,
  };
}
