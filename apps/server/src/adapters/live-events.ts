// Live events behind one small interface: in-process fan-out now; a PostgreSQL LISTEN/NOTIFY one can replace it.
import { EventEmitter, on } from 'node:events';
import type { EventPublisher, LiveEvent } from '@agent-tasks/core';

export interface LiveEvents extends EventPublisher {
  /** Events published on `topic` from now on, until `signal` aborts or the events are closed. */
  listen(topic: string, signal: AbortSignal | undefined): AsyncIterable<LiveEvent>;
  /** Ends every listener (their streams finish cleanly); used at shutdown. */
  close(): void;
}

export function inProcessLiveEvents(): LiveEvents {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const closing = new AbortController();
  return {
    publish: (event) => void emitter.emit(event.topic, event),
    async *listen(topic, signal) {
      const stop = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      try {
        for await (const [event] of on(emitter, topic, { signal: stop })) yield event as LiveEvent;
      } catch (error) {
        if (!stop.aborted) throw error;
      }
    },
    close: () => closing.abort(),
  };
}
