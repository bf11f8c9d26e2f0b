// A resumable live feed: subscribe first, replay what was recorded after the last event id, then stream, without gaps or repeats.
import { type TrackedEnvelope, tracked } from '@trpc/server';
import { type LiveEvents, openListener } from './live-events.ts';

export interface FeedSource<T> {
  live: LiveEvents;
  topic: string;
  signal: AbortSignal | undefined;
  /** Position of the last event the client saw (0 for none), or where "now" is, read once listening has begun. */
  after: number | (() => Promise<number>);
  /** One page of recorded events after `after`, oldest first. */
  replay(after: number): Promise<{ items: T[]; more: boolean }>;
  position(item: T): number;
}

/** Where a feed starts: after the client's last event id; else from the start, or (the default) from now. */
export function feedStart(input: { lastEventId?: string | undefined; from?: 'now' | 'start' | undefined }, now: () => Promise<number>) {
  if (input.lastEventId !== undefined) return Number(input.lastEventId) || 0;
  return input.from === 'start' ? 0 : now;
}

/**
 * Opens the feed: listening (in every worker) and its start read before this resolves, so before the stream tells the
 * client it has started (tRPC sends "connected" before it first asks the events for one) — a write the client makes once
 * told is in the feed, not behind its start. Then the recorded events after the start, then the live ones.
 */
export async function resumableFeed<T>(source: FeedSource<T>): Promise<AsyncGenerator<TrackedEnvelope<T>>> {
  // Listening before the replay read, so nothing falls between the two.
  const listener = await openListener(source.live, source.topic, source.signal);
  let last: number;
  try {
    last = typeof source.after === 'number' ? source.after : await source.after();
  } catch (error) {
    listener.close();
    throw error;
  }
  /** Every recorded event after `last`, page by page. */
  async function* recorded() {
    for (let more = true; more;) {
      const page = await source.replay(last);
      for (const item of page.items) {
        last = source.position(item);
        yield tracked(String(last), item);
      }
      more = page.more;
    }
  }
  return (async function* events() {
    try {
      yield* recorded();
      for await (const event of listener) {
        // Told by another replica (or told to read again after a lost LISTEN connection): the event, and any before it
        // this replica has not heard of yet, read from the table.
        if (event.fromAnotherReplica || event.resync) {
          yield* recorded();
          continue;
        }
        const item = event.data as T;
        if (source.position(item) <= last) continue;
        // Past a gap (an event committed earlier by another replica, whose notice has not come yet): read the table, so
        // the earlier one is not skipped for good.
        if (source.position(item) > last + 1) {
          yield* recorded();
          continue;
        }
        last = source.position(item);
        yield tracked(String(last), item);
      }
    } finally {
      listener.close();
    }
  })();
}
