// The store adapter's edge: a driver's "busy" and "does not answer" errors leave it as the port-level StoreUnavailable
// (core), so nothing above the repositories (the transport, the error boundary) reads a database error.
import { StoreUnavailable } from '@agent-tasks/core';
import { isDatabaseBusy, isDatabaseUnreachable } from '../db/busy.ts';

/** The port-level error for a driver's error: StoreUnavailable for busy or unreachable, else the error as it is. */
export function storeErrorOf(error: unknown): unknown {
  if (error instanceof StoreUnavailable) return error;
  if (isDatabaseBusy(error)) return new StoreUnavailable('busy', error);
  if (isDatabaseUnreachable(error)) return new StoreUnavailable('unreachable', error);
  return error;
}

const rethrow = (error: unknown): never => {
  throw storeErrorOf(error);
};

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';

/** The same adapter (an object of methods), each method's driver errors turned into port-level ones. */
export function withStoreErrors<T extends object>(adapter: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(adapter)) {
    if (typeof value !== 'function') {
      out[name] = value;
      continue;
    }
    const method = value as (...args: unknown[]) => unknown;
    out[name] = (...args: unknown[]) => {
      try {
        const result = method.apply(adapter, args);
        // A Prisma promise is a thenable of its own, run when awaited: awaited here, its errors are caught too.
        return isThenable(result) ? Promise.resolve(result).catch(rethrow) : result;
      } catch (error) {
        return rethrow(error);
      }
    };
  }
  return out as T;
}
