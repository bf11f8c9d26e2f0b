// The connection indicator: live, reconnecting (by itself) or offline, announced politely to screen readers.
import { useLiveState } from '../lib/live.ts';

const labels = { live: 'Live', connecting: 'Reconnecting…', offline: 'Offline — retrying', idle: 'Not watching' } as const;

export function ConnectionIndicator() {
  const state = useLiveState();
  return (
    <output className={`connection connection-${state}`} aria-live="polite" data-state={state} title="Live updates">
      <span className="dot" aria-hidden="true" />
      {labels[state]}
    </output>
  );
}
