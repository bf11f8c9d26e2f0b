// Admission under overload: at most `concurrency` requests are worked on at once, and at most `perTurn` start in one
// turn of the event loop; the rest wait in one queue, first come first served. Node accepts one new connection per
// turn of its event loop, so short turns are what let a new connection in quickly (with 200 busy connections, long
// turns kept new ones waiting for seconds). A request that waited past `maxWaitMs` is answered 503 with
// Retry-After at once (it costs almost nothing), which bounds latency; so is one that finds `maxQueue` ahead of it.
// Requests not yet authenticated (no valid token in their headers) have a line of their own, small, so they never take
// the slots of callers who proved who they are. With workers the slots are the primary's, lent to each worker (one limit
// for the server); each worker keeps its own line.
import { answerHeaders, errorBodyFor, transportRefusals } from '../error-map.ts';
import { type LimitPool, localPool } from './shared-limits.ts';

export const OVERLOADED_MESSAGE = 'Error: the server is overloaded; retry shortly.';
/** The answer when the line of requests not yet authenticated is full. */
export const UNAUTHENTICATED_BUSY_MESSAGE = 'Error: too many requests not yet authenticated are in progress; retry shortly.';

export interface AdmissionOptions {
  /** Requests worked on at once. */
  concurrency: number;
  /** Requests started in one turn of the event loop. */
  perTurn?: number;
  /** Longest wait in the queue before the request is answered 503. */
  maxWaitMs: number;
  /** Longest line; a request arriving behind a full line is answered 503 at once. */
  maxQueue?: number;
  /** Told, about once a second, how many requests were turned away. */
  onShed?(count: number): void;
  /** Where the `concurrency` slots are held (the primary's, with workers); this process's own by default. */
  slots?: LimitPool;
}

interface Waiting {
  since: number;
  admit(): void;
  shed(): void;
  /** With workers: withdraws the unit asked for it (it left the line). */
  cancel?: () => void;
}

/** The answer to a request turned away: tRPC's error shape on /trpc (clients read it like any refusal). */
export function overloadedResponse(url: string, message = OVERLOADED_MESSAGE): Response {
  const answer = transportRefusals.overloaded(message);
  const headers = { 'content-type': 'application/json', ...answerHeaders(answer) };
  return new Response(JSON.stringify(errorBodyFor(new URL(url).pathname, answer)), { status: answer.status, headers });
}

export function admission(options: AdmissionOptions) {
  const perTurn = options.perTurn ?? 8;
  const slots = options.slots ?? localPool(options.concurrency);
  let startedThisTurn = 0;
  let turnScheduled = false;
  // A queue as an array with a moving head: O(1) at both ends.
  let queue: Waiting[] = [];
  let head = 0;
  let shed = 0;
  /** With workers: the requests in line before this index have asked for their slot (`slots.want`). */
  let askedUpTo = 0;

  const waiting = () => queue.length - head;

  /** No slot here for the line: with workers, each request in line that has not asked for one yet asks (`next` runs
   * when one comes). A request queued only for this turn's starts asks nothing. */
  function askForSlots() {
    if (!slots.want) return;
    for (let i = Math.max(askedUpTo, head); i < queue.length; i++) (queue[i] as Waiting).cancel = slots.want(next);
    askedUpTo = queue.length;
  }

  /** Counts a start (its slot taken) against this turn's budget; the next turn (after the loop polled again) resets it. */
  function startOne() {
    startedThisTurn += 1;
    if (!turnScheduled) {
      turnScheduled = true;
      setImmediate(() => {
        turnScheduled = false;
        startedThisTurn = 0;
        next();
      });
    }
  }

  function next() {
    while (startedThisTurn < perTurn && waiting() > 0) {
      const item = queue[head] as Waiting;
      if (performance.now() - item.since > options.maxWaitMs) {
        head += 1;
        shed += 1;
        item.cancel?.();
        item.shed();
        continue;
      }
      if (!slots.take(1)) {
        askForSlots();
        break;
      }
      head += 1;
      startOne();
      item.cancel?.();
      item.admit();
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      askedUpTo = Math.max(askedUpTo - head, 0);
      head = 0;
    }
  }

  // Requests still waiting past the limit are answered even while every slot stays taken.
  const sweep = setInterval(() => {
    const now = performance.now();
    while (waiting() > 0 && now - (queue[head] as Waiting).since > options.maxWaitMs) {
      shed += 1;
      const item = queue[head++] as Waiting;
      item.cancel?.();
      item.shed();
    }
    if (shed > 0) {
      options.onShed?.(shed);
      shed = 0;
    }
  }, 100);
  sweep.unref();

  return {
    /** Runs `work` when a slot is free (the slot is held until its response is ready, not while a stream flows). */
    run(work: () => Promise<Response>, refuse: () => Response): Promise<Response> {
      if (startedThisTurn < perTurn && waiting() === 0 && slots.take(1)) {
        startOne();
        return work().finally(done);
      }
      if (waiting() >= (options.maxQueue ?? Number.POSITIVE_INFINITY)) {
        shed += 1;
        return Promise.resolve(refuse());
      }
      return new Promise<Response>((resolve, reject) => {
        const item: Waiting = {
          since: performance.now(),
          admit: () => void work().finally(done).then(resolve, reject),
          shed: () => resolve(refuse()),
        };
        queue.push(item);
        // In line for want of a slot (not of this turn's starts): with workers, it asks for one, withdrawn when it
        // leaves the line; one lent after all stays with this worker, or goes back when another worker waits.
        if (startedThisTurn < perTurn) askForSlots();
      });
    },
    stop: () => clearInterval(sweep),
  };

  function done() {
    slots.give(1);
    next();
  }
}

/** A second line for some requests (those not yet authenticated): its own limits, its own refusal text. */
export interface SecondLine<E> {
  takes(env: E): boolean;
  options: AdmissionOptions;
  message: string;
}

/** A fetch handler behind admission; health checks skip the queue (a balancer must see a busy server alive). */
export function admitted<E>(
  fetch: (request: Request, env: E) => Response | Promise<Response>,
  options: AdmissionOptions,
  second?: SecondLine<E>,
) {
  const gate = admission(options);
  const other = second ? admission(second.options) : null;
  return {
    fetch(request: Request, env: E): Promise<Response> {
      const path = request.url.slice(request.url.indexOf('/', request.url.indexOf('//') + 2));
      if (path === '/healthz' || path === '/readyz') return Promise.resolve(fetch(request, env));
      if (other && second?.takes(env))
        return other.run(
          () => Promise.resolve(fetch(request, env)),
          () => overloadedResponse(request.url, second.message),
        );
      return gate.run(
        () => Promise.resolve(fetch(request, env)),
        () => overloadedResponse(request.url),
      );
    },
    stop: () => {
      gate.stop();
      other?.stop();
    },
  };
}
