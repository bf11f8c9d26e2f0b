// The message a chat channel (Slack, Discord, Teams) shows, before it is written in that service's shape; fitting helpers.
import { checklistLine, type notificationFor, orderChangeLines } from './run-notifications.ts';

export interface ChatMessage {
  /** "Checklist ready", "All tasks done" or "Test message". */
  title: string;
  /** The flow name and the run's task: "Todo List · Release 1.2", shown linked to the run page when there is one. */
  heading: string;
  /** How many tasks are done of how many, above the checklist ("📝 0/3"); null for a test message. */
  progress: string | null;
  /** The checklist, one line per task with its mark ("▶ 1. Build the image"). */
  checklist: string[];
  /** Lines after the checklist: where the order differs from the written list, or the test message's text. */
  notes: string[];
  /** The run page; null for a test message. */
  url: string | null;
}

/** Lines longer than this are clipped, so that one line always fits any target's smallest text field. */
export const CHAT_LINE_MAX = 1500;

export const LINK_LABEL = 'Open the run page';

/** The lines above and of the checklist: the progress line, when there is one, then the checklist's lines. */
export const progressAndChecklist = (m: Pick<ChatMessage, 'progress'>, checklist: readonly string[]) =>
  m.progress === null ? [...checklist] : [m.progress, ...checklist];

export function chatMessageOf(notification: ReturnType<typeof notificationFor>): ChatMessage {
  return {
    title: notification.title,
    heading: notification.heading,
    progress: notification.progress,
    checklist: notification.checklist.map((t) => clip(checklistLine(t), CHAT_LINE_MAX)),
    notes: orderChangeLines(notification.moves).map((line) => clip(line, CHAT_LINE_MAX)),
    url: notification.run.url,
  };
}

export function testChatMessage(channel: { name: string }): ChatMessage {
  return {
    title: 'Test message',
    heading: `agent-tasks · ${channel.name}`,
    progress: null,
    checklist: [],
    notes: ['This channel is set up: it will receive "Checklist ready" and "All tasks done" for checklist runs.'],
    url: null,
  };
}

/** `text` cut to at most `max` UTF-16 units (what JavaScript and these services count), ending in "…" when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  // Never leave half of a surrogate pair at the end.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

export const moreLine = (n: number) => `… and ${n} more`;

/**
 * The longest head of `lines` that `fits`, followed by "… and N more" for the N lines left out (the tail line is
 * part of what must fit). `fits` must be monotonic: if a list fits, every shorter head of it fits too.
 */
export function fitLines(lines: readonly string[], fits: (kept: string[]) => boolean): string[] {
  const withTail = (k: number) => (k === lines.length ? lines.slice() : [...lines.slice(0, k), moreLine(lines.length - k)]);
  if (fits(withTail(lines.length))) return withTail(lines.length);
  // Binary search for the largest k in [0, n) whose head plus tail fits.
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(withTail(mid))) low = mid;
    else high = mid - 1;
  }
  return withTail(low);
}
