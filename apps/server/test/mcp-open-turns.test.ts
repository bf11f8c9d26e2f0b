// Unit tests of the line MCP opens wait in before they take a connection (repositories/prisma-mcp-session-repository.ts).
import { StoreUnavailable } from '@agent-tasks/core';
import { describe, expect, it } from 'vitest';
import { McpOpenAbandoned, turns } from '../src/repositories/prisma-mcp-session-repository.ts';

/** A piece of work that runs until `finish()` is called, recording when it started. */
function held(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    work: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
      return name;
    },
    finish: () => finish(),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** With b out of the line: only a runs until it finishes, then c; b never starts. */
async function onlyFirstAndThirdRun(log: string[], [a, c]: ReturnType<typeof held>[], answers: Promise<string>[]) {
  await tick();
  expect(log).toEqual(['start a']);
  a!.finish();
  c!.finish();
  expect(await Promise.all(answers)).toEqual(['a', 'c']);
  expect(log).not.toContain('start b');
}

describe('turns', () => {
  it('runs one at a time, in the order they came', async () => {
    const inTurn = turns(10_000);
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => held(log, name));
    const answers = [inTurn(a!.work), inTurn(b!.work), inTurn(c!.work)];
    await tick();
    expect(log).toEqual(['start a']);
    a!.finish();
    await tick();
    expect(log).toEqual(['start a', 'end a', 'start b']);
    b!.finish();
    c!.finish();
    expect(await Promise.all(answers)).toEqual(['a', 'b', 'c']);
  });

  it('a caller still waiting past the longest wait is refused busy and never runs; the line goes on after it', async () => {
    const inTurn = turns(50);
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => held(log, name));
    const first = inTurn(a!.work);
    const late = inTurn(b!.work).catch((error: unknown) => error);
    const refused = await late;
    expect(refused).toBeInstanceOf(StoreUnavailable);
    expect((refused as StoreUnavailable).reason).toBe('busy');
    // The one after it still waits for the first (a refusal does not let two run at once).
    const third = inTurn(c!.work);
    await onlyFirstAndThirdRun(log, [a!, c!], [first, third]);
  });

  it('a caller whose signal aborts while it waits leaves the line and never runs', async () => {
    const inTurn = turns(10_000);
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => held(log, name));
    const gone = new AbortController();
    const first = inTurn(a!.work);
    const abandoned = inTurn(b!.work, gone.signal).catch((error: unknown) => error);
    const third = inTurn(c!.work);
    gone.abort();
    expect(await abandoned).toBeInstanceOf(McpOpenAbandoned);
    await onlyFirstAndThirdRun(log, [a!, c!], [first, third]);
    // Already aborted when it comes: refused at once.
    await expect(inTurn(b!.work, gone.signal)).rejects.toBeInstanceOf(McpOpenAbandoned);
  });

  it('a failing piece of work passes its error on and hands the turn to the next', async () => {
    const inTurn = turns(10_000);
    await expect(inTurn(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await inTurn(() => Promise.resolve('next'))).toBe('next');
  });
});
