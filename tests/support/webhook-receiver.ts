// A real local webhook receiver (node:http on 127.0.0.1, random port) that records every POST it gets and answers
// with a chosen status; it can start down (its port closed) and come up later on the same port. Started with a chat
// `kind`, it stands in for Slack, Discord or Teams: a payload breaking that service's documented rules gets a 400.
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ChatKind, chatPayloadProblems } from './chat-payload-rules.ts';

export interface ReceivedHook {
  /** Date.now() when the request arrived. */
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  /** The body parsed as JSON (null when it is not JSON). */
  body: unknown;
  /** The status this receiver answered with. */
  status: number;
  /** For a chat receiver: the rules of its service this payload breaks (empty: the service would accept it). */
  problems: string[];
}

export interface WebhookReceiver {
  /** The webhook URL to register as a channel (valid even while the receiver is down). */
  url: string;
  port: number;
  /** Every request received, failed ones included, in arrival order. */
  received: ReceivedHook[];
  /** The requests answered with a 2xx status. */
  accepted(): ReceivedHook[];
  /**
   * Decides the status of each request (default: 200, or 400 for a chat payload with problems); `index` counts every
   * request received so far, from 0.
   */
  respond: (hook: Omit<ReceivedHook, 'status'>, index: number) => number;
  /** Starts listening on `port` (a no-op when already up). */
  up(): Promise<void>;
  /** Stops listening and drops open connections: the port then refuses connections. */
  down(): Promise<void>;
  isUp(): boolean;
}

/** A free port on 127.0.0.1, found by binding to port 0 and releasing it. */
export async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Starts a receiver; with `{ down: true }` its port stays closed until `up()`; with a `kind`, it checks chat payloads;
 * `answerAfterMs` makes it slow. */
export async function startReceiver(
  options: { down?: boolean; path?: string; kind?: ChatKind; answerAfterMs?: number } = {},
): Promise<WebhookReceiver> {
  const port = await freePort();
  let server: http.Server | null = null;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}${options.path ?? '/hook'}`,
    port,
    received: [],
    accepted: () => receiver.received.filter((h) => h.status >= 200 && h.status < 300),
    respond: (hook) => (hook.problems.length ? 400 : 200),
    async up() {
      if (server) return;
      const s = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(raw);
          } catch {
            body = null;
          }
          const problems = options.kind ? chatPayloadProblems(options.kind, body, raw) : [];
          const hook = { at: Date.now(), method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body, problems };
          const status = receiver.respond(hook, receiver.received.length);
          receiver.received.push({ ...hook, status });
          const answer = () =>
            res.writeHead(status, { 'content-type': 'application/json' }).end(status < 300 ? '{"ok":true}' : '{"error":"try later"}');
          if (options.answerAfterMs) setTimeout(answer, options.answerAfterMs);
          else answer();
        });
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => {
          s.off('error', reject);
          resolve();
        });
      });
      server = s;
    },
    async down() {
      const s = server;
      if (!s) return;
      server = null;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    isUp: () => server !== null,
  };
  if (!options.down) await receiver.up();
  return receiver;
}

/** Polls `probe` until it returns a truthy value (returned), failing with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
