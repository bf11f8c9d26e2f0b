// The one table from domain error codes to tRPC error codes, and the conversion of a refusal to a TRPCError.
import type { DomainError } from '@agent-tasks/core';
import type { ErrorCode } from '@agent-tasks/schema';
import { TRPCError } from '@trpc/server';

type TRPCCode = ConstructorParameters<typeof TRPCError>[0]['code'];

export const trpcCodeOf: Record<ErrorCode, TRPCCode> = {
  INVALID_INPUT: 'BAD_REQUEST',
  INVALID_TODOS: 'BAD_REQUEST',
  NO_OWNING_SESSION: 'PRECONDITION_FAILED',
  STALE_REVISION: 'CONFLICT',
  UNAUTHENTICATED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  INVALID_DEPENDENCY: 'BAD_REQUEST',
  TASK_BLOCKED: 'PRECONDITION_FAILED',
  STALE_VERSION: 'CONFLICT',
  CLAIM_REFUSED: 'CONFLICT',
  EVIDENCE_REQUIRED: 'PRECONDITION_FAILED',
  INVALID_IMPORT: 'BAD_REQUEST',
  INVALID_CHECKLIST: 'BAD_REQUEST',
  INVALID_REVISION: 'BAD_REQUEST',
  NO_CHANNEL: 'PRECONDITION_FAILED',
  STALE_STEP: 'CONFLICT',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
};

export const toTRPCError = (error: DomainError) => new TRPCError({ code: trpcCodeOf[error.code], message: error.message, cause: error });
