// Unit tests of the "database busy" check (db/busy.ts) on the error shapes Prisma and its adapters produce, as seen in
// real runs: wrapped by Prisma, or the adapter's own error thrown as is from a raw query inside a transaction.
import { describe, expect, it } from 'vitest';
import { isDatabaseBusy } from '../src/db/busy.ts';

/** @prisma/adapter-pg's DriverAdapterError as a raw query in an interactive transaction throws it. */
function driverError(cause: { kind: string; originalCode?: string }) {
  const error = new Error(cause.kind) as Error & { cause: unknown };
  error.name = 'DriverAdapterError';
  error.cause = cause;
  return error;
}

/** The same cause wrapped by Prisma (a PrismaClientKnownRequestError's `meta`). */
const wrapped = (cause: { kind: string; originalCode?: string }, code = 'P2010') =>
  Object.assign(new Error('Raw query failed'), { code, meta: { driverAdapterError: { cause } } });

describe('isDatabaseBusy', () => {
  it.each(['40001', '40P01', '55P03'])('PostgreSQL %s is busy, wrapped by Prisma or thrown by the adapter as is', (code) => {
    expect(isDatabaseBusy(wrapped({ kind: 'postgres', originalCode: code }))).toBe(true);
    expect(isDatabaseBusy(driverError({ kind: 'postgres', originalCode: code }))).toBe(true);
  });

  it('a serialization failure the adapter names TransactionWriteConflict is busy, unwrapped too', () => {
    const cause = { kind: 'TransactionWriteConflict', originalCode: '40001' };
    expect(isDatabaseBusy(driverError(cause))).toBe(true);
    expect(isDatabaseBusy(Object.assign(new Error('Transaction failed'), { code: 'P2034' }))).toBe(true);
  });

  it("SQLite's busy, and a wait for the lock that timed out, are busy", () => {
    expect(isDatabaseBusy(wrapped({ kind: 'sqlite', originalCode: 'SQLITE_BUSY_SNAPSHOT' }))).toBe(true);
    expect(isDatabaseBusy(driverError({ kind: 'SocketTimeout' }))).toBe(true);
    expect(isDatabaseBusy(Object.assign(new Error('timed out'), { code: 'P1008' }))).toBe(true);
  });

  it('a transaction that could not begin because no connection came free in time (P2028) is busy; other P2028s are not', () => {
    const noConnection = 'Transaction API error: Unable to start a transaction in the given time.';
    expect(isDatabaseBusy(Object.assign(new Error(noConnection), { code: 'P2028' }))).toBe(true);
    expect(isDatabaseBusy(Object.assign(new Error('Transaction API error: Transaction not found.'), { code: 'P2028' }))).toBe(false);
  });

  it('other failures are not busy: a unique violation, a syntax error, a plain error, nothing', () => {
    expect(isDatabaseBusy(wrapped({ kind: 'UniqueConstraintViolation', originalCode: '23505' }, 'P2002'))).toBe(false);
    expect(isDatabaseBusy(driverError({ kind: 'postgres', originalCode: '42601' }))).toBe(false);
    expect(isDatabaseBusy(new Error('boom'))).toBe(false);
    expect(isDatabaseBusy(undefined)).toBe(false);
    expect(isDatabaseBusy('busy')).toBe(false);
  });
});
