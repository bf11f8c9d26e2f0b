// Messages over a stream socket as JSON lines (JSON.stringify never writes a raw newline): the writes of one turn of
// the event loop leave in one system call (corked until the next tick); what is read is decoded as UTF-8 across chunks,
// each chunk searched once (a long line is joined once, when its end arrives), and a line past the limit closes the
// connection rather than grow without bound.
import type { Socket } from 'node:net';

export interface JsonLines<Out> {
  send(message: Out): void;
}

export interface JsonLinesOptions<Out = unknown> {
  /** Each line that parsed as JSON (and the line itself): its shape is the receiver's to check. */
  onMessage(message: unknown, line: string): void;
  /** A message's line (without its newline): JSON.stringify's text unless given. */
  lineOf?: (message: Out) => string;
  /** A line read as its message: JSON.parse unless given (it throws on a line that is not JSON). */
  parseLine?: (line: string) => unknown;
  /** A line that is not JSON, one the receiver threw on, or one past `maxLineChars` (the connection is then closed). */
  onBadLine(line: string, problem: string): void;
  maxLineChars: number;
}

/** Sends and receives messages on `socket`. */
export function jsonLines<Out>(socket: Socket, options: JsonLinesOptions<Out>): JsonLines<Out> {
  /** The start of a line whose end has not arrived yet, in pieces. */
  let pieces: string[] = [];
  let pendingChars = 0;
  const tooLong = (start: string) => {
    pieces = [];
    pendingChars = 0;
    options.onBadLine(start.slice(0, 200), `a line past ${options.maxLineChars} characters`);
    socket.destroy();
  };
  const take = (line: string) => {
    if (line.length > options.maxLineChars) return tooLong(line);
    let message: unknown;
    try {
      message = options.parseLine ? options.parseLine(line) : JSON.parse(line);
    } catch {
      return options.onBadLine(line.slice(0, 200), 'not JSON');
    }
    try {
      options.onMessage(message, line);
    } catch (error) {
      options.onBadLine(line.slice(0, 200), error instanceof Error ? error.message : String(error));
    }
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end >= 0 && !socket.destroyed; end = chunk.indexOf('\n', start)) {
      const tail = chunk.slice(start, end);
      start = end + 1;
      if (pieces.length === 0) take(tail);
      else {
        pieces.push(tail);
        const line = pieces.join('');
        pieces = [];
        pendingChars = 0;
        take(line);
      }
    }
    if (start >= chunk.length || socket.destroyed) return;
    const rest = chunk.slice(start);
    pieces.push(rest);
    pendingChars += rest.length;
    if (pendingChars > options.maxLineChars) tooLong(pieces[0] ?? '');
  });
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  return {
    send(message) {
      if (socket.destroyed) return;
      if (!corked) {
        corked = true;
        socket.cork();
        process.nextTick(uncork);
      }
      socket.write(`${options.lineOf ? options.lineOf(message) : JSON.stringify(message)}\n`);
    },
  };
}
