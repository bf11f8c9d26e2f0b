// Run links, answered without a key (the unguessable run id is the capability): the run page or its JSON, and its card.
import { type Deps, runs } from '@agent-tasks/core';
import { type Context, Hono } from 'hono';
import { renderRunCard } from '../cards/run-card-svg.ts';
import type { AppEnv } from './http-app.ts';
import { wantsHtml, webIndex } from './web-page.ts';

const notFound = (c: Context) => c.json({ error: 'Error: run not found.' }, 404);

const cardHeaders = {
  'content-type': 'image/svg+xml; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
};

/**
 * `/runs/<id>`: the dashboard's run page to a browser (`Accept: text/html`), the run's view as JSON to API clients; a
 * run that does not exist or whose link was revoked: the dashboard's page saying so (404) to a browser, JSON to others;
 * `/runs/<id>/card.svg`: the run's card as an image that runs no script and loads nothing.
 */
export function runLinks(deps: Deps, webRoot: string) {
  const app = new Hono<AppEnv>();
  const page = webIndex(webRoot);
  const missingPage = webIndex(webRoot, 404);
  app.get('/:id{[A-Za-z0-9_-]+}/card.svg', async (c) => {
    const view = await runs.getByLink(deps, c.req.param('id'));
    return view ? c.body(renderRunCard(view), 200, cardHeaders) : notFound(c);
  });
  app.get('/:id{[A-Za-z0-9_-]+}', async (c) => {
    const view = await runs.getByLink(deps, c.req.param('id'));
    if (!view) return missingPage && wantsHtml(c) ? missingPage(c) : notFound(c);
    return page && wantsHtml(c) ? page(c) : c.json(view as object);
  });
  return app;
}
