// Reads a refusal: its exact text, its stable code and details, from whatever a call threw (the data's shape is the
// schema's one definition, ErrorData). From the schema's errors module alone: a hook process loads no contract.
import { type ErrorCode, readErrorData } from '@agent-tasks/schema/errors';
import { TRPCClientError } from '@trpc/client';

export interface Refusal {
  message: string;
  code: ErrorCode | null;
  httpStatus: number | null;
  details: Record<string, unknown> | null;
}

export function refusalOf(error: unknown): Refusal {
  if (error instanceof TRPCClientError && error.shape !== undefined) {
    const { appCode, httpStatus, details } = readErrorData(error.data);
    return { message: error.message, code: appCode, httpStatus, details };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: `Error: could not reach agent-tasks: ${message}`, code: null, httpStatus: null, details: null };
}
