// Live events behind one small interface: in-process fan-out here; across workers in cluster/cluster-live-events.ts;
// across replicas on one PostgreSQL database in adapters/postgres-live-events.ts.
import { EventEmitter, on } from 'node:events';
import type { EventPublisher, LiveEvent } from '@agent-tasks/core';

/** An event as a listener hears it: one from another replica carries its data only when small (read it from its table). */
export interface HeardEvent extends LiveEvent {
  fromAnotherReplica?: boolean;
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

export function inProcessLiveEvents(): LiveEvents {
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
  };
}
