// Answers requests refused before any route sees them — by Node's HTTP parser (headers too large, too slow, not HTTP) or
// by @hono/node-server while it builds the web request (a backslash in the path, a bad Host header) — with an `Error:`
// text like every other answer, instead of empty bodies, and logs each with the reason; then closes the socket.
import type { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { RequestError } from '@hono/node-server';
import type { Logger } from '../logger.ts';

const answers: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    'Error: the request line and headers are larger than 16 KiB; send a shorter URL (a large input goes in a POST body).',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'Error: the request did not arrive in time; send it again.'],
};
const badRequest: [number, string, string] = [400, 'Bad Request', 'Error: the request is not valid HTTP.'];

/** What the server writes to a socket whose request could not be parsed. */
function clientErrorResponse(status: number, reason: string, message: string): string {
  const body = JSON.stringify({ error: message });
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

export function answerClientErrors(server: EventEmitter, log: Logger) {
  server.on(
    'clientError',
    (error: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean }; remoteAddress?: string }) => {
      // A client that hung up (ECONNRESET) or a socket already answered has no one left to tell.
      if (socket.writable && !socket._httpMessage?.headersSent) {
        const [status, reason, message] = (error.code && answers[error.code]) || badRequest;
        socket.write(clientErrorResponse(status, reason, message));
        log.warn(
          { status, reason: error.code ?? error.message, address: socket.remoteAddress },
          `request refused by the HTTP parser: answered ${status}`,
        );
      }
      socket.destroy(error);
    },
  );
}

/** The texts of what @hono/node-server refuses while it builds the web request (its RequestError messages). */
const requestErrorTexts: Record<string, string> = {
  'Backslash in request path': 'Error: the request path contains a backslash (`\\`); paths use forward slashes only.',
  'Missing host header': 'Error: the request has no Host header.',
  'Invalid host header': 'Error: the Host header is not a valid host name.',
  'Invalid URL': 'Error: the request URL is not valid.',
  'Invalid absolute URL': 'Error: the request URL is not valid.',
};

/** The answer to a request @hono/node-server could not turn into a web request: 400 with an `Error:` text, logged. */
export function requestErrorAnswer(log: Logger) {
  return (error: unknown): Response => {
    if (!(error instanceof RequestError)) {
      log.error({ err: error }, 'unexpected error');
      return Response.json({ error: 'Error: internal server error.' }, { status: 500 });
    }
    const message = requestErrorTexts[error.message] ?? 'Error: the request is not valid HTTP.';
    log.warn({ status: 400, reason: error.message }, 'request refused before routing: answered 400');
    return Response.json({ error: message }, { status: 400, headers: { connection: 'close' } });
  };
}
