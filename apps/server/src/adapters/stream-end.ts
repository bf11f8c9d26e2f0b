// Ends a live stream when something it depends on goes away: a signal that aborts with the stream's own, or as soon
// as a matching event is published on one of the given topics (a revoked key, a revoked run link).
import type { LiveEvent } from '@agent-tasks/core';
import type { LiveEvents } from './live-events.ts';

export function endOnEvent(
  live: LiveEvents,
  topics: readonly string[],
  signal: AbortSignal | undefined,
  matches: (event: LiveEvent) => boolean = () => true,
  /** After a lost LISTEN connection (a `resync`): events may have been missed; look at what they would have said. */
  recheck?: () => void,
): AbortSignal {
  const ended = new AbortController();
  const both = signal ? AbortSignal.any([signal, ended.signal]) : ended.signal;
  for (const topic of topics) {
    void (async () => {
      for await (const event of live.listen(topic, both)) {
        if (event.resync) recheck?.();
        else if (matches(event)) return ended.abort();
      }
    })().catch(() => undefined);
  }
  return both;
}
