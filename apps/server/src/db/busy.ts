// A database held by another writer (another process, an outside tool): recognised in Prisma's errors, waited for up
// to the busy timeout by retrying the transaction, then answered 503 with Retry-After as a refusal, not a fault.
import { DomainError } from '@agent-tasks/core';

const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY']);

/** Whether an error (or anything in its cause chain) says SQLite's lock was held by someone else. */
export function isDatabaseBusy(error: unknown): boolean {
  const seen = new Set<unknown>();
  const stack: unknown[] = [error];
  while (stack.length > 0) {
    const e = stack.pop();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const o = e as { code?: unknown; originalCode?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
    if (typeof o.code === 'string' && BUSY_CODES.has(o.code)) return true;
    if (typeof o.originalCode === 'string' && BUSY_CODES.has(o.originalCode)) return true;
    if (typeof o.message === 'string' && /database is locked|database table is locked/.test(o.message)) return true;
    stack.push(o.cause, o.meta?.driverAdapterError);
  }
  return false;
}

/** How long a busy refusal asks the client to wait. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

export const databaseBusy = () =>
  new DomainError('BUSY', `Error: the database is busy (another writer holds it); try again in ${BUSY_RETRY_AFTER_SECONDS} s.`, {
    retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
  });

/** Runs `work` again while the database is busy, up to `timeoutMs`; then refuses with BUSY. */
export async function whileBusy<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseBusy(error)) throw error;
      if (Date.now() >= deadline) throw databaseBusy();
      const wait = Math.min(100, 5 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, Math.max(1, deadline - Date.now()))));
    }
  }
}
