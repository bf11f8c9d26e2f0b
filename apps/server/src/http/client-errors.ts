// Answers requests refused before any route sees them — by Node's HTTP parser (headers too large, too slow, not HTTP) or
// by @hono/node-server while it builds the web request (a backslash in the path, a bad Host header) — with the error
// boundary's `Error:` text in the plain `{ error }` body like every other answer, instead of empty bodies, and logs
// each with the reason; then closes the socket.
import type { EventEmitter } from 'node:events';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { plainErrorBody } from '@agent-tasks/schema';
import { RequestError } from '@hono/node-server';
import { type Answer, httpParserAnswer, internalAnswer, requestErrorAnswer as requestErrorAnswerFor } from '../error-map.ts';
import { type Logger, flushLines } from '../logger.ts';

/** What the server writes to a socket whose request could not be parsed. */
function clientErrorResponse(answer: Answer): string {
  const body = JSON.stringify(plainErrorBody(answer.text));
  const reason = STATUS_CODES[answer.status] ?? 'Bad Request';
  return `HTTP/1.1 ${answer.status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

export function answerClientErrors(server: EventEmitter, log: Logger) {
  server.on(
    'clientError',
    (error: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean }; remoteAddress?: string }) => {
      // A client that hung up (ECONNRESET) or a socket already answered has no one left to tell.
      if (socket.writable && !socket._httpMessage?.headersSent) {
        const answer = httpParserAnswer(error.code);
        log.warn(
          { status: answer.status, reason: error.code ?? error.message, address: socket.remoteAddress },
          `request refused by the HTTP parser: answered ${answer.status}`,
        );
        // The line is written before the answer, as for every other request.
        flushLines(log);
        socket.write(clientErrorResponse(answer));
      }
      socket.destroy(error);
    },
  );
}

/** The answer to a request @hono/node-server could not turn into a web request: 400 with an `Error:` text, logged. */
export function requestErrorAnswer(log: Logger) {
  return (error: unknown): Response => {
    if (!(error instanceof RequestError)) {
      log.error({ err: error }, 'unexpected error');
      flushLines(log);
      return Response.json(plainErrorBody(internalAnswer(undefined).text), { status: 500 });
    }
    const answer = requestErrorAnswerFor(error.message);
    log.warn({ status: answer.status, reason: error.message }, 'request refused before routing: answered 400');
    flushLines(log);
    return Response.json(plainErrorBody(answer.text), { status: answer.status, headers: { connection: 'close' } });
  };
}
