// "Database busy": another process held SQLite's write lock past the busy timeout, or on PostgreSQL a lock past the
// lock timeout, a serialization failure, a deadlock, or no connection free in time to begin a transaction on; and
// "database unreachable": a PostgreSQL server that does not answer (down, restarting, refusing connections). The store
// adapter (repositories/store-errors.ts) turns both into core's StoreUnavailable, which the error boundary answers
// 503 + Retry-After.

interface DriverCause {
  kind?: unknown;
  originalCode?: unknown;
}

interface MaybeBusy extends DriverCause {
  code?: unknown;
  message?: unknown;
  meta?: { driverAdapterError?: { cause?: DriverCause } };
  cause?: unknown;
}

/** Prisma's P2028 for a transaction that never began: every connection stayed taken past its `maxWait`. */
const NO_CONNECTION = /Unable to start a transaction in the given time/;

/** PostgreSQL's serialization_failure, deadlock_detected and lock_not_available (lock_timeout reached). */
export const POSTGRES_BUSY = new Set(['40001', '40P01', '55P03']);

/**
 * Whether an error (a Prisma error, or one wrapping it) is "busy": our SQLite adapter's (Prisma P1008 / SQLITE_BUSY)
 * or one of PostgreSQL's codes above, as @prisma/adapter-pg hands them on (`originalCode`, or P2034 at commit),
 * whether Prisma wrapped the adapter's error or not.
 */
export function isDatabaseBusy(error: unknown): boolean {
  for (let e = error as MaybeBusy | undefined, depth = 0; e && typeof e === 'object' && depth < 5; e = e.cause as MaybeBusy, depth++) {
    // Wrapped by Prisma (`meta.driverAdapterError.cause`), or the adapter's own error thrown as is from a raw query
    // inside an interactive transaction (then the loop reaches its `cause`, which carries the code itself).
    const driver = e.meta?.driverAdapterError?.cause ?? e;
    if (e.code === 'P1008' || driver?.kind === 'SocketTimeout') return true;
    if (typeof driver?.originalCode === 'string' && driver.originalCode.startsWith('SQLITE_BUSY')) return true;
    if (typeof driver?.originalCode === 'string' && POSTGRES_BUSY.has(driver.originalCode)) return true;
    // A conflict found at COMMIT reaches the client as Prisma's "write conflict or deadlock" (P2034), without the code.
    if (e.code === 'P2034' || driver?.kind === 'TransactionWriteConflict') return true;
    // No connection came free to begin a transaction on within its wait (Prisma's P2028, this message).
    if (e.code === 'P2028' && typeof e.message === 'string' && NO_CONNECTION.test(e.message)) return true;
  }
  return false;
}

/** PostgreSQL's admin_shutdown, crash_shutdown and cannot_connect_now; class 08 (connection exception) by prefix. */
const POSTGRES_GONE = new Set(['57P01', '57P02', '57P03']);
/** Prisma's "can't reach database server" and "server has closed the connection". */
const PRISMA_GONE = new Set(['P1001', 'P1017']);
/** node-postgres's own errors for a connection that broke or never came up (they carry no code): its client's, and its
 * pool's for a connection that ended or timed out while it was being made. */
const PG_GONE = new Set([
  'Client has encountered a connection error and is not queryable',
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
]);
/** Node's socket errors for a server that refuses, resets, cannot be routed to or whose name does not resolve. */
const SOCKET_GONE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND']);

/** Whether an error (a Prisma error, or one wrapping it) says the PostgreSQL server cannot be reached or went away. */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (let e = error as MaybeBusy | undefined, depth = 0; e && typeof e === 'object' && depth < 5; e = e.cause as MaybeBusy, depth++) {
    const driver = e.meta?.driverAdapterError?.cause ?? e;
    if (typeof e.code === 'string' && (PRISMA_GONE.has(e.code) || SOCKET_GONE.has(e.code))) return true;
    if (driver?.kind === 'DatabaseNotReachable' || driver?.kind === 'ConnectionClosed') return true;
    const code = driver?.originalCode;
    if (typeof code === 'string' && (POSTGRES_GONE.has(code) || code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && PG_GONE.has(e.message)) return true;
  }
  return false;
}
