// Presented answers (trpc.ts `presented`): passed on as they are in a server, parsed and held to their contract
// exactly in the test suite, so every black-box test checks the answers of the hot procedures it calls.
import { runView } from '@agent-tasks/schema';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

const contract = z.object({ id: z.string(), items: z.array(z.object({ content: z.string(), done: z.boolean() })) });
const exact = { id: 'a', items: [{ content: 'one', done: false }] };

async function presentedWith(verify: string) {
  vi.resetModules();
  vi.stubEnv('AGENT_TASKS_VERIFY_OUTPUTS', verify);
  const { presented } = await import('../src/trpc.ts');
  return presented;
}
afterEach(() => vi.unstubAllEnvs());

describe('a presented answer', () => {
  it('is verified in the test suite (vitest.config.ts sets AGENT_TASKS_VERIFY_OUTPUTS for every pass)', () => {
    expect(process.env.AGENT_TASKS_VERIFY_OUTPUTS).toBe('1');
  });

  it('verified: an exact answer passes; a field extra (nested too), missing or of the wrong type is refused', async () => {
    const check = (await presentedWith('1'))(contract);
    expect(check(exact)).toEqual(exact);
    expect(() => check({ ...exact, tokenHash: 'h:1' })).toThrow(/^an answer is not exactly its contract: \{"id":"a"/);
    expect(() => check({ ...exact, items: [{ content: 'one', done: false, secret: 1 }] })).toThrow(/not exactly its contract/);
    expect(() => check({ id: 'a' })).toThrow(z.ZodError);
    expect(() => check({ ...exact, id: 1 })).toThrow(z.ZodError);
  });

  it('in a server: the answer object itself, unparsed, with the contract it is typed by', async () => {
    const pass = (await presentedWith(''))(runView);
    const answer = { anything: true };
    expect(pass(answer)).toBe(answer);
    expect(pass.contract).toBe(runView);
  });
});
