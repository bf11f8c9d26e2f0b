// Stable machine codes carried in every refusal's error data, shared by server, SDK and UIs.
export const errorCodes = [
  'INVALID_INPUT',
  'INVALID_TODOS',
  'NO_OWNING_SESSION',
  'STALE_REVISION',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'INVALID_DEPENDENCY',
  'TASK_BLOCKED',
  'STALE_VERSION',
  'CLAIM_REFUSED',
  'INVALID_IMPORT',
  'INVALID_CHECKLIST',
  'INVALID_REVISION',
  'NO_CHANNEL',
  'STALE_STEP',
  // Not a refusal: the server could not take the call now (database busy, overloaded); retry after Retry-After.
  'UNAVAILABLE',
  'RATE_LIMITED',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/**
 * One refusal, however it is sent (tRPC, plain HTTP, JSON-RPC): its HTTP status, its exact `Error: …` text, its stable
 * code (null only for a fault of the server's own), its details, and the seconds a client waits before trying again.
 */
export interface ErrorAnswer {
  status: number;
  text: string;
  appCode: ErrorCode | null;
  details: Record<string, unknown> | null;
  retryAfter: number | null;
}

/**
 * The data a refusal carries: tRPC's `error.data` (`code` is tRPC's name for the status, `path` the procedure) and,
 * without those two, JSON-RPC's (MCP) `error.data`. Never a stack or a file path.
 */
export interface ErrorData {
  code?: string;
  httpStatus: number;
  path?: string;
  appCode: ErrorCode | null;
  details: Record<string, unknown> | null;
}

/** A refusal's body outside tRPC and JSON-RPC (health, run links, the dashboard's files, the HTTP parser): `{ error }`. */
export const plainErrorBody = (text: string) => ({ error: text });

const isErrorCode = (value: unknown): value is ErrorCode => (errorCodes as readonly unknown[]).includes(value);

/** Reads the data of a refusal as a client received it (tRPC's or JSON-RPC's `error.data`); what is missing reads null. */
export function readErrorData(data: unknown): {
  appCode: ErrorCode | null;
  httpStatus: number | null;
  details: Record<string, unknown> | null;
} {
  const d = (data !== null && typeof data === 'object' ? data : {}) as Partial<Record<keyof ErrorData, unknown>>;
  return {
    appCode: isErrorCode(d.appCode) ? d.appCode : null,
    httpStatus: typeof d.httpStatus === 'number' ? d.httpStatus : null,
    details: d.details !== null && typeof d.details === 'object' ? (d.details as Record<string, unknown>) : null,
  };
}
