// Run links, answered without a key (the unguessable run id is the capability): the run's page and its card.
import type { ServerResponse } from 'node:http';
import { type Deps, runCardByLink, runs } from '@agent-tasks/core';

const notFound = (res: ServerResponse) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"run not found"}');

/** `/runs/<id>` (the run's view as JSON until the dashboard exists) and `/runs/<id>/card.svg`. */
export function serveRunLink(deps: Deps, path: string, res: ServerResponse) {
  const page = path.match(/^\/runs\/([A-Za-z0-9_-]+)\/?$/)?.[1];
  const card = path.match(/^\/runs\/([A-Za-z0-9_-]+)\/card\.svg$/)?.[1];
  if (page) void servePage(res, () => runs.getRunByLink(deps, page));
  else if (card) void serveCard(res, () => runCardByLink(deps, card));
  else notFound(res);
}

/** A run page: until the dashboard exists, the run's view as JSON; the unguessable run id is the capability. */
async function servePage(res: ServerResponse, load: () => Promise<unknown>) {
  try {
    const view = await load();
    if (view) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(view));
    else notFound(res);
  } catch (error) {
    console.error('run page failed:', error);
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal error"}');
  }
}

/** A run's card as an SVG image, by the same capability link as its page; the image runs no script and loads nothing. */
async function serveCard(res: ServerResponse, load: () => Promise<string | null>) {
  try {
    const svg = await load();
    if (svg === null) return void notFound(res);
    res
      .writeHead(200, {
        'content-type': 'image/svg+xml; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      })
      .end(svg);
  } catch (error) {
    console.error('run card failed:', error);
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal error"}');
  }
}
