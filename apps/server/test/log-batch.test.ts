// The log's batch for a file descriptor: access lines of one turn of the event loop in one write after it, every other
// line at once and after them, and the promise an answer waits on before it is sent.
import { describe, expect, it } from 'vitest';
import { LogBatch } from '../src/log-batch.ts';

const turn = () => new Promise((resolve) => setImmediate(resolve));

function sink() {
  const writes: string[] = [];
  return { writes, out: { write: (text: string) => void writes.push(text) } };
}

describe('LogBatch', () => {
  it('writes the access lines of one turn together, in order, once the turn has polled', async () => {
    const { writes, out } = sink();
    const batch = new LogBatch(out);
    batch.add('a\n');
    batch.add('b\n');
    batch.add('c\n');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['a\nb\nc\n']);
    batch.add('d\n');
    await turn();
    expect(writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('writes any other line at once, after the access lines gathered before it', () => {
    const { writes, out } = sink();
    const batch = new LogBatch(out);
    batch.write('alone\n');
    batch.add('access 1\n');
    batch.write('warning\n');
    expect(writes).toEqual(['alone\n', 'access 1\nwarning\n']);
    expect(batch.written()).toBeNull();
  });

  it('written() resolves once the lines given so far are out, and is null when none waits', async () => {
    const { writes, out } = sink();
    const batch = new LogBatch(out);
    expect(batch.written()).toBeNull();
    batch.add('x\n');
    const waiting = batch.written();
    expect(waiting).not.toBeNull();
    // One promise for every answer of the turn.
    expect(batch.written()).toBe(waiting);
    let done = false;
    void waiting?.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    await waiting;
    expect(writes).toEqual(['x\n']);
    expect(batch.written()).toBeNull();
  });

  it('flushSync writes what is gathered at once (before an answer written outside the pipeline, or at exit)', () => {
    const { writes, out } = sink();
    const batch = new LogBatch(out);
    batch.add('early\n');
    batch.flushSync();
    expect(writes).toEqual(['early\n']);
    batch.flushSync();
    expect(writes).toEqual(['early\n']);
  });
});
