// Messages over a stream socket as JSON lines (JSON.stringify never writes a raw newline): the writes of one turn of
// the event loop leave in one system call (corked until the next tick); what is read is decoded as UTF-8 across chunks.
import type { Socket } from 'node:net';

export interface JsonLines<Out> {
  send(message: Out): void;
}

/** Sends and receives messages on `socket`; `onMessage` gets each one read, `onBadLine` a line that is not JSON. */
export function jsonLines<In, Out>(socket: Socket, onMessage: (message: In) => void, onBadLine: (line: string) => void): JsonLines<Out> {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let end = buffered.indexOf('\n');
    if (end < 0) return;
    let start = 0;
    while (end >= 0) {
      const line = buffered.slice(start, end);
      start = end + 1;
      let message: In;
      try {
        message = JSON.parse(line) as In;
      } catch {
        onBadLine(line);
        end = buffered.indexOf('\n', start);
        continue;
      }
      onMessage(message);
      end = buffered.indexOf('\n', start);
    }
    buffered = buffered.slice(start);
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
      socket.write(`${JSON.stringify(message)}\n`);
    },
  };
}
