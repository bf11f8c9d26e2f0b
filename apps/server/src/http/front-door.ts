// In front of admission, on the Node request: the client's address (X-Forwarded-For only from a trusted proxy), whether
// the token in its headers works (looked up before any slot is taken), and its body read whole at a minimum data rate
// before it is admitted. A body that trickles in holds no admission slot, a request not yet authenticated waits in a
// small line of its own, and few of their bodies are read at once. With workers, the bytes and the bodies read at once
// are counted for all of them (http/shared-limits.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerToken } from '../context.ts';
import { type Answer, answerFor, answerHeaders, errorBodyFor, refusal, transportRefusals } from '../error-map.ts';
import { type Logger, flushLines } from '../logger.ts';
import { OVERLOADED_MESSAGE, UNAUTHENTICATED_BUSY_MESSAGE } from './admission.ts';
import { type LimitPool, localPool, takeFrom } from './shared-limits.ts';

export interface FrontDoorOptions {
  /** The client's address from the socket's peer and the X-Forwarded-For header. */
  clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined): string | undefined;
  /** Whether a bearer token names a caller; counts nothing (the app counts a failure when it refuses the request). */
  verify(address: string | undefined, token: string): Promise<boolean>;
  /** Largest body read; a larger one is refused with `tooLarge` (one that declares it is left to the app's own limit). */
  maxBodyBytes: number;
  tooLargeMessage: string;
  /** A body must arrive at this rate at least, once `graceMs` have passed since its headers. */
  minBytesPerSecond: number;
  graceMs: number;
  /** Bodies of requests not yet authenticated read at once; past it, 503 at once. */
  maxUnauthenticatedBodies: number;
  /** Bytes of bodies being read held at once, all requests together; a body that would pass it is answered 503. */
  maxBufferedBytes: number;
  /** Where those two limits are held (the primary's, with workers); this process's own by default. */
  pools?: { bytes: LimitPool; unauthenticatedBodies: LimitPool };
  log: Logger;
}

/** What the front door learnt of a request, for the app (its address) and admission (its line). */
export interface RequestFacts {
  address: string | undefined;
  authenticated: boolean;
}

const facts = new WeakMap<IncomingMessage, RequestFacts>();
export const factsOf = (incoming: IncomingMessage | undefined): RequestFacts | undefined => (incoming ? facts.get(incoming) : undefined);

type Read = Buffer | 'slow' | 'large' | 'full' | 'gone';

/** Reads a body whole; 'slow' once fewer than `minBytesPerSecond` × (seconds since the start − grace) have come. Its
 * bytes are held in `budget` until it is read; past it, 'full' (with workers, asked of the others first: the body
 * waits meanwhile). */
function readBody(incoming: IncomingMessage, options: FrontDoorOptions, budget: LimitPool): Promise<Read> {
  return new Promise<Read>((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    let received = 0;
    /** Of the budget, taken for this body. */
    let held = 0;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (result: Read) => {
      if (settled) return;
      settled = true;
      budget.give(held);
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onGone);
      incoming.off('close', onGone);
      resolve(result);
    };
    const due = () => started + options.graceMs + (received / options.minBytesPerSecond) * 1000;
    // Judged after the loop's next poll: bytes that arrived while it was busy are read before the verdict.
    const check = () =>
      setImmediate(() => {
        if (settled) return;
        const wait = due() - performance.now();
        if (wait <= 0) finish('slow');
        else timer = setTimeout(check, wait);
      });
    const keep = (chunk: Buffer) => {
      held += chunk.length;
      chunks.push(chunk);
    };
    /** Chunks not yet in the budget, in order, and whether one waits for the other workers' answer (with workers). A
     * paused stream can still end: the body is whole once the last of them is in. */
    const arrived: Buffer[] = [];
    let asking = false;
    let ended = false;
    const pump = () => {
      while (!asking && !settled && arrived.length > 0) {
        const chunk = arrived[0] as Buffer;
        const taken = takeFrom(budget, chunk.length);
        if (taken === false) return finish('full');
        if (taken !== true) {
          asking = true;
          incoming.pause();
          void taken.then((ok) => {
            asking = false;
            if (settled) {
              if (ok) budget.give(chunk.length);
              return;
            }
            if (!ok) return finish('full');
            arrived.shift();
            keep(chunk);
            incoming.resume();
            pump();
          });
          return;
        }
        arrived.shift();
        keep(chunk);
      }
      if (ended && !asking && arrived.length === 0) finish(Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > options.maxBodyBytes) return finish('large');
      arrived.push(chunk);
      pump();
    };
    const onEnd = () => {
      ended = true;
      pump();
    };
    // A stream closes after its end: only a close before it means the client went away.
    const onGone = () => ended || finish('gone');
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onGone);
    incoming.once('close', onGone);
    timer = setTimeout(check, due() - started);
  });
}

/** A body the HTTP parser has already received whole (a small request arrives in one packet, parsed before the token
 * lookup above resolved), taken at once: no timer, listeners or promise to read what is already in memory. */
function bodyAlreadyHere(incoming: IncomingMessage, options: FrontDoorOptions): Read | undefined {
  if (!incoming.complete || incoming.readableFlowing !== null || incoming.readableLength === 0) return undefined;
  if (incoming.readableLength > options.maxBodyBytes) return 'large';
  const body = incoming.read() as Buffer | null;
  return body instanceof Buffer ? body : undefined;
}

const hasBody = (incoming: IncomingMessage) =>
  incoming.method !== 'GET' &&
  incoming.method !== 'HEAD' &&
  (incoming.headers['transfer-encoding'] !== undefined || Number(incoming.headers['content-length'] ?? 0) > 0);

/** A refusal written by the front door: tRPC's error shape on /trpc, `{ error }` elsewhere. Its log lines are written
 * first. Whatever of the body is still coming is read and dropped. `close` closes the connection after the answer (a
 * trickle, a caller turned away unread); without it the rest of the body is drained first (within the request timeout),
 * so a client still sending a body too large reads its 413 rather than a connection reset under its last bytes. */
function refuse(log: Logger, incoming: IncomingMessage, outgoing: ServerResponse, answer: Answer, close = true) {
  flushLines(log);
  const body = JSON.stringify(errorBodyFor(incoming.url ?? '', answer));
  incoming.resume();
  if (outgoing.headersSent || outgoing.writableEnded) return;
  outgoing.writeHead(answer.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(close ? { connection: 'close' } : {}),
    ...answerHeaders(answer),
  });
  outgoing.end(body);
}

export function frontDoor(options: FrontDoorOptions, listener: (incoming: IncomingMessage, outgoing: ServerResponse) => unknown) {
  const { log } = options;
  let turnedAway = 0;
  const budget = options.pools?.bytes ?? localPool(options.maxBufferedBytes);
  const unauthenticatedBodies = options.pools?.unauthenticatedBodies ?? localPool(options.maxUnauthenticatedBodies);
  const tell = setInterval(() => {
    if (turnedAway === 0) return;
    log.warn({ shed: turnedAway }, `requests not yet authenticated: answered ${turnedAway} requests 503 in the last interval`);
    turnedAway = 0;
  }, 1_000);
  tell.unref();

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse) {
    const address = options.clientAddress(incoming.socket.remoteAddress, incoming.headers['x-forwarded-for']);
    const token = bearerToken(incoming.headers.authorization);
    const authenticated = token ? await options.verify(address, token).catch(() => false) : false;
    facts.set(incoming, { address, authenticated });
    const declared = Number(incoming.headers['content-length'] ?? 0);
    // Health checks and bodiless requests go straight on; a body declared too large is refused by the app from its header.
    if (!hasBody(incoming) || declared > options.maxBodyBytes) return listener(incoming, outgoing);
    if (!authenticated && !(await takeFrom(unauthenticatedBodies, 1))) {
      turnedAway += 1;
      return refuse(log, incoming, outgoing, transportRefusals.overloaded(UNAUTHENTICATED_BUSY_MESSAGE));
    }
    let body: Read;
    try {
      // Gone while its place was asked for (with workers): nothing to read.
      body = incoming.destroyed ? 'gone' : (bodyAlreadyHere(incoming, options) ?? (await readBody(incoming, options, budget)));
    } finally {
      if (!authenticated) unauthenticatedBodies.give(1);
    }
    if (body instanceof Buffer) {
      // @hono/node-server builds the web request's body from `rawBody` when it is there.
      (incoming as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
      return listener(incoming, outgoing);
    }
    const route = (incoming.url ?? '').split('?')[0]?.slice(0, 200);
    if (body === 'slow') {
      log.warn({ address, method: incoming.method, route, authenticated }, 'request body too slow: answered 408');
      return refuse(log, incoming, outgoing, transportRefusals.bodyTooSlow(options.minBytesPerSecond));
    }
    if (body === 'large') {
      log.warn({ address, method: incoming.method, route }, 'request body too large: answered 413');
      return refuse(log, incoming, outgoing, refusal(413, options.tooLargeMessage, 'INVALID_INPUT'), false);
    }
    if (body === 'full') {
      log.warn({ address, method: incoming.method, route }, 'request bodies past their memory budget: answered 503');
      return refuse(log, incoming, outgoing, transportRefusals.overloaded(OVERLOADED_MESSAGE), false);
    }
    // 'gone': the client closed the connection; there is no one to answer.
  }

  return {
    handle: (incoming: IncomingMessage, outgoing: ServerResponse) => {
      handle(incoming, outgoing).catch((error: unknown) => {
        // The boundary's answer: the store unavailable (looking the token up) is 503 with Retry-After; else a fault.
        const answer = answerFor(error);
        if (answer.status === 500) log.error({ err: error }, 'unexpected error');
        if (!outgoing.headersSent) refuse(log, incoming, outgoing, answer);
      });
    },
    stop: () => clearInterval(tell),
  };
}
