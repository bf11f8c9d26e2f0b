// The shared pause for long sliced work: one waiting slice resumes per event-loop turn, in order, however many wait.
import { describe, expect, it } from 'vitest';
import { fairPause } from '../src/adapters/fair-pause.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('fairPause', () => {
  it('resumes one waiter per turn of the event loop, first come first served', async () => {
    const pause = fairPause();
    const resumed: string[] = [];
    const waits = ['a', 'b', 'c'].map((name) => pause().then(() => resumed.push(name)));
    const seen: string[][] = [];
    for (let i = 0; i < 4; i++) {
      await turn();
      seen.push([...resumed]);
    }
    await Promise.all(waits);
    expect(seen.slice(0, 3)).toEqual([['a'], ['a', 'b'], ['a', 'b', 'c']]);
    expect(resumed).toEqual(['a', 'b', 'c']);
  });

  it('a lone caller resumes at the next turn', async () => {
    const pause = fairPause();
    let done = false;
    const waiting = pause().then(() => (done = true));
    expect(done).toBe(false);
    await turn();
    await waiting;
    expect(done).toBe(true);
  });
});
