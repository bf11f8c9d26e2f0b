// The domain's refusals: a stable code, the exact text a caller reads, and optional details.
import type { ErrorCode } from '@agent-tasks/schema';

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

export const STORE_BUSY_MESSAGE = 'Error: the database is busy (another process held its write lock too long); retry shortly.';
export const STORE_UNREACHABLE_MESSAGE = 'Error: the database does not answer; retry shortly.';

/**
 * The store could not take the call now — `busy` (a lock held past its timeout, a serialization failure, a deadlock) or
 * `unreachable` (the database does not answer) — a port-level error the store adapter throws for its driver's errors
 * (the driver's error is its `cause`); answered 503 with Retry-After, never a fault.
 */
export class StoreUnavailable extends DomainError {
  readonly reason: 'busy' | 'unreachable';

  constructor(reason: 'busy' | 'unreachable', cause?: unknown) {
    super('UNAVAILABLE', reason === 'busy' ? STORE_BUSY_MESSAGE : STORE_UNREACHABLE_MESSAGE);
    this.name = 'StoreUnavailable';
    this.reason = reason;
    if (cause !== undefined) this.cause = cause;
  }
}

export const isStoreUnavailable = (e: unknown): e is StoreUnavailable => e instanceof StoreUnavailable;
