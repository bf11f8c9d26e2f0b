// A timestamp shown relative to now ("3 min ago"), with the exact time in a <time> element.
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

export function TimeAgo({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {relative(iso)}
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
