// The dashboard's single page: whether a request wants HTML, and the built index.html answered for client-side routes.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'hono';

/** A browser navigation (`Accept: text/html`), as opposed to an API client asking for JSON. */
export const wantsHtml = (c: Context) => (c.req.header('accept') ?? '').includes('text/html');

const pageHeaders = {
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/**
 * The built dashboard's index.html under `webRoot` (answered with `status`: 404 for a page that says what is missing),
 * or null when the dashboard has not been built.
 */
export function webIndex(webRoot: string, status: 200 | 404 = 200): ((c: Context) => Response) | null {
  const file = path.join(webRoot, 'index.html');
  if (!existsSync(file)) return null;
  const html = readFileSync(file, 'utf8');
  return (c) => c.html(html, status, pageHeaders);
}
