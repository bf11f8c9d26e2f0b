// Unit tests of the store adapter's edge (repositories/store-errors.ts): a driver's busy and unreachable errors leave an
// adapter as core's StoreUnavailable (the driver's error its cause), whatever a method returns; other errors pass as
// they are.
import { StoreUnavailable } from '@agent-tasks/core';
import { describe, expect, it } from 'vitest';
import { isDatabaseBusy } from '../src/db/busy.ts';
import { storeErrorOf, withStoreErrors } from '../src/repositories/store-errors.ts';

const busy = () => Object.assign(new Error('timed out'), { code: 'P1008' });
const gone = () => Object.assign(new Error("Can't reach database server"), { code: 'P1001' });

describe('withStoreErrors', () => {
  const adapter = withStoreErrors({
    label: 'kept',
    async asyncBusy() {
      throw busy();
    },
    thenableGone: () => ({ then: (_: unknown, reject: (e: unknown) => void) => reject(gone()) }),
    syncBusy: (): number => {
      throw busy();
    },
    async other() {
      throw new Error('boom');
    },
    value: (n: number) => n + 1,
  });

  it('turns busy and unreachable into StoreUnavailable with its reason, text and the driver error as cause', async () => {
    const a = await adapter.asyncBusy().catch((e: unknown) => e);
    expect(a).toBeInstanceOf(StoreUnavailable);
    expect(a).toMatchObject({
      code: 'UNAVAILABLE',
      reason: 'busy',
      message: 'Error: the database is busy (another process held its write lock too long); retry shortly.',
    });
    expect(isDatabaseBusy(a)).toBe(true);
    const b = await Promise.resolve(adapter.thenableGone()).catch((e: unknown) => e);
    expect(b).toMatchObject({ reason: 'unreachable', message: 'Error: the database does not answer; retry shortly.' });
    expect(() => adapter.syncBusy()).toThrow(StoreUnavailable);
  });

  it('passes other errors, values and non-function fields as they are', async () => {
    await expect(adapter.other()).rejects.toThrow('boom');
    expect(adapter.value(1)).toBe(2);
    expect(adapter.label).toBe('kept');
    const already = new StoreUnavailable('busy');
    expect(storeErrorOf(already)).toBe(already);
  });
});
