// A timestamp shown relative to now ("3 min ago"), kept current, with the exact time in a <time> element.
import { useSyncExternalStore } from 'react';

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];
const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

export function relative(iso: string, now = Date.now()) {
  const diff = new Date(iso).getTime() - now;
  for (const [unit, ms] of units) if (Math.abs(diff) >= ms || unit === 'second') return format.format(Math.round(diff / ms), unit);
  return iso;
}

/** One shared clock for every relative time on the page, ticking every 15 s while something shows one. */
let now = Date.now();
const ticks = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;
function subscribe(listener: () => void) {
  ticks.add(listener);
  timer ??= setInterval(() => {
    now = Date.now();
    for (const tick of ticks) tick();
  }, 15_000);
  return () => {
    ticks.delete(listener);
    if (ticks.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

export function TimeAgo({ iso }: { iso: string }) {
  const current = useSyncExternalStore(
    subscribe,
    () => now,
    () => now,
  );
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {relative(iso, Math.max(current, Date.now()))}
    </time>
  );
}

/** Milliseconds as a short duration: 850 ms, 12 s, 3 min 5 s, 1 h 2 min. */
export function duration(ms: number) {
  if (ms < 1_000) return `${ms} ms`;
  const s = Math.round(ms / 1_000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
