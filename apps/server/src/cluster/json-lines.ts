// Messages over a stream socket as JSON lines (JSON.stringify never writes a raw newline): the writes of one turn of
// the event loop leave in one system call (corked until the next tick); what is read is split into lines as bytes (a
// newline byte is never part of a longer UTF-8 character), each chunk searched once (a long line is joined once, when
// its end arrives), and a line past the limit closes the connection rather than grow without bound.
import type { Socket } from 'node:net';

export interface JsonLines<Out> {
  send(message: Out): void;
}

export interface JsonLinesOptions<Out = unknown> {
  /** Each line that parsed as JSON: its shape is the receiver's to check. */
  onMessage(message: unknown): void;
  /** A message's line (without its newline): JSON.stringify's text unless given. */
  lineOf?: (message: Out) => string;
  /** A line's bytes (UTF-8, without its newline) read as its message: JSON.parse of its text unless given (it throws
   * on a line that is not JSON). The bytes are the receiver's to keep. */
  parseLine?: (line: Buffer) => unknown;
  /** A line that is not JSON, one the receiver threw on, or one past `maxLineBytes` (the connection is then closed). */
  onBadLine(line: string, problem: string): void;
  maxLineBytes: number;
}

const NEWLINE = 0x0a;
/** How much of a bad line is reported. */
const SHOWN = 200;
const shown = (line: Buffer) => line.toString('utf8', 0, Math.min(line.length, SHOWN * 4)).slice(0, SHOWN);

/** Sends and receives messages on `socket`. */
export function jsonLines<Out>(socket: Socket, options: JsonLinesOptions<Out>): JsonLines<Out> {
  /** The start of a line whose end has not arrived yet, in pieces. */
  let pieces: Buffer[] = [];
  let pendingBytes = 0;
  const tooLong = (start: Buffer) => {
    pieces = [];
    pendingBytes = 0;
    options.onBadLine(shown(start), `a line past ${options.maxLineBytes} bytes`);
    socket.destroy();
  };
  const take = (line: Buffer) => {
    if (line.length > options.maxLineBytes) return tooLong(line);
    let message: unknown;
    try {
      message = options.parseLine ? options.parseLine(line) : JSON.parse(line.toString());
    } catch {
      return options.onBadLine(shown(line), 'not JSON');
    }
    try {
      options.onMessage(message);
    } catch (error) {
      options.onBadLine(shown(line), error instanceof Error ? error.message : String(error));
    }
  };
  socket.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0 && !socket.destroyed; end = chunk.indexOf(NEWLINE, start)) {
      const tail = chunk.subarray(start, end);
      start = end + 1;
      if (pieces.length === 0) take(tail);
      else {
        pieces.push(tail);
        const line = Buffer.concat(pieces, pendingBytes + tail.length);
        pieces = [];
        pendingBytes = 0;
        take(line);
      }
    }
    if (start >= chunk.length || socket.destroyed) return;
    const rest = chunk.subarray(start);
    pieces.push(rest);
    pendingBytes += rest.length;
    if (pendingBytes > options.maxLineBytes) tooLong(pieces[0] ?? rest);
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
