// The error boundary: every cause a request can fail with — a domain refusal (core's codes, the store unavailable
// among them), a contract's (zod), tRPC's own, Node's HTTP parser, the body limit, a batch refused, an unknown route, a
// fault — mapped to one answer { status, text, appCode } (with details and Retry-After), and that answer in each shape
// it is sent in: tRPC's error (on /trpc), a plain `{ error }` body, JSON-RPC's (MCP).
import { type DomainError, isDomainError } from '@agent-tasks/core';
import { type ErrorAnswer, type ErrorCode, type ErrorData, formatZodError, plainErrorBody, shown } from '@agent-tasks/schema';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ZodError } from 'zod';

type TRPCCode = TRPCError['code'];

/** The one table from domain error codes to tRPC's codes (and so to HTTP statuses, by tRPC's own table). */
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
  INVALID_IMPORT: 'BAD_REQUEST',
  INVALID_CHECKLIST: 'BAD_REQUEST',
  INVALID_REVISION: 'BAD_REQUEST',
  NO_CHANNEL: 'PRECONDITION_FAILED',
  STALE_STEP: 'CONFLICT',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
};

export const toTRPCError = (error: DomainError) => new TRPCError({ code: trpcCodeOf[error.code], message: error.message, cause: error });

/** One answer, with tRPC's name for its status (the `code` of tRPC's error data). */
export interface Answer extends ErrorAnswer {
  trpcCode: TRPCCode;
}

/** Seconds a client should wait before retrying a call answered "busy", "does not answer" or "overloaded". */
export const RETRY_AFTER_SECONDS = 1;

/** Longest refusal text: values are quoted short (see `shown`); this bounds anything that still echoes input. */
export const MESSAGE_MAX = 2_000;
const bounded = (message: string) => (message.length > MESSAGE_MAX ? `${message.slice(0, MESSAGE_MAX)}…` : message);

const statusOf = (code: TRPCCode) => getHTTPStatusCodeFromError(new TRPCError({ code }));

/** tRPC's code for a status the transport answers itself (before or outside tRPC). */
const trpcCodeOfStatus: Record<number, TRPCCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  431: 'BAD_REQUEST',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** A refusal the transport makes itself: its status, text and code (a 503 tells when to retry). */
export function refusal(status: number, text: string, appCode: ErrorCode | null, retryAfter: number | null = null): Answer {
  return { status, text, appCode, details: null, retryAfter, trpcCode: trpcCodeOfStatus[status] ?? 'INTERNAL_SERVER_ERROR' };
}

/** A domain refusal: its code's status, its exact text and details; a wait it names (or an unavailable store's) as Retry-After. */
function domainAnswer(error: DomainError): Answer {
  const trpcCode = trpcCodeOf[error.code];
  const seconds = error.details?.retryAfterSeconds;
  const retryAfter = typeof seconds === 'number' ? seconds : error.code === 'UNAVAILABLE' ? RETRY_AFTER_SECONDS : null;
  return {
    status: statusOf(trpcCode),
    text: bounded(error.message),
    appCode: error.code,
    details: error.details ?? null,
    retryAfter,
    trpcCode,
  };
}

/** The answer to a fault: only the request's id, which the log has the stack under. */
export const internalAnswer = (requestId: string | undefined) =>
  refusal(500, `Error: internal server error (request ${requestId ?? 'unknown'}).`, null);

/** The code tRPC's own refusals carry: what they are about (a route, the request's form, the rate, the server). */
const ownCodeOf: Partial<Record<TRPCCode, ErrorCode>> = {
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_SUPPORTED: 'INVALID_INPUT',
  PARSE_ERROR: 'INVALID_INPUT',
  PAYLOAD_TOO_LARGE: 'INVALID_INPUT',
  BAD_REQUEST: 'INVALID_INPUT',
  UNSUPPORTED_MEDIA_TYPE: 'INVALID_INPUT',
  TIMEOUT: 'INVALID_INPUT',
  TOO_MANY_REQUESTS: 'RATE_LIMITED',
  SERVICE_UNAVAILABLE: 'UNAVAILABLE',
};

/**
 * tRPC's own refusals (unknown procedure, wrong method, unreadable body) keep a short `Error:` text; anything
 * else that is not ours is answered with its code only, so no library or runtime message leaks out.
 */
function publicMessage(code: TRPCCode, message: string): string {
  if (
    code === 'NOT_FOUND' ||
    code === 'METHOD_NOT_SUPPORTED' ||
    code === 'PARSE_ERROR' ||
    code === 'PAYLOAD_TOO_LARGE' ||
    code === 'BAD_REQUEST'
  ) {
    const text = message.split('\n')[0]?.slice(0, 200) ?? '';
    return text.startsWith('Error:') ? text : `Error: ${text.charAt(0).toLowerCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
  }
  return `Error: ${code.toLowerCase().replaceAll('_', ' ')}.`;
}

function trpcAnswer(error: TRPCError, at: { requestId?: string; path?: string }): Answer {
  if (error.code === 'INTERNAL_SERVER_ERROR') return internalAnswer(at.requestId);
  const text =
    error.code === 'NOT_FOUND' && at.path !== undefined && error.message.startsWith('No procedure found on path')
      ? `Error: no procedure found on path ${shown(at.path)}.`
      : publicMessage(error.code, error.message);
  const appCode = ownCodeOf[error.code] ?? null;
  return {
    status: statusOf(error.code),
    text,
    appCode,
    details: null,
    retryAfter: appCode === 'UNAVAILABLE' ? RETRY_AFTER_SECONDS : null,
    trpcCode: error.code,
  };
}

/**
 * The answer for whatever a request failed with: a domain refusal (also wrapped in a TRPCError), a contract's refusal
 * of the input (`input` is what was sent, for the text), tRPC's own refusal, or — anything else — a fault.
 */
export function answerFor(error: unknown, at: { requestId?: string; input?: unknown; path?: string } = {}): Answer {
  const cause = error instanceof TRPCError && error.cause !== undefined ? error.cause : error;
  if (isDomainError(cause)) return domainAnswer(cause);
  // A contract refuses the input (tRPC answers it 400); an output that fails its contract is a fault.
  if (cause instanceof ZodError && !(error instanceof TRPCError && error.code === 'INTERNAL_SERVER_ERROR'))
    return refusal(400, bounded(formatZodError(cause, { input: at.input })), 'INVALID_INPUT');
  if (error instanceof TRPCError) return trpcAnswer(error, at);
  return internalAnswer(at.requestId);
}

/** Refusals of the transport itself, each with its one text. */
export const transportRefusals = {
  bodyTooLarge: (limit: string) => refusal(413, `Error: the request body is larger than ${limit}.`, 'INVALID_INPUT'),
  bodyTooSlow: (minBytesPerSecond: number) =>
    refusal(
      408,
      `Error: the request body arrived too slowly (under ${minBytesPerSecond} bytes per second); send it again.`,
      'INVALID_INPUT',
    ),
  batchTooLarge: (max: number, calls: number) =>
    refusal(400, `Error: a batch may hold at most ${max} calls (this one has ${calls}); send fewer calls per request.`, 'INVALID_INPUT'),
  /** A batch whose input names calls it does not have (the text from `strayBatchKeyProblem`). */
  batchInput: (text: string) => refusal(400, text, 'INVALID_INPUT'),
  noRoute: (method: string, path: string) => refusal(404, `Error: not found: ${method} ${path.slice(0, 200)}.`, 'NOT_FOUND'),
  shuttingDown: () => refusal(503, 'Error: the server is shutting down; retry shortly.', 'UNAVAILABLE', RETRY_AFTER_SECONDS),
  overloaded: (text: string) => refusal(503, text, 'UNAVAILABLE', RETRY_AFTER_SECONDS),
};

/** What Node's HTTP parser refuses (by its error code), before any route sees the request. */
export function httpParserAnswer(code: string | undefined): Answer {
  if (code === 'HPE_HEADER_OVERFLOW')
    return refusal(
      431,
      'Error: the request line and headers are larger than 16 KiB; send a shorter URL (a large input goes in a POST body).',
      'INVALID_INPUT',
    );
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return refusal(408, 'Error: the request did not arrive in time; send it again.', 'INVALID_INPUT');
  return refusal(400, 'Error: the request is not valid HTTP.', 'INVALID_INPUT');
}

/** The texts of what @hono/node-server refuses while it builds the web request (by its RequestError messages). */
const requestErrorTexts: Record<string, string> = {
  'Backslash in request path': 'Error: the request path contains a backslash (`\\`); paths use forward slashes only.',
  'Missing host header': 'Error: the request has no Host header.',
  'Invalid host header': 'Error: the Host header is not a valid host name.',
  'Invalid URL': 'Error: the request URL is not valid.',
  'Invalid absolute URL': 'Error: the request URL is not valid.',
};

/** A request @hono/node-server could not turn into a web request (its RequestError's message). */
export const requestErrorAnswer = (message: string) =>
  refusal(400, requestErrorTexts[message] ?? 'Error: the request is not valid HTTP.', 'INVALID_INPUT');

/** tRPC's error data for an answer (the schema's ErrorData). */
export const errorDataOf = (answer: Answer, path?: string): ErrorData => ({
  code: answer.trpcCode,
  httpStatus: answer.status,
  ...(path === undefined ? {} : { path }),
  appCode: answer.appCode,
  details: answer.details,
});

/** The answer in tRPC's error shape, for refusals made on /trpc before tRPC runs (clients read them like any other). */
export const trpcErrorBody = (answer: Answer) => ({
  error: { message: answer.text, code: answer.status >= 500 ? -32603 : -32600, data: errorDataOf(answer) },
});

/** The answer's body for a request to `pathname`: tRPC's shape under /trpc/, the plain `{ error }` elsewhere. */
export const errorBodyFor = (pathname: string, answer: Answer) =>
  pathname.startsWith('/trpc/') ? trpcErrorBody(answer) : plainErrorBody(answer.text);

/** The answer as a JSON-RPC error outside any MCP session: `code` is JSON-RPC's (MCP's) own; the data names the rest. */
export const jsonRpcErrorBody = (answer: Answer, code: number) => ({
  jsonrpc: '2.0' as const,
  error: { code, message: answer.text, data: { httpStatus: answer.status, appCode: answer.appCode, details: answer.details } },
  id: null,
});

/** The headers an answer carries: Retry-After when it tells when to try again. */
export const answerHeaders = (answer: Answer): Record<string, string> =>
  answer.retryAfter === null ? {} : { 'retry-after': String(answer.retryAfter) };
