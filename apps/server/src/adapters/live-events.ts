// Live events behind one small interface: in-process fan-out here; across workers in cluster/cluster-live-events.ts;
// across replicas on one PostgreSQL database in adapters/postgres-live-events.ts.
import { EventEmitter, on } from 'node:events';
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

export interface InProcessLiveEvents extends LiveEvents {
  /** Tells every topic listened to now to read its table again (a `resync` event, which only feeds act on). */
  resync(): void;
}

export function inProcessLiveEvents(): InProcessLiveEvents {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const closing = new AbortController();
  return {
    publish: (event) => void emitter.emit(event.topic, event),
    listen(topic, signal) {
      const stop = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      // Registered now, not at the first read, so nothing published after this call is missed.
      const events = on(emitter, topic, { signal: stop });
      return {
        ready: Promise.resolve(),
        async *[Symbol.asyncIterator]() {
          try {
            for await (const [event] of events) yield event as HeardEvent;
          } catch (error) {
            if (!stop.aborted) throw error;
          }
        },
        close: () => void events.return?.(),
      };
    },
    close: () => closing.abort(),
    resync() {
      for (const topic of emitter.eventNames()) {
        // events.on() also listens for 'error' (an 'error' event would throw in every listener): never a topic here.
        if (typeof topic === 'string' && topic !== 'error')
          emitter.emit(topic, { topic, id: '', data: undefined, resync: true } satisfies HeardEvent);
      }
    },
  };
}
