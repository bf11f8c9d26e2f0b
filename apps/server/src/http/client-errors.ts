// Answers requests Node's HTTP parser refuses before any route sees them (headers too large, too slow, not HTTP) with an
// `Error:` text like every other answer, instead of Node's empty bodies; then closes the socket, as Node does.
import type { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';

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
function clientErrorResponse(code: string | undefined): string {
  const [status, reason, message] = (code && answers[code]) || badRequest;
  const body = JSON.stringify({ error: message });
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

export function answerClientErrors(server: EventEmitter) {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean } }) => {
    if (socket.writable && !socket._httpMessage?.headersSent) socket.write(clientErrorResponse(error.code));
    socket.destroy(error);
  });
}
