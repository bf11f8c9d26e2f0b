// What a mirror keeps of another runtime's state (Claude Code's TodoWrite list and Task tools): everything as the
// runtime had it, cut at a generous storage bound with a visible "…" where it was cut, never refused for its content.
import { MIRROR_METADATA_MAX, MIRROR_TEXT_MAX, MIRROR_TODO_ITEMS_MAX, type TodoDisplayItem } from '@agent-tasks/schema';

/** The mark left where mirrored content was cut. */
export const CUT_MARK = '…';

/** `text` as it is when it has at most `max` characters (code points), else its first `max - 1` and "…". */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}${CUT_MARK}`;
}

/**
 * A mirrored todo list as the runtime holds it: texts trimmed (a text that is only blanks stays as it was) and cut at
 * MIRROR_TEXT_MAX, an empty `activeForm` dropped; repeated texts and any number of items in progress kept. Past
 * MIRROR_TODO_ITEMS_MAX items the last kept item says how many more were not kept.
 */
export function mirroredTodos(todos: readonly TodoDisplayItem[]): TodoDisplayItem[] {
  const items = todos.map(({ content, status, activeForm }) => {
    const text = cutText(content.trim() || content, MIRROR_TEXT_MAX);
    const display = activeForm?.trim();
    return display ? { content: text, status, activeForm: cutText(display, MIRROR_TEXT_MAX) } : { content: text, status };
  });
  if (items.length <= MIRROR_TODO_ITEMS_MAX) return items;
  const kept = items.slice(0, MIRROR_TODO_ITEMS_MAX - 1);
  kept.push({ content: `${CUT_MARK} and ${items.length - kept.length} more items, not kept`, status: 'pending' });
  return kept;
}

/**
 * Mirrored metadata as the runtime holds it while its JSON has at most MIRROR_METADATA_MAX characters; past that its
 * keys are kept in order while they fit, and a "…" key says how many were not kept.
 */
export function mirroredMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const size = JSON.stringify(metadata).length;
  if (size <= MIRROR_METADATA_MAX) return metadata;
  const entries = Object.entries(metadata);
  const kept: Record<string, unknown> = {};
  let used = 2;
  let count = 0;
  for (const [key, value] of entries) {
    const cost = JSON.stringify(key).length + JSON.stringify(value ?? null).length + 2;
    // Room is left for the "…" entry itself.
    if (used + cost > MIRROR_METADATA_MAX - 200) break;
    kept[key] = value;
    used += cost;
    count++;
  }
  kept[CUT_MARK] = `${entries.length - count} more keys not kept (the metadata was ${size} characters of JSON)`;
  return kept;
}
