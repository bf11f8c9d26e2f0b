// A resumable live feed: subscribe first, replay what was recorded after the last event id, then stream, without gaps or repeats.
import { tracked } from '@trpc/server';
import type { LiveEvents } from './live-events.ts';

export interface FeedSource<T> {
  live: LiveEvents;
  topic: string;
  signal: AbortSignal | undefined;
  /** Position of the last event the client saw (0 for none). */
  after: number;
  /** One page of recorded events after `after`, oldest first. */
  replay(after: number): Promise<{ items: T[]; more: boolean }>;
  position(item: T): number;
}

export async function* resumableFeed<T>(source: FeedSource<T>) {
  // Listening (in every worker) before the replay read, so nothing falls between the two.
  const listener = source.live.listen(source.topic, source.signal);
  try {
    await listener.ready;
    let last = source.after;
    for (let more = true; more; ) {
      const page = await source.replay(last);
      for (const item of page.items) {
        last = source.position(item);
        yield tracked(String(last), item);
      }
      more = page.more;
    }
    for await (const event of listener) {
      const item = event.data as T;
      if (source.position(item) <= last) continue;
      last = source.position(item);
      yield tracked(String(last), item);
    }
  } finally {
    listener.close();
  }
}
