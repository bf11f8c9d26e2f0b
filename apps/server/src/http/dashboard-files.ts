// Serves the built dashboard (apps/web/dist): its files under /assets/, and index.html to a browser on any page path.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';

const distDir = path.resolve(import.meta.dirname, '../../../web/dist');
const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** Whether a request asks for a page (a browser navigating), not data. */
export const wantsHtml = (req: IncomingMessage) => req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');

/** index.html for a client-side route; a note when the dashboard was not built. */
export async function serveIndex(res: ServerResponse) {
  try {
    const html = await readFile(path.join(distDir, 'index.html'));
    res.writeHead(200, { 'content-type': types['.html'], 'cache-control': 'no-cache' }).end(html);
  } catch {
    res
      .writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
      .end('The dashboard is not built: run `pnpm install` (or `pnpm --filter @agent-tasks/web run build`).');
  }
}

/** A built asset (hashed names, cached for good), or false when there is none at that path. */
export async function serveAsset(pathname: string, res: ServerResponse): Promise<boolean> {
  const file = path.resolve(distDir, `.${decodeURIComponent(pathname)}`);
  if (!file.startsWith(`${distDir}${path.sep}`) || file.endsWith('index.html')) return false;
  try {
    const body = await readFile(file);
    const immutable = pathname.startsWith('/assets/');
    res
      .writeHead(200, {
        'content-type': types[path.extname(file)] ?? 'application/octet-stream',
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        'x-content-type-options': 'nosniff',
      })
      .end(body);
    return true;
  } catch {
    return false;
  }
}
