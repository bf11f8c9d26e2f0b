// Serves the built dashboard (apps/web/dist): hashed assets cached for good, any other page route answered index.html.
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { AppEnv } from './http-app.ts';
import { wantsHtml, webIndex } from './web-page.ts';

const notBuilt =
  '<!doctype html><title>agent-tasks</title><p>The dashboard has not been built. Run <code>pnpm install</code> (it builds <code>apps/web</code>), then restart the server.</p>';

export function dashboard(webRoot: string) {
  const app = new Hono<AppEnv>();
  const index = webIndex(webRoot);
  if (!index) {
    app.get('*', (c) => (wantsHtml(c) || c.req.path === '/' ? c.html(notBuilt, 503) : c.notFound()));
    return app;
  }
  app.use('/assets/*', async (c, next) => {
    await next();
    // File names under /assets carry their content hash: a changed file is a new name.
    if (c.res.status === 200) c.res.headers.set('cache-control', 'public, max-age=31536000, immutable');
  });
  app.use('/assets/*', serveStatic({ root: webRoot }));
  app.get('/', index);
  app.get('/index.html', index);
  app.use('*', serveStatic({ root: webRoot, index: '' }));
  // Client-side routes (/sessions/…, /tasks/…, /admin): the page, for a browser; JSON clients get a 404.
  app.get('*', (c) => (wantsHtml(c) ? index(c) : c.notFound()));
  return app;
}
