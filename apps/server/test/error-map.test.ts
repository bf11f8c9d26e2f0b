// Unit tests of the error boundary's table (error-map.ts): every domain code answers with tRPC's status for its code,
// the store unavailable and a named wait carry Retry-After, a contract refuses with INVALID_INPUT, and whatever is not
// a refusal — an output that fails its contract among them — is a fault naming only the request id.
import { DomainError, StoreUnavailable } from '@agent-tasks/core';
import { errorCodes } from '@agent-tasks/schema';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerFor, errorBodyFor, jsonRpcErrorBody, toTRPCError, transportRefusals } from '../src/error-map.ts';

describe('answerFor', () => {
  it.each(errorCodes)('a %s refusal: its code, its text and the status tRPC gives its code', (code) => {
    const error = new DomainError(code, `Error: ${code}.`);
    const answer = answerFor(error);
    expect(answer).toMatchObject({ text: `Error: ${code}.`, appCode: code, status: getHTTPStatusCodeFromError(toTRPCError(error)) });
    expect(answerFor(toTRPCError(error))).toEqual(answer);
  });

  it('Retry-After: 1 s for the store unavailable, the seconds a refusal names, none otherwise', () => {
    expect(answerFor(new StoreUnavailable('unreachable'))).toMatchObject({ status: 503, appCode: 'UNAVAILABLE', retryAfter: 1 });
    expect(answerFor(new DomainError('RATE_LIMITED', 'Error: slow down.', { retryAfterSeconds: 7 })).retryAfter).toBe(7);
    expect(answerFor(new DomainError('NOT_FOUND', 'Error: no.')).retryAfter).toBeNull();
  });

  it("a contract's refusal of the input is INVALID_INPUT; an output failing its contract, or any other error, is a fault", () => {
    const zod = z.object({ a: z.string() }).safeParse({ a: 1 }).error;
    expect(answerFor(new TRPCError({ code: 'BAD_REQUEST', cause: zod }), { input: { a: 1 } })).toMatchObject({
      status: 400,
      appCode: 'INVALID_INPUT',
    });
    const fault = { status: 500, appCode: null, text: 'Error: internal server error (request r1).' };
    expect(answerFor(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: zod }), { requestId: 'r1' })).toMatchObject(fault);
    expect(answerFor(new Error('boom'), { requestId: 'r1' })).toMatchObject(fault);
  });

  it('renders one answer as tRPC, plain and JSON-RPC bodies', () => {
    const answer = transportRefusals.bodyTooLarge('16 MiB');
    const text = 'Error: the request body is larger than 16 MiB.';
    expect(errorBodyFor('/trpc/todos.write', answer)).toEqual({
      error: { message: text, code: -32600, data: { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413, appCode: 'INVALID_INPUT', details: null } },
    });
    expect(errorBodyFor('/runs/x', answer)).toEqual({ error: text });
    expect(jsonRpcErrorBody(answer, -32600)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: text, data: { httpStatus: 413, appCode: 'INVALID_INPUT', details: null } },
      id: null,
    });
  });
});
