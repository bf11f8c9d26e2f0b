// What evidence says about a task: whether each piece reports success, the task's verdict, and completion refusals.
import type { Evidence, EvidenceInput, TaskVerdict } from '@agent-tasks/schema';
import type { EvidenceRecord, TaskListSettingsRecord } from './trust-ports.ts';

/** Check conclusions (GitHub's check runs and commit statuses) that report a failure. */
const FAILING = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'error', 'startup_failure', 'stale']);

/** Whether a piece of evidence reports success: a command that exited 0, a check that succeeded; a note says so. */
export function reportsSuccess(e: EvidenceInput): boolean {
  if (e.kind === 'command') return e.exitCode === 0;
  if (e.kind === 'check') return e.conclusion === 'success';
  return true;
}

const failing = (r: EvidenceRecord) =>
  r.body.kind === 'command' ? r.body.exitCode !== 0 : r.body.kind === 'check' && FAILING.has(r.body.conclusion);

const trusted = (r: EvidenceRecord) => r.provenance !== 'agent';

/** A check that now fails after some earlier success (hook or CI), or null. */
function contestedBy(rows: readonly EvidenceRecord[]): EvidenceRecord | null {
  const latest = new Map<string, number>();
  rows.forEach((r, at) => {
    if (trusted(r) && r.body.kind === 'check') latest.set(r.body.name, at);
  });
  for (const at of latest.values()) {
    const row = rows[at];
    if (row && failing(row) && rows.slice(0, at).some((r) => trusted(r) && r.success)) return row;
  }
  return null;
}

/**
 * The task's verdict from its evidence, oldest first: `contested` when a check's latest conclusion fails after a success
 * from a hook or CI; `verified` when hook or CI evidence reports success (a check's latest conclusion, or the latest
 * command a hook saw) and no check now fails; `unverified` otherwise. No evidence: no verdict.
 */
export function verdictOf(rows: readonly EvidenceRecord[]): TaskVerdict | undefined {
  if (rows.length === 0) return undefined;
  if (contestedBy(rows)) return 'contested';
  const checks = new Map<string, EvidenceRecord>();
  let lastCommand: EvidenceRecord | undefined;
  for (const r of rows) {
    if (!trusted(r)) continue;
    if (r.body.kind === 'check') checks.set(r.body.name, r);
    if (r.body.kind === 'command') lastCommand = r;
  }
  const latest = [...checks.values()];
  if (latest.some(failing)) return 'unverified';
  return latest.some((r) => r.success) || lastCommand?.success ? 'verified' : 'unverified';
}

/** Why `completed` is refused under the list's settings, given the task's evidence with this update's; null if it is not. */
export function completionRefusal(
  settings: TaskListSettingsRecord,
  rows: readonly EvidenceRecord[],
  taskRef: string,
  listName: string,
): string | null {
  const list = JSON.stringify(listName);
  if (settings.requireVerified) {
    const verdict = verdictOf(rows);
    if (verdict === 'verified') return null;
    const contested = contestedBy(rows);
    const why = contested?.body.kind === 'check' ? `its check "${contested.body.name}" failed after a success` : 'it has none';
    return `Error: cannot complete ${taskRef}: task list ${list} requires verified evidence (a hook or CI reporting success), and ${why}; run the tests where a hook or CI records them, then complete the task.`;
  }
  if (settings.requireEvidence && rows.length === 0) {
    return `Error: cannot complete ${taskRef}: task list ${list} requires evidence; send \`evidence\` with the update, e.g. { kind: "command", command: "pnpm test", exitCode: 0 }.`;
  }
  return null;
}

/** A recorded piece of evidence as TaskGet shows it. */
export function presentEvidence(r: EvidenceRecord): Evidence {
  return { ...r.body, provenance: r.provenance, success: r.success, at: r.at.toISOString() };
}
