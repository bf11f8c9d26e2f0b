// The client a hook process uses: tRPC's HTTP calls (one per procedure, no batching, no streams) over node:http with one
// kept-alive connection, so a process that lives for one hook loads neither fetch nor the full tRPC client.
import http from 'node:http';
import { TRPCClientError, type TRPCClient } from '@trpc/client';
import type { AppRouter } from './router-types.ts';

/** What a hook handler needs of a client: the procedures, called as the tRPC client calls them. */
export interface HookClient {
  url: string;
  trpc: TRPCClient<AppRouter>;
}

interface CallOptions {
  signal?: AbortSignal;
}

interface Transport {
  request: typeof http.request;
  agent: http.Agent;
}

/** One connection pool for the whole process: a hook's calls follow one another on the same socket. */
function pooled(request: typeof http.request, agent: http.Agent): Transport {
  // A socket waiting in the pool never keeps the process alive (a hook ends when its work is done).
  agent.on('free', (socket: { unref(): void }) => socket.unref());
  return { request, agent };
}

const plain = pooled(http.request, new http.Agent({ keepAlive: true }));
// node:https (TLS: ~8 ms of CPU to load, a tenth of a hook) is loaded only for an https:// server, where Node has it
// (20.16 and later) without starting the ES module loader.
let secure: Promise<Transport> | undefined;
const loadHttps = async () =>
  typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('node:https') : import('node:https');
const secureTransport = () => (secure ??= loadHttps().then((https) => pooled(https.request, new https.Agent({ keepAlive: true }))));

/** Closes the kept-alive connections (a hook process calls it when it is done; they never hold it up anyway). */
export function closeHookConnections() {
  plain.agent.destroy();
  void secure?.then(({ agent }) => agent.destroy());
}

/** One tRPC call over HTTP: a query as GET …?input=, a mutation as POST with the input as JSON; the answer's data. */
async function call(base: URL, token: string, path: string, kind: 'query' | 'mutation', input: unknown, options: CallOptions = {}) {
  const url = new URL(`${base.pathname.replace(/\/+$/, '')}/trpc/${path}`, base);
  const body = kind === 'mutation' && input !== undefined ? JSON.stringify(input) : undefined;
  if (kind === 'query' && input !== undefined) url.searchParams.set('input', JSON.stringify(input));
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const { request: send, agent } = url.protocol === 'https:' ? await secureTransport() : plain;
  return new Promise<unknown>((resolve, reject) => {
    const failed = (error: unknown) => reject(TRPCClientError.from(error instanceof Error ? error : new Error(String(error))));
    const request = send(url, { method: kind === 'query' ? 'GET' : 'POST', headers, agent, signal: options.signal }, (response) => {
      response.setEncoding('utf8');
      let text = '';
      response.on('data', (chunk: string) => (text += chunk));
      response.on('error', failed);
      response.on('end', () => {
        let answer: { result?: { data?: unknown }; error?: unknown };
        try {
          answer = JSON.parse(text) as typeof answer;
        } catch {
          failed(new Error(`the server answered ${response.statusCode} with no tRPC JSON`));
          return;
        }
        if (answer.error !== undefined) reject(TRPCClientError.from(answer));
        else if (answer.result && 'data' in answer.result) resolve(answer.result.data);
        else resolve(undefined);
      });
    });
    request.on('socket', (socket) => socket.ref());
    request.on('error', failed);
    request.end(body);
  });
}

/** A proxy standing for the router at `path`: `.a.b.mutate(input)` calls procedure `a.b`. */
function routerAt(base: URL, token: string, path: string[]): unknown {
  return new Proxy(() => undefined, {
    get(_target, key) {
      if (typeof key !== 'string') return undefined;
      if (key === 'query' || key === 'mutate')
        return (input?: unknown, options?: CallOptions) =>
          call(base, token, path.join('.'), key === 'query' ? 'query' : 'mutation', input, options);
      return routerAt(base, token, [...path, key]);
    },
  });
}

/** A client acting with `token` (an API key or a session token) against the server at `url`. */
export function createHookClient({ url, token }: { url: string; token: string }): HookClient {
  const base = new URL(url);
  return { url, trpc: routerAt(base, token, []) as TRPCClient<AppRouter> };
}
