// A tRPC batch's input holds one entry per call, keyed by the call's index; tRPC reads only those and silently ignores
// any other key (`__proto__`, or "5" in a batch of two). Such a key is refused instead, naming it.
import { shownKeys } from '@agent-tasks/schema';

/** The refusal of a batch input (its JSON text) with a key that is no call's index, or null (also when it is no JSON
 * object: tRPC answers that itself). */
export function strayBatchKeyProblem(text: string | undefined, calls: number): string | null {
  if (!text) return null;
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
  const stray = Object.keys(input).find((key) => !/^(0|[1-9]\d{0,5})$/.test(key) || Number(key) >= calls);
  if (stray === undefined) return null;
  const indexes = calls === 1 ? '0' : `0 to ${calls - 1}`;
  return `Error: invalid input: a batch's input is keyed by its calls' indexes (${indexes}); ${shownKeys([stray])} is none of them.`;
}
