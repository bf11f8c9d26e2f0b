// Live events behind one small interface: in-process fan-out now; a PostgreSQL LISTEN/NOTIFY one can replace it.
import { EventEmitter, on } from 'node:events';
import type { EventPublisher, LiveEvent } from '@agent-tasks/core';

export interface LiveEvents extends EventPublisher {
  /** Events published on `topic` from now on, until `signal` aborts. */
  listen(topic: string, signal: AbortSignal | undefined): AsyncIterable<LiveEvent>;
}

export function inProcessLiveEvents(): LiveEvents {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish: (event) => void emitter.emit(event.topic, event),
    async *listen(topic, signal) {
      try {
        for await (const [event] of on(emitter, topic, signal ? { signal } : {})) yield event as LiveEvent;
      } catch (error) {
        if (!signal?.aborted) throw error;
      }
    },
  };
}
