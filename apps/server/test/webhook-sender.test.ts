// Unit tests of the webhook sender's address checks with a stand-in DNS resolver: a name is resolved once and the
// connection goes to the address that was checked (a second, different DNS answer cannot redirect it), every address of
// a name must pass, and the allow-list admits internal receivers. The receiver is a real node:http server on 127.0.0.1.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal, parseAllowList, resolveReceiver } from '../src/adapters/receiver-address.ts';
import { fetchWebhookSender } from '../src/adapters/webhook-sender.ts';

let server: http.Server;
let port = 0;
const hosts: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const limits = { connectTimeoutMs: 1_000, timeoutMs: 2_000, maxResponseBytes: 1_024 };

describe('addresses', () => {
  it('public unicast passes; internal ranges, mapped and compatible forms do not; the allow-list admits ranges', () => {
    const none = parseAllowList([]);
    expect(addressRefusal('1.1.1.1', none)).toBeNull();
    expect(addressRefusal('2606:4700:4700::1111', none)).toBeNull();
    expect(addressRefusal('127.0.0.1', none)).toEqual({ address: '127.0.0.1', what: 'a loopback address' });
    expect(addressRefusal('::ffff:10.1.2.3', none)).toEqual({ address: '10.1.2.3', what: 'a private address' });
    expect(addressRefusal('::1', none)).toEqual({ address: '::1', what: 'a loopback address' });
    expect(addressRefusal('::a01:203', none)).toEqual({ address: '::a01:203', what: 'a reserved address' });
    expect(addressRefusal('2002:7f00:1::', none)).toEqual({ address: '2002:7f00:1::', what: 'a reserved address' });
    const allow = parseAllowList(['10.1.0.0/16', '::1']);
    expect(addressRefusal('10.1.2.3', allow)).toBeNull();
    expect(addressRefusal('::ffff:10.1.2.3', allow)).toBeNull();
    expect(addressRefusal('10.2.0.1', allow)).toEqual({ address: '10.2.0.1', what: 'a private address' });
    expect(addressRefusal('::1', allow)).toBeNull();
  });

  it('a name is refused when any of its addresses is internal, and when it does not resolve', async () => {
    const allow = parseAllowList([]);
    const twoFaced = async () => [
      { address: '1.1.1.1', family: 4 as const },
      { address: '10.0.0.7', family: 4 as const },
    ];
    expect(await resolveReceiver('https://hooks.example.test/x', allow, twoFaced)).toEqual({
      ok: false,
      error: 'must point to a public address: hooks.example.test resolves to 10.0.0.7, a private address',
    });
    const missing = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    expect(await resolveReceiver('https://gone.example.test/x', allow, missing)).toEqual({
      ok: false,
      error: 'host gone.example.test could not be resolved (host name not found)',
    });
  });

  it('a long name is named by a short prefix only, resolving or not', async () => {
    const allow = parseAllowList([]);
    const long = `${'a'.repeat(1_900)}.example.test`;
    const missing = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    expect(await resolveReceiver(`https://${long}/x`, allow, missing)).toEqual({
      ok: false,
      error: `host ${'a'.repeat(40)}… could not be resolved (host name not found)`,
    });
    const internal = async () => [{ address: '10.0.0.7', family: 4 as const }];
    expect(await resolveReceiver(`https://${long}/x`, allow, internal)).toEqual({
      ok: false,
      error: `must point to a public address: ${'a'.repeat(40)}… resolves to 10.0.0.7, a private address`,
    });
  });
});

describe('the sender', () => {
  it('connects to the address it checked (no second lookup of its own), with the name kept in the Host header', async () => {
    // Only ever 127.0.0.1: nothing in these tests may connect anywhere else.
    let lookups = 0;
    const resolver = async () => (lookups++, [{ address: '127.0.0.1', family: 4 as const }]);
    const sender = fetchWebhookSender({ ...limits, allow: parseAllowList(['127.0.0.1']) }, resolver);
    expect(await sender.check(`http://receiver.test:${port}/hook`)).toBeNull();
    expect(await sender.send(`http://receiver.test:${port}/hook`, { hello: 1 }, 'k1')).toEqual({ ok: true });
    expect(hosts.at(-1)).toBe(`receiver.test:${port}`);
    // Once for the check, once for the send, whose connection used that answer (the system resolver, which does not
    // know receiver.test, was never asked).
    expect(lookups).toBe(2);
  });

  it('a name that now resolves to an internal address is not sent to, whatever it resolved to before', async () => {
    // The public answer is only checked, never connected to; the send's answer is refused before any connection.
    const answers = ['1.1.1.1', '127.0.0.1'];
    let lookups = 0;
    const resolver = async () => [{ address: answers[Math.min(lookups++, answers.length - 1)] as string, family: 4 as const }];
    const sender = fetchWebhookSender({ ...limits, allow: parseAllowList([]) }, resolver);
    const before = hosts.length;
    expect(await sender.check(`http://rebinding.test:${port}/hook`)).toBeNull();
    expect(await sender.send(`http://rebinding.test:${port}/hook`, {}, 'k2')).toEqual({
      ok: false,
      error: 'not sent: the URL must point to a public address: rebinding.test resolves to 127.0.0.1, a loopback address',
    });
    expect(hosts.length).toBe(before);
  });

  it('a receiver that does not answer, and a name that does not resolve, are cut at the timeout and reported as timed out', async () => {
    const hang = http.createServer(() => undefined);
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const short = { ...limits, timeoutMs: 300, allow: parseAllowList(['127.0.0.1']) };
    let t0 = Date.now();
    expect(await fetchWebhookSender(short).send(`http://127.0.0.1:${(hang.address() as AddressInfo).port}/`, {}, 'k4')).toEqual({
      ok: false,
      error: 'no answer within 0.3 s',
      timedOut: true,
    });
    expect(Date.now() - t0).toBeLessThan(2_000);
    hang.closeAllConnections();
    await new Promise<void>((resolve) => hang.close(() => resolve()));
    // A resolver that never answers: the attempt ends at its timeout all the same.
    const never = () => new Promise<never>(() => undefined);
    t0 = Date.now();
    expect(await fetchWebhookSender(short, never).send('http://slow-dns.test/hook', {}, 'k5')).toEqual({
      ok: false,
      error: 'no answer within 0.3 s (the name did not resolve)',
      timedOut: true,
    });
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it('a shutdown ends a send in progress', async () => {
    const hang = http.createServer(() => undefined);
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const sender = fetchWebhookSender({ ...limits, allow: parseAllowList(['127.0.0.1']) });
    const stop = new AbortController();
    const sending = sender.send(`http://127.0.0.1:${(hang.address() as AddressInfo).port}/`, {}, 'k3', { signal: stop.signal });
    setTimeout(() => stop.abort(), 100);
    const t0 = Date.now();
    expect(await sending).toEqual({ ok: false, error: 'not sent: the server was shutting down' });
    expect(Date.now() - t0).toBeLessThan(1_000);
    hang.closeAllConnections();
    await new Promise<void>((resolve) => hang.close(() => resolve()));
  });

  it('a stall of the sending process past its timeout does not fail an answer that arrived meanwhile', async () => {
    const receiver = await threadReceiver();
    try {
      const timeoutMs = 2_000;
      const sender = fetchWebhookSender({ ...limits, timeoutMs, allow: parseAllowList(['127.0.0.1']) });
      const t0 = Date.now();
      const sending = sender.send(receiver.url, {}, 'k6');
      while (Atomics.load(receiver.flags, REQUEST_IN) === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      // The request is in within the timeout (else the attempt has failed fairly, and this test says nothing).
      expect(Date.now() - t0).toBeLessThan(timeoutMs);
      // Now this thread stalls, as a busy machine or a long GC would stall it; the receiver answers only once the stall
      // has begun, and the stall lasts past the timeout. It ends in the loop's check phase, so the timers come next,
      // before the poll for I/O: when it wakes, the timeout is due and the answer is waiting on the socket.
      expect(await stallPast(receiver.flags, ANSWERED, t0 + timeoutMs + 300)).not.toBe('timed-out');
      expect(await sending).toEqual({ ok: true });
    } finally {
      await receiver.close();
    }
  });

  it('a stall of the sending process past its connect timeout does not fail a connection made meanwhile', async () => {
    const receiver = await threadReceiver();
    try {
      const connectTimeoutMs = 200;
      const sender = fetchWebhookSender({ ...limits, connectTimeoutMs, timeoutMs: 5_000, allow: parseAllowList(['127.0.0.1']) });
      const t0 = Date.now();
      const sending = sender.send(receiver.url, {}, 'k7');
      // The connection is under way (its timer set) before this turn's check phase, where the stall begins: the kernel
      // completes it while this thread is stalled past the connect timeout.
      expect(await stallPast(receiver.flags, CONNECTED, t0 + connectTimeoutMs + 300)).not.toBe('timed-out');
      expect(await sending).toEqual({ ok: true });
    } finally {
      await receiver.close();
    }
  });
});

// flags of the thread receiver: the connection is accepted, the request is in, this thread is stalling, the answer is
// written.
const CONNECTED = 0;
const REQUEST_IN = 1;
const STALLING = 2;
const ANSWERED = 3;

const wake = (flags: Int32Array, index: number) => {
  Atomics.store(flags, index, 1);
  Atomics.notify(flags, index);
};

/** Holds this thread (no event loop turns) until `until` (a Date.now() time). */
const pauseUntil = (until: number) => {
  const idle = new Int32Array(new SharedArrayBuffer(4));
  while (Date.now() < until) Atomics.wait(idle, 0, 0, 10);
};

/**
 * Stalls this thread in the loop's check phase: tells the receiver it is stalling, waits (blocked) for the receiver's
 * `event`, then stays blocked until `until`. Gives how the wait for the event ended ('timed-out' if it never came).
 */
const stallPast = (flags: Int32Array, event: number, until: number) =>
  new Promise<string>((resolve) =>
    setImmediate(() => {
      wake(flags, STALLING);
      const seen = Atomics.wait(flags, event, 0, 30_000);
      pauseUntil(until);
      resolve(seen);
    }),
  );

/**
 * A receiver on a thread of its own, so it accepts and answers while this thread is stalled. It answers a request only
 * once this thread says it is stalling.
 */
async function threadReceiver() {
  const flags = new Int32Array(new SharedArrayBuffer(16));
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
    const http = require('node:http');
    const flags = new Int32Array(workerData);
    const wake = (i) => { Atomics.store(flags, i, 1); Atomics.notify(flags, i); };
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        wake(${REQUEST_IN});
        Atomics.wait(flags, ${STALLING}, 0, 30000);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}', () => wake(${ANSWERED}));
      });
    });
    server.on('connection', () => wake(${CONNECTED}));
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
    { eval: true, workerData: flags.buffer },
  );
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  return { url: `http://127.0.0.1:${port}/`, flags, close: () => worker.terminate() };
}
