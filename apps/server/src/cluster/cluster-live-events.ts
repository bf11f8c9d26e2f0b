// Live events across workers: published locally, and relayed through the primary to just the workers that listen
// on the topic. A listener is ready once every other worker knows of it, so a resumed feed misses nothing.
import type { LiveEvent } from '@agent-tasks/core';
import { type LiveEvents, type LiveListener, inProcessLiveEvents } from '../adapters/live-events.ts';
import type { PrimaryLink } from './messages.ts';

export function clusterLiveEvents(link: PrimaryLink): LiveEvents {
  const local = inProcessLiveEvents();
  /** Local listeners per topic; the primary is told when a topic gains its first or loses its last. */
  const listeners = new Map<string, number>();
  /** Per topic: the primary's answer once it has told every other worker (shared by later listeners). */
  const subscribed = new Map<string, Promise<void>>();
  /** Per topic: the other workers listening on it. */
  const remote = new Map<string, number[]>();
  const acks = new Map<number, () => void>();
  let nextAck = 1;

  link.onMessage((message) => {
    if (message.at === 'live:event') local.publish(message.event);
    else if (message.at === 'live:interest') {
      if (message.workers.length > 0) remote.set(message.topic, message.workers);
      else remote.delete(message.topic);
      link.send({ at: 'live:interest-ack', ack: message.ack });
    } else if (message.at === 'live:subscribed') {
      acks.get(message.ack)?.();
      acks.delete(message.ack);
    }
  });
  // From now on this worker answers the primary's announcements (one sent while it loaded would never be answered).
  link.send({ at: 'live:hello' });

  function acquire(topic: string): Promise<void> {
    const count = listeners.get(topic) ?? 0;
    listeners.set(topic, count + 1);
    let ready = subscribed.get(topic);
    if (!ready) {
      const ack = nextAck++;
      ready = new Promise<void>((resolve) => acks.set(ack, resolve));
      subscribed.set(topic, ready);
      link.send({ at: 'live:sub', topic, ack });
    }
    return ready;
  }

  function release(topic: string) {
    const count = (listeners.get(topic) ?? 1) - 1;
    if (count > 0) {
      listeners.set(topic, count);
      return;
    }
    listeners.delete(topic);
    subscribed.delete(topic);
    link.send({ at: 'live:unsub', topic });
  }

  return {
    publish(event: LiveEvent) {
      local.publish(event);
      const to = remote.get(event.topic);
      if (to) link.send({ at: 'live:event', event, to });
    },
    listen(topic, signal): LiveListener {
      const ready = acquire(topic);
      const events = local.listen(topic, signal);
      let released = false;
      const done = () => {
        if (!released) release(topic);
        released = true;
      };
      return {
        ready,
        async *[Symbol.asyncIterator]() {
          try {
            yield* events;
          } finally {
            done();
          }
        },
        close() {
          events.close();
          done();
        },
      };
    },
    close: () => local.close(),
  };
}
