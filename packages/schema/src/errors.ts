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
  'EVIDENCE_REQUIRED',
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
