// One kept-alive HTTP connection to the server, so a test knows which worker of `serve --workers N` answers it (the
// worker's pid is read from the access log line of a request id); tRPC calls and an SSE watch over it.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { RunningServer } from './server.ts';
import { guardMs } from './time-guard.ts';
import { waitFor } from './webhook-receiver.ts';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface PinnedConnection {
  /** The pid of the worker process holding this connection. */
  pid: number;
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; requestId?: string; headers?: Record<string, string> },
  ): Promise<Answer>;
  /** A tRPC query (GET) or mutation (POST); the data, or throws with the error's message. */
  query<T>(path: string, input: unknown, token: string): Promise<T>;
  mutate<T>(path: string, input: unknown, token: string): Promise<T>;
  /** Streams a tRPC subscription's events (SSE); the stream takes this connection over until stopped. */
  watch(path: string, input: unknown, token: string): LiveWatch;
  close(): void;
}

export interface LiveWatch {
  events: { id: string; data: unknown; at: number }[];
  /** Resolves once the stream answered (headers received). */
  opened: Promise<void>;
  /** When the server ended the stream (performance.now()), if it did. */
  endedAt: number | null;
  stop(): void;
}

/** The pid in the access log line of request `id` (every request logs one, with the process's pid). */
export function pidOfRequest(server: RunningServer, id: string): number | null {
  const line = server
    .output()
    .split('\n')
    .find((l) => l.includes(`"req":"${id}"`) && l.includes('"msg":"request"'));
  const pid = line?.match(/"pid":(\d+)/)?.[1];
  return pid ? Number(pid) : null;
}

/** Waits for the line (a worker's lines reach the test through the primary's output, late on a busy machine). */
const logged = (server: RunningServer, id: string): Promise<number> =>
  waitFor(`the access log line of request ${id}`, () => pidOfRequest(server, id), guardMs(2_000));

export async function pinnedConnection(server: RunningServer): Promise<PinnedConnection> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(server.url);
  const request: PinnedConnection['request'] = (method, path, options = {}) =>
    new Promise((resolve, reject) => {
      const body = options.body === undefined ? undefined : JSON.stringify(options.body);
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: {
            'x-request-id': options.requestId ?? randomUUID(),
            ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
            ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
            ...options.headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const requestId = randomUUID();
  await request('GET', '/healthz', { requestId });
  const pid = await logged(server, requestId);

  const unwrap = <T>(answer: Answer): T => {
    const json = JSON.parse(answer.body) as { result?: { data: T }; error?: { message: string } };
    if (json.error) throw new Error(json.error.message);
    return json.result?.data as T;
  };

  return {
    pid,
    request,
    query: async (path, input, token) =>
      unwrap(
        await request('GET', `/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, { token }),
      ),
    mutate: async (path, input, token) => unwrap(await request('POST', `/trpc/${path}`, { token, body: input })),
    watch(path, input, token) {
      // Over the agent's one kept-alive socket: the same worker answers the stream.
      const events: LiveWatch['events'] = [];
      let req: http.ClientRequest | undefined;
      let stopped = false;
      const opened = new Promise<void>((resolve, reject) => {
        req = http.request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            method: 'GET',
            path: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`,
            headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
          },
          (res) => {
            resolve();
            res.on('end', () => void (stopped || (watch.endedAt ??= performance.now())));
            let buffer = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              buffer += chunk;
              for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
                const block = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                const fields = Object.fromEntries(
                  block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
                );
                if (fields.event || fields.id === undefined || fields.data === undefined) continue;
                events.push({ id: fields.id, data: JSON.parse(fields.data), at: performance.now() });
              }
            });
          },
        );
        req.on('error', reject);
        req.end();
      });
      const watch: LiveWatch = {
        events,
        opened,
        endedAt: null,
        stop: () => {
          stopped = true;
          req?.destroy();
        },
      };
      return watch;
    },
    close: () => agent.destroy(),
  };
}

/** Pinned connections until there is one on each of `count` different workers (connections alternate between them). */
export async function connectionsOnWorkers(server: RunningServer, count: number): Promise<PinnedConnection[]> {
  const byPid = new Map<number, PinnedConnection>();
  const spare: PinnedConnection[] = [];
  for (let i = 0; i < count * 10 && byPid.size < count; i++) {
    const connection = await pinnedConnection(server);
    if (byPid.has(connection.pid)) spare.push(connection);
    else byPid.set(connection.pid, connection);
  }
  for (const connection of spare) connection.close();
  if (byPid.size < count) throw new Error(`connections reached only ${byPid.size} workers`);
  return [...byPid.values()];
}

/** Another kept-alive connection held by the worker with this pid (new connections go to the workers in turn). */
export async function connectionOn(server: RunningServer, pid: number): Promise<PinnedConnection> {
  for (let i = 0; i < 40; i++) {
    const connection = await pinnedConnection(server);
    if (connection.pid === pid) return connection;
    connection.close();
  }
  throw new Error(`no connection reached worker ${pid}`);
}
