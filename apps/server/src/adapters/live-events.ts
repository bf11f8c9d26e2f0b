// Live events behind one small interface: in-process fan-out here; across workers in cluster/cluster-live-events.ts;
// across replicas on one PostgreSQL database in adapters/postgres-live-events.ts.
import { EventEmitter, setMaxListeners } from 'node:events';
import type { EventPublisher, LiveEvent } from '@agent-tasks/core';

/** An event as a listener hears it: one from another replica carries its data only when small (read it from its table). */
export interface HeardEvent extends LiveEvent {
  fromAnotherReplica?: boolean;
  /** No event: this replica may have missed some (its LISTEN connection was down); feeds read their table again. */
  resync?: boolean;
}

/** The events of one topic from the moment `listen` was called; from every process once `ready` resolves. */
export interface LiveListener extends AsyncIterable<HeardEvent> {
  ready: Promise<void>;
  /** Ends the subscription when the events were never iterated (iterating to the end ends it too). */
  close(): void;
}

export interface LiveEvents extends EventPublisher {
  /** Events published on `topic` from now on, until `signal` aborts or the events are closed. */
  listen(topic: string, signal: AbortSignal | undefined): LiveListener;
  /** Ends every listener (their streams finish cleanly); used at shutdown. */
  close(): void;
}

/**
 * A listener on `topic` that hears from every process before this resolves, and is closed when `signal` aborts even if
 * never iterated: a stream opens it before it tells its client it has started (tRPC's `connected` comes before the
 * first event is asked for), so nothing published after that is missed.
 */
export async function openListener(live: LiveEvents, topic: string, signal: AbortSignal | undefined): Promise<LiveListener> {
  const listener = live.listen(topic, signal);
  signal?.addEventListener('abort', () => listener.close(), { once: true });
  await listener.ready;
  return listener;
}

export interface InProcessLiveEvents extends LiveEvents {
  /** Tells every topic listened to now to read its table again (a `resync` event, which only feeds act on). */
  resync(): void;
}

/**
 * Most events one listener holds that its reader has not taken yet. Past it the backlog is dropped for one `resync`
 * (a feed reads its table again; a signal stream misses what it missed), so a reader that stalls — a client that does
 * not read its stream — holds a few references, not every event since.
 */
export const MAX_UNREAD_EVENTS = 64;

export function inProcessLiveEvents(): InProcessLiveEvents {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const closing = new AbortController();
  // Every open listener waits on it (thousands with as many streams): no leak warning past ten.
  setMaxListeners(0, closing.signal);
  return {
    publish: (event) => void emitter.emit(event.topic, event),
    listen(topic, signal) {
      // A small queue of its own per listener (node's events.on() keeps two 2,048-slot buffers per listener).
      let unread: HeardEvent[] = [];
      let wake: (() => void) | undefined;
      let ended = false;
      const heard = (event: HeardEvent) => {
        if (unread.length >= MAX_UNREAD_EVENTS) unread = [{ topic, id: '', data: undefined, resync: true }];
        else unread.push(event);
        wake?.();
      };
      const end = () => {
        if (ended) return;
        ended = true;
        emitter.off(topic, heard);
        signal?.removeEventListener('abort', end);
        closing.signal.removeEventListener('abort', end);
        unread = [];
        wake?.();
      };
      // Registered now, not at the first read, so nothing published after this call is missed.
      emitter.on(topic, heard);
      signal?.addEventListener('abort', end);
      closing.signal.addEventListener('abort', end);
      if (signal?.aborted || closing.signal.aborted) end();
      return {
        ready: Promise.resolve(),
        async *[Symbol.asyncIterator]() {
          try {
            for (;;) {
              const next = unread.shift();
              if (next) yield next;
              else if (ended) return;
              else await new Promise<void>((resolve) => (wake = resolve));
            }
          } finally {
            end();
          }
        },
        close: end,
      };
    },
    close: () => closing.abort(),
    resync() {
      for (const topic of emitter.eventNames()) {
        if (typeof topic === 'string') emitter.emit(topic, { topic, id: '', data: undefined, resync: true } satisfies HeardEvent);
      }
    },
  };
}
