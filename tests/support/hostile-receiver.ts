// Webhook receivers that misbehave, on 127.0.0.1: one that streams an endless answer, one that never answers, one that
// answers too late, one that redirects; each records its requests, how long their connections stayed open and how many
// answer bytes the server let it write.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  | { kind: 'huge'; bytes: number }
  | { kind: 'hang' }
  | { kind: 'late'; afterMs: number }
  | { kind: 'redirect'; location: string; status?: number }
  | { kind: 'ok' };

export interface HostileHit {
  at: number;
  /** When the server closed the connection (null while it is open). */
  closedAt: number | null;
  /** Answer bytes the receiver handed to the socket before the server closed it. */
  bytesWritten: number;
  body: unknown;
  headers: http.IncomingHttpHeaders;
}

export interface HostileReceiver {
  url: string;
  hits: HostileHit[];
  behaviour: Behaviour;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');

export async function startHostileReceiver(behaviour: Behaviour): Promise<HostileReceiver> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = null;
      }
      const hit: HostileHit = { at: Date.now(), closedAt: null, bytesWritten: 0, body, headers: req.headers };
      receiver.hits.push(hit);
      res.on('close', () => (hit.closedAt = Date.now()));
      const b = receiver.behaviour;
      if (b.kind === 'ok') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      else if (b.kind === 'redirect') res.writeHead(b.status ?? 307, { location: b.location }).end();
      else if (b.kind === 'late') setTimeout(() => res.writeHead(200).end('{"ok":true}'), b.afterMs).unref();
      else if (b.kind === 'huge') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(b.bytes) });
        // Writes as fast as the reader takes it, up to `bytes`: a server reading the whole answer would take it all.
        const pump = () => {
          while (hit.bytesWritten < b.bytes && !res.destroyed) {
            hit.bytesWritten += CHUNK.length;
            if (!res.write(CHUNK)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        pump();
      }
      // 'hang': never answers; the connection stays open until the server gives up on it.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: HostileReceiver = {
    url: `http://127.0.0.1:${port}/hook`,
    hits: [],
    behaviour,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
