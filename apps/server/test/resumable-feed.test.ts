// A resumable feed is listening, and knows where it starts, once it is opened: before the stream tells its client it
// has started (tRPC sends "connected" before it first asks the feed for an event), so a write the client makes then is
// in the feed. A refused start and a stream that ends before its first event leave no listener behind.
import { describe, expect, it } from 'vitest';
import { type LiveEvents, inProcessLiveEvents } from '../src/adapters/live-events.ts';
import { resumableFeed } from '../src/adapters/resumable-feed.ts';

type Item = { n: number };

/** A topic's recorded events (a table) and its live events, with the listeners still open counted. */
function world() {
  const inner = inProcessLiveEvents();
  const table: Item[] = [];
  let open = 0;
  const live: LiveEvents = {
    ...inner,
    listen(topic, signal) {
      const listener = inner.listen(topic, signal);
      open++;
      let closed = false;
      const close = () => {
        if (!closed) open--;
        closed = true;
      };
      return {
        ready: listener.ready,
        close() {
          listener.close();
          close();
        },
        async *[Symbol.asyncIterator]() {
          try {
            yield* listener;
          } finally {
            close();
          }
        },
      };
    },
  };
  const write = () => {
    const item = { n: table.length + 1 };
    table.push(item);
    live.publish({ topic: 't', id: String(item.n), data: item });
  };
  const source = (signal?: AbortSignal, after: () => Promise<number> = () => Promise.resolve(table.length)) => ({
    live,
    topic: 't',
    signal,
    // "From now": where the table is once listening has begun.
    after,
    replay: (from: number) => Promise.resolve({ items: table.filter((item) => item.n > from), more: false }),
    position: (item: Item) => item.n,
  });
  return { write, source, listening: () => open };
}

/** The feed's next event as its id and data, or `nothing` when none comes within a generous guard. */
const nextOf = async (events: AsyncIterator<unknown[]>) =>
  Promise.race([events.next().then((r) => r.value?.slice(0, 2)), new Promise((resolve) => setTimeout(() => resolve('nothing'), 2_000))]);

describe('resumableFeed', () => {
  it('a write made once the feed is opened, before its events are asked for, is its first event', async () => {
    const { write, source } = world();
    write(); // before the feed: not in it
    const stop = new AbortController();
    const events = await resumableFeed(source(stop.signal));
    write(); // the client was told the stream started, and wrote
    write();
    expect(await nextOf(events)).toEqual([String(2), { n: 2 }]);
    expect(await nextOf(events)).toEqual([String(3), { n: 3 }]);
    write(); // and live from there
    expect(await nextOf(events)).toEqual([String(4), { n: 4 }]);
    stop.abort();
  });

  it('a start that cannot be read is thrown, and nothing is left listening', async () => {
    const { source, listening } = world();
    const refused = new Error('Error: session s_1 not found.');
    await expect(resumableFeed(source(undefined, () => Promise.reject(refused)))).rejects.toBe(refused);
    expect(listening()).toBe(0);
  });

  it('a stream that ends before its first event is asked for stops listening', async () => {
    const { source, listening } = world();
    const stop = new AbortController();
    await resumableFeed(source(stop.signal));
    expect(listening()).toBe(1);
    stop.abort();
    expect(listening()).toBe(0);
  });
});
