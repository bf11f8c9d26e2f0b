// The front door's body reading when its bytes are asked of the other workers (a pool whose units come later, as over
// IPC): the body reaches the app whole and in order, however its chunks and its end fall around the answers; and a pool
// that says no answers 503 with nothing read on.
import type { IncomingMessage } from 'node:http';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { frontDoor } from '../src/http/front-door.ts';
import { type LimitPool, localPool } from '../src/http/shared-limits.ts';
import { createLogger } from '../src/logger.ts';

/** A pool with nothing here: every take is asked of "the others", answered after `delayMs` (yes while under `limit`). */
function remotePool(limit: number, delayMs: number): LimitPool & { asked: number } {
  let held = 0;
  const pool = {
    asked: 0,
    take: () => false,
    takeShared(amount: number) {
      pool.asked += 1;
      return new Promise<boolean>((resolve) =>
        setTimeout(() => {
          const ok = held + amount <= limit;
          if (ok) held += amount;
          resolve(ok);
        }, delayMs),
      );
    },
    give(amount: number) {
      held -= amount;
    },
  };
  return pool;
}

let server: http.Server | undefined;
afterEach(() => server?.close());

async function serve(bytes: LimitPool) {
  const bodies: Buffer[] = [];
  const door = frontDoor(
    {
      clientAddress: () => '127.0.0.1',
      verify: () => Promise.resolve(true),
      maxBodyBytes: 16 * 1024 * 1024,
      tooLargeMessage: 'Error: too large.',
      minBytesPerSecond: 1_024,
      graceMs: 10_000,
      maxUnauthenticatedBodies: 4,
      maxBufferedBytes: 64 * 1024 * 1024,
      pools: { bytes, unauthenticatedBodies: localPool(4) },
      log: createLogger({ level: 'silent', format: 'json' }),
    },
    (incoming: IncomingMessage, outgoing) => {
      bodies.push((incoming as IncomingMessage & { rawBody: Buffer }).rawBody);
      outgoing.end('ok');
    },
  );
  server = http.createServer(door.handle);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, bodies };
}

/** Sends `body` in pieces of `piece` bytes, a few milliseconds apart; the answer's status and text. */
function send(port: number, body: Buffer, piece: number) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/trpc/todos.write',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    let at = 0;
    const next = () => {
      if (at >= body.length) return void req.end();
      req.write(body.subarray(at, at + piece));
      at += piece;
      setTimeout(next, 2);
    };
    next();
  });
}

describe('a body whose bytes are asked of the other workers', () => {
  it('reaches the app whole and in order, its end coming while the last chunk waits for its answer', async () => {
    const pool = remotePool(64 * 1024 * 1024, 15);
    const { port, bodies } = await serve(pool);
    const body = Buffer.from(Array.from({ length: 400_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''));
    for (const piece of [100_000, 7_000, body.length]) {
      const answer = await send(port, body, piece);
      expect(answer).toEqual({ status: 200, text: 'ok' });
      expect(bodies.pop()?.equals(body)).toBe(true);
    }
    expect(pool.asked).toBeGreaterThan(3);
  });

  it('past the budget is answered 503, and the app sees nothing', async () => {
    const { port, bodies } = await serve(remotePool(100_000, 5));
    const answer = await send(port, Buffer.alloc(300_000, 'a'), 50_000);
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text).error.message).toBe('Error: the server is overloaded; retry shortly.');
    expect(bodies).toEqual([]);
  });
});
