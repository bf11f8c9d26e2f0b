// Unit tests of the JSON lines between a worker and the writer (cluster/json-lines.ts), on a real Unix socket: messages
// split across chunks (inside a multi-byte character too) or sharing one arrive whole and in order; a bad line, or one
// the receiver refuses, is reported and skipped; a line past the limit closes the connection; the messages of one turn
// leave together.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonLines } from '../src/cluster/json-lines.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A connected pair: `raw` writes bytes as given to the side read through jsonLines. */
async function pair() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'json-lines-'));
  dirs.push(dir);
  const address = path.join(dir, 's.sock');
  const accepted = new Promise<net.Socket>((resolve) => {
    const server = net.createServer((socket) => {
      server.close();
      resolve(socket);
    });
    server.listen(address);
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const raw = net.createConnection(address);
  await new Promise((resolve) => raw.once('connect', resolve));
  return { raw, read: await accepted };
}

describe('JSON lines between worker and writer', () => {
  it('messages cut anywhere, even inside a character, arrive whole and in order; a bad line is reported and skipped', async () => {
    const { raw, read } = await pair();
    const got: unknown[] = [];
    const bad: string[] = [];
    jsonLines(read, { onMessage: (m) => got.push(m), onBadLine: (line) => bad.push(line), maxLineChars: 1_000 });
    const bytes = Buffer.from(
      `${JSON.stringify({ text: 'né — 漢字 🙂' })}\n{nope\n${JSON.stringify({ n: 2 })}\n${JSON.stringify({ n: 3 })}\n`,
    );
    // One byte at a time: every cut, including those inside the multi-byte characters.
    for (const byte of bytes) {
      raw.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(got).toEqual([{ text: 'né — 漢字 🙂' }, { n: 2 }, { n: 3 }]);
    expect(bad).toEqual(['{nope']);
    raw.destroy();
  });

  it('the messages sent in one turn leave in one write, escaped and in order', async () => {
    const { raw, read } = await pair();
    let received = '';
    raw.setEncoding('utf8');
    raw.on('data', (chunk: string) => (received += chunk));
    // The socket's writes to the system, counted: one per chunk, or one for all that were corked together.
    const writes: number[] = [];
    const stream = read as unknown as { _write: (...a: unknown[]) => unknown; _writev: (...a: unknown[]) => unknown };
    const [write, writev] = [stream._write.bind(read), stream._writev.bind(read)];
    stream._write = (...a) => (writes.push(1), write(...a));
    stream._writev = (...a) => (writes.push((a[0] as unknown[]).length), writev(...a));
    const lines = jsonLines<{ n: number; text: string }>(read, {
      onMessage: () => undefined,
      onBadLine: () => undefined,
      maxLineChars: 1_000,
    });
    for (let n = 0; n < 50; n++) lines.send({ n, text: 'line\nbreak' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(writes).toEqual([50]);
    const messages = received
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { n: number; text: string });
    expect(messages.map((m) => m.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(messages.every((m) => m.text === 'line\nbreak')).toBe(true);
    raw.destroy();
  });

  it('a long line across many chunks arrives whole; a message the receiver refuses is reported and the next one arrives', async () => {
    const { raw, read } = await pair();
    const got: unknown[] = [];
    const bad: { line: string; problem: string }[] = [];
    jsonLines(read, {
      onMessage(message) {
        if ((message as { refuse?: boolean }).refuse) throw new Error('not a call');
        got.push(message);
      },
      onBadLine: (line, problem) => bad.push({ line, problem }),
      maxLineChars: 2_000_000,
    });
    const long = 'x'.repeat(1_000_000);
    const text = `${JSON.stringify({ refuse: true })}\n${JSON.stringify({ long })}\n${JSON.stringify({ n: 1 })}\n`;
    for (let i = 0; i < text.length; i += 10_000) raw.write(text.slice(i, i + 10_000));
    await waitUntil(() => got.length === 2);
    expect(got).toEqual([{ long }, { n: 1 }]);
    expect(bad).toEqual([{ line: '{"refuse":true}', problem: 'not a call' }]);
    raw.destroy();
  });

  it('a line past the limit is reported and closes the connection, without waiting for its end', async () => {
    const { raw, read } = await pair();
    const got: unknown[] = [];
    const bad: string[] = [];
    jsonLines(read, { onMessage: (m) => got.push(m), onBadLine: (_line, problem) => bad.push(problem), maxLineChars: 1_000 });
    const closed = new Promise((resolve) => raw.once('close', resolve));
    raw.write(`${JSON.stringify({ n: 1 })}\n`);
    for (let i = 0; i < 5; i++) raw.write('y'.repeat(400)); // 2,000 characters and no newline yet
    await closed;
    expect(got).toEqual([{ n: 1 }]);
    expect(bad).toEqual(['a line past 1000 characters']);
  });
});

/** Resolves once `done()` holds (a 5 s guard). */
async function waitUntil(done: () => boolean) {
  for (const started = Date.now(); !done(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() - started > 5_000) throw new Error('timed out');
  }
}
