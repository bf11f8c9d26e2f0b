// Baseline server: bare node:http that reads and parses a JSON body and answers a fixed JSON body (no tRPC, no DB).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

/** The bare server's whole work: read and parse the JSON body, answer the fixed body. */
export const bareHandler =
  (responseBody: string): http.RequestListener =>
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end(responseBody);
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad json"}');
      }
    });
  };

export async function startBareServer(responseBody: string): Promise<BareServer> {
  const server = http.createServer(bareHandler(responseBody));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
