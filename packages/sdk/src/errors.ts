// Reads a refusal: its exact text, its stable code and details, from whatever a call threw.
import type { ErrorCode } from '@agent-tasks/schema';
import { TRPCClientError } from '@trpc/client';

export interface Refusal {
  message: string;
  code: ErrorCode | null;
  httpStatus: number | null;
  details: Record<string, unknown> | null;
}

export function refusalOf(error: unknown): Refusal {
  if (error instanceof TRPCClientError && error.shape !== undefined) {
    const data = (error.data ?? {}) as { appCode?: ErrorCode | null; httpStatus?: number; details?: Record<string, unknown> | null };
    return { message: error.message, code: data.appCode ?? null, httpStatus: data.httpStatus ?? null, details: data.details ?? null };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: `Error: could not reach agent-tasks: ${message}`, code: null, httpStatus: null, details: null };
}
