// In-process live events: a listener holds at most MAX_UNREAD_EVENTS its reader has not taken; past that one `resync`
// stands for the backlog (a feed reads its table again), so a stalled reader's memory stays bounded.
import { describe, expect, it } from 'vitest';
import { MAX_UNREAD_EVENTS, inProcessLiveEvents } from '../src/adapters/live-events.ts';

describe('inProcessLiveEvents', () => {
  it('delivers what was published after listen, in order', async () => {
    const live = inProcessLiveEvents();
    const stop = new AbortController();
    const listener = live.listen('t', stop.signal);
    for (let i = 1; i <= 3; i++) live.publish({ topic: 't', id: String(i), data: i });
    live.publish({ topic: 'other', id: 'x', data: 0 });
    const seen: unknown[] = [];
    for await (const event of listener) {
      seen.push(event.data);
      if (seen.length === 3) stop.abort();
    }
    expect(seen).toEqual([1, 2, 3]);
  });

  it('a reader that does not read holds at most MAX_UNREAD_EVENTS; past it one resync replaces the backlog', async () => {
    const live = inProcessLiveEvents();
    const stop = new AbortController();
    const listener = live.listen('t', stop.signal);
    for (let i = 1; i <= MAX_UNREAD_EVENTS * 10 + 1; i++) live.publish({ topic: 't', id: String(i), data: i });
    const seen: { resync?: boolean; data: unknown }[] = [];
    let published = false;
    for await (const event of listener) {
      seen.push({ ...(event.resync ? { resync: true } : {}), data: event.data });
      // Once the reader reads again, what follows comes as it is.
      if (!published) live.publish({ topic: 't', id: 'last', data: 'last' });
      published = true;
      if (event.data === 'last') stop.abort();
    }
    expect(seen.length).toBeLessThanOrEqual(MAX_UNREAD_EVENTS + 1);
    expect(seen[0]).toEqual({ resync: true, data: undefined });
    expect(seen.at(-1)).toEqual({ data: 'last' });
  });

  it('ends its listeners when their signal aborts or the events close, and keeps no subscription after', async () => {
    const live = inProcessLiveEvents();
    const stop = new AbortController();
    const ended = (async () => {
      for await (const _ of live.listen('t', stop.signal));
      return 'ended';
    })();
    stop.abort();
    expect(await ended).toBe('ended');
    const other = (async () => {
      for await (const _ of live.listen('t', undefined));
      return 'closed';
    })();
    live.close();
    expect(await other).toBe('closed');
  });
});
