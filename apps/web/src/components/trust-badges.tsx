// Trust marks for a task, shared by the table, the board, the graph and the task panel: the verified / contested badge
// (evidence from a hook or CI) and the countdown of a claim's lease.
import type { Task, TaskVerdict } from '@agent-tasks/schema';
import { useEffect, useState } from 'react';

const TITLES: Record<'verified' | 'contested', string> = {
  verified: 'Verified: evidence from a hook or CI reports success',
  contested: 'Contested: a check failed after a success',
};

/** The badge of a verified or contested task; nothing for a task with no evidence or only the agent's word. */
export function VerdictBadge({ verdict }: { verdict: TaskVerdict | undefined }) {
  if (verdict !== 'verified' && verdict !== 'contested') return null;
  return (
    <span className={`badge badge-${verdict}`} data-badge={verdict} title={TITLES[verdict]}>
      {verdict}
    </span>
  );
}

/** The same badge inside an SVG node (the graph), at (x, y), right-aligned. */
export function VerdictSvgBadge({ verdict, x, y }: { verdict: TaskVerdict | undefined; x: number; y: number }) {
  if (verdict !== 'verified' && verdict !== 'contested') return null;
  return (
    <text x={x} y={y} textAnchor="end" className={`badge badge-${verdict}`} data-badge={verdict}>
      <title>{TITLES[verdict]}</title>
      {verdict === 'verified' ? '✓ verified' : '! contested'}
    </text>
  );
}

/** "m:ss" (or "h:mm:ss") left until `iso`; "expiring" once it has passed. */
export function leaseLeft(iso: string, now: number) {
  const left = Math.ceil((new Date(iso).getTime() - now) / 1_000);
  if (left <= 0) return 'expiring';
  const h = Math.floor(left / 3_600);
  const m = Math.floor((left % 3_600) / 60);
  const s = String(left % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A claim's lease, counting down every second. */
export function LeaseCountdown({ lease }: { lease: Task['lease'] }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!lease) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [lease]);
  if (!lease) return null;
  return (
    <span className="lease" data-lease={lease.expiresAt} title={`Lease of ${lease.owner}: returns to ready unless renewed`}>
      lease {leaseLeft(lease.expiresAt, now)}
    </span>
  );
}
