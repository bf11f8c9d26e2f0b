// Tests of how the server answers browsers: the built dashboard at `/`, client-side routes, and run links as pages.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type App, startApp } from '@agent-tasks/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDatabaseFile } from './support/server.ts';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/app-1a2b.js"></script></head><body><div id="root"></div></body></html>';
const ADMIN_KEY = 'atk_web_serving_test_key_4f9c2e7a1d';
let app: App;
let bare: App;

beforeAll(async () => {
  const webRoot = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-web-'));
  mkdirSync(path.join(webRoot, 'assets'));
  writeFileSync(path.join(webRoot, 'index.html'), INDEX);
  writeFileSync(path.join(webRoot, 'assets', 'app-1a2b.js'), 'console.log("dashboard")');
  writeFileSync(path.join(webRoot, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  app = await startApp({ databaseFile: tempDatabaseFile(), adminKey: ADMIN_KEY, webRoot });
  bare = await startApp({ databaseFile: tempDatabaseFile(), adminKey: ADMIN_KEY, webRoot: path.join(webRoot, 'missing') });
});
afterAll(async () => {
  await Promise.all([app.close(), bare.close()]);
});

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('the dashboard', () => {
  it('serves index.html at / and for client-side routes to a browser, with a strict content policy', async () => {
    for (const route of ['/', '/sessions/ses_1', '/tasks/default', '/admin']) {
      const res = await fetch(`${app.url}${route}`, { headers: html });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(await res.text()).toBe(INDEX);
    }
  });

  it('serves hashed assets cached for good, other files as they are, and 404 JSON to API clients', async () => {
    const asset = await fetch(`${app.url}/assets/app-1a2b.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await asset.text()).toBe('console.log("dashboard")');
    expect((await fetch(`${app.url}/favicon.svg`)).headers.get('content-type')).toContain('image/svg+xml');
    const missing = await fetch(`${app.url}/assets/nope.js`);
    expect(missing.status).toBe(404);
    const api = await fetch(`${app.url}/sessions/ses_1`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: 'Error: not found: GET /sessions/ses_1.' });
  });

  it('says how to build the dashboard when it has not been built', async () => {
    const res = await fetch(`${bare.url}/`, { headers: html });
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('Run <code>pnpm install</code>');
  });
});

describe('run links', () => {
  it('/runs/<id> is the page to a browser and the run view as JSON to an API client; unknown runs are 404 to both', async () => {
    const { createClient, openSessionClient } = await import('@agent-tasks/sdk');
    const admin = createClient({ url: app.url, token: ADMIN_KEY });
    const { token } = await admin.keys.create({ name: 'agent', role: 'agent' });
    const { client } = await openSessionClient(createClient({ url: app.url, token }), {});
    const attempt = await client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
    const run = await client.runs.execute({ startAttemptId: attempt.startAttemptId });

    const page = await fetch(`${app.url}/runs/${run.id}`, { headers: html });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(INDEX);
    const data = await fetch(`${app.url}/runs/${run.id}`);
    expect(data.headers.get('content-type')).toContain('application/json');
    expect(((await data.json()) as { id: string }).id).toBe(run.id);

    const unknownPage = await fetch(`${app.url}/runs/run_nope`, { headers: html });
    expect(unknownPage.status).toBe(404);
    const withoutDashboard = await fetch(`${bare.url}/runs/run_nope`, { headers: html });
    expect(withoutDashboard.status).toBe(404);
  });
});
