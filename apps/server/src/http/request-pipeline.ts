// What stands between a socket and the app, in order: the front door (client address, token looked up, body read at a
// minimum rate), admission (two lines: callers who proved who they are, and the rest), then the web request built for
// Hono. One assembly, used by the server and by the bench's no-op baseline, so the bench measures exactly this stack.
import { type HttpBindings, getRequestListener } from '@hono/node-server';
import type { Logger } from '../logger.ts';
import { UNAUTHENTICATED_BUSY_MESSAGE, admitted } from './admission.ts';
import { requestErrorAnswer } from './client-errors.ts';
import { type FrontDoorOptions, factsOf, frontDoor } from './front-door.ts';
import type { LimitPool } from './shared-limits.ts';

/** Where the limits are held when several processes share them (cluster/limit-account.ts); else each its own. */
export interface RequestPools {
  /** Admission's slots: `maxConcurrent`, and `unauthenticatedConcurrent` for the second line. */
  admission: LimitPool;
  unauthenticated: LimitPool;
  /** The front door's: bytes of bodies being read, and bodies of requests not yet authenticated read at once. */
  bytes: LimitPool;
  unauthenticatedBodies: LimitPool;
}

export interface RequestPipelineOptions {
  /** Requests worked on at once (64), and how long (5 s) and how many (2,000) may wait for a turn. */
  maxConcurrent: number;
  maxQueueMs: number;
  maxQueue: number;
  /** Requests not yet authenticated worked on at once, in their own line (8). */
  unauthenticatedConcurrent: number;
  frontDoor: Omit<FrontDoorOptions, 'log' | 'pools'>;
  /** With workers: the limits held for all of them, and each worker's share of the line (`maxQueue`). */
  shared?: { pools: RequestPools; workers: number };
  log: Logger;
}

export function requestPipeline(
  fetch: (request: Request, env: HttpBindings) => Response | Promise<Response>,
  options: RequestPipelineOptions,
) {
  const { log, shared } = options;
  // Each worker keeps a line of its own: its share of the longest line.
  const maxQueue = shared ? Math.ceil(options.maxQueue / shared.workers) : options.maxQueue;
  const gate = admitted(
    fetch,
    {
      concurrency: options.maxConcurrent,
      maxWaitMs: options.maxQueueMs,
      maxQueue,
      ...(shared ? { slots: shared.pools.admission } : {}),
      onShed: (count) => log.warn({ shed: count }, `overloaded: answered ${count} requests 503 in the last interval`),
    },
    {
      // Requests whose headers carry no working token wait in a small line of their own.
      takes: (env) => factsOf(env?.incoming)?.authenticated === false,
      message: UNAUTHENTICATED_BUSY_MESSAGE,
      options: {
        concurrency: options.unauthenticatedConcurrent,
        maxWaitMs: options.maxQueueMs,
        maxQueue,
        ...(shared ? { slots: shared.pools.unauthenticated } : {}),
        onShed: (count) => log.warn({ shed: count }, `requests not yet authenticated: answered ${count} requests 503 in the last interval`),
      },
    },
  );
  const door = frontDoor(
    { ...options.frontDoor, log, ...(shared ? { pools: shared.pools } : {}) },
    // @hono/node-server's own Request and Response (its default): an answer built from a string is written as it is,
    // where the global Response made each answer a stream read back chunk by chunk.
    getRequestListener((request, env) => gate.fetch(request, env as HttpBindings), { errorHandler: requestErrorAnswer(log) }),
  );
  return {
    listener: door.handle,
    stop() {
      gate.stop();
      door.stop();
    },
  };
}
