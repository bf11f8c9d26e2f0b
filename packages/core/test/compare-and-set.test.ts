// Unit tests of the one compare-and-set retry loop: lost races are retried, up to a limit, other errors are not.
import { describe, expect, it } from 'vitest';
import { LostRace, MAX_ATTEMPTS, retryLostRaces } from '../src/compare-and-set.ts';
import { DomainError } from '../src/errors.ts';

describe('retryLostRaces', () => {
  it('runs the work again after a lost race and answers its first clean result', async () => {
    let calls = 0;
    const result = await retryLostRaces('Error: conflict.', async () => {
      calls++;
      if (calls < 3) throw new LostRace();
      return 'done';
    });
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it(`gives up after ${MAX_ATTEMPTS} lost races with a CONFLICT carrying the caller's text`, async () => {
    let calls = 0;
    const failure = retryLostRaces('Error: the thing kept changing; try again.', async () => {
      calls++;
      throw new LostRace();
    });
    await expect(failure).rejects.toBeInstanceOf(DomainError);
    await expect(failure).rejects.toMatchObject({ code: 'CONFLICT', message: 'Error: the thing kept changing; try again.' });
    expect(calls).toBe(MAX_ATTEMPTS);
  });

  it('passes any other error through at once, without trying again', async () => {
    let calls = 0;
    const refusal = new DomainError('FORBIDDEN', 'Error: forbidden.');
    await expect(
      retryLostRaces('Error: conflict.', async () => {
        calls++;
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(calls).toBe(1);
  });
});
