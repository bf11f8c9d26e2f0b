// Sends a notification as a JSON POST with its idempotency key, to a public address only (checked after DNS resolution,
// the connection pinned to the checked address), with connect and total timeouts, no redirects, and the answer read up
// to a small cap. Any non-2xx answer or network error is a failure.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { SendResult, StopSignal, ChannelSender } from '@agent-tasks/core';
import { type AllowList, type Resolved, type Resolver, resolveReceiver, systemResolver } from './receiver-address.ts';

export interface WebhookLimits {
  /** Longest wait for the TCP (and TLS) connection. */
  connectTimeoutMs: number;
  /** Longest time for the whole exchange: connect, send, status and the (capped) answer. */
  timeoutMs: number;
  /** Bytes of the answer read at most; the connection is closed past them. */
  maxResponseBytes: number;
  /** Internal receivers allowed besides public addresses. */
  allow: AllowList;
}

/** A lookup that answers the address already checked, so a second DNS answer cannot redirect the connection. */
const pinned =
  (address: Resolved): LookupFunction =>
  (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: Resolved[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };

export function fetchWebhookSender(limits: WebhookLimits, resolve: Resolver = systemResolver): ChannelSender {
  async function check(url: string) {
    const target = await resolveReceiver(url, limits.allow, resolve);
    return target.ok ? null : target.error;
  }

  async function send(
    url: string,
    body: unknown,
    idempotencyKey: string,
    options: { timeoutMs?: number; signal?: StopSignal } = {},
  ): Promise<SendResult> {
    const timeoutMs = Math.min(options.timeoutMs ?? limits.timeoutMs, limits.timeoutMs);
    const startedAt = Date.now();
    // The whole attempt fits in its timeout, the name's resolution included: a resolver that hangs is cut too.
    let resolving: ReturnType<typeof setTimeout> | undefined;
    const target = await Promise.race([
      resolveReceiver(url, limits.allow, resolve),
      new Promise<null>(
        (settle) =>
          (resolving = setTimeout(
            afterPendingIo(() => settle(null)),
            timeoutMs,
          )),
      ),
    ]).finally(() => clearTimeout(resolving));
    if (target === null) return { ok: false, error: `no answer within ${seconds(timeoutMs)} (the name did not resolve)`, timedOut: true };
    if (!target.ok) return { ok: false as const, error: `not sent: the URL ${target.error}` };
    if (options.signal?.aborted) return { ok: false as const, error: SHUTDOWN };
    const payload = Buffer.from(JSON.stringify(body));
    const left = Math.max(1, timeoutMs - (Date.now() - startedAt));
    return new Promise<SendResult>((settle) => {
      let done = false;
      const finish = (result: SendResult) => {
        if (done) return;
        done = true;
        options.signal?.removeEventListener('abort', onAbort);
        clearTimeout(total);
        clearTimeout(connect);
        request.destroy();
        settle(result);
      };
      const fail = (error: string, timedOut = false) => finish(timedOut ? { ok: false, error, timedOut } : { ok: false, error });
      const onAbort = () => fail(SHUTDOWN);
      const { url: u } = target;
      const request = (u.protocol === 'https:' ? https : http).request({
        protocol: u.protocol,
        host: target.host,
        port: u.port || undefined,
        path: `${u.pathname}${u.search}`,
        method: 'POST',
        agent: false,
        lookup: pinned(target.address),
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          'idempotency-key': idempotencyKey,
          'user-agent': 'agent-tasks',
          connection: 'close',
        },
      });
      const total = setTimeout(
        afterPendingIo(() => fail(`no answer within ${seconds(timeoutMs)}`, true)),
        left,
      );
      // Set once connected: a connect timeout whose verdict waited a turn is void if the connection came in that turn.
      let connected = false;
      const onConnected = () => {
        connected = true;
        clearTimeout(connect);
      };
      const connect = setTimeout(
        afterPendingIo(() => connected || fail(`no connection within ${seconds(limits.connectTimeoutMs)}`, true)),
        Math.min(limits.connectTimeoutMs, left),
      );
      options.signal?.addEventListener('abort', onAbort, { once: true });
      request.on('socket', (socket) => socket.once(u.protocol === 'https:' ? 'secureConnect' : 'connect', onConnected));
      request.on('error', (error) => fail(failureText(error)));
      request.on('response', (response) => {
        onConnected();
        const status = response.statusCode ?? 0;
        const verdict =
          status >= 200 && status < 300
            ? ({ ok: true } as const)
            : {
                ok: false as const,
                error: status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
              };
        // The answer's body is read only up to the cap; past it the connection is closed.
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > limits.maxResponseBytes) finish(verdict);
        });
        response.on('end', () => finish(verdict));
        response.on('error', () => finish(verdict));
        response.on('close', () => finish(verdict));
      });
      request.end(payload);
    });
  }

  return { check, send };
}

/**
 * A timeout's verdict, given one turn of the event loop. After a stall of this process (a busy machine, a long GC) the
 * timers run before the I/O that arrived meanwhile; waiting for the check phase lets a connection or an answer that is
 * already here be read first, so the receiver is not blamed for the sender's own stall. (A cleared timer whose
 * callback already ran cannot be cancelled: the verdict checks what it judges, or finds the attempt finished.)
 */
const afterPendingIo = (verdict: () => void) => () => void setImmediate(verdict);

const SHUTDOWN = 'not sent: the server was shutting down';

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** Why a delivery failed, in words an admin can act on. */
function failureText(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the receiver',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
    EPIPE: 'connection closed by the receiver',
  };
  if (typeof code === 'string') {
    if (code.startsWith('HPE_')) return 'the answer is not valid HTTP';
    if (code.startsWith('ERR_TLS') || code.includes('CERT')) return `TLS error (${code})`;
    return reasons[code] ?? `network error (${code})`;
  }
  return 'network error';
}
