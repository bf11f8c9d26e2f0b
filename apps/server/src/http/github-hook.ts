// POST /hooks/github?workspace=<id>: GitHub check_run, check_suite and status deliveries, signed with the workspace's
// secret (X-Hub-Signature-256: "sha256=" + HMAC-SHA256 of the raw body). A bad or missing signature is 401 and records
// nothing; a delivery id seen before records nothing again; a check result goes to the tasks naming its commit or check.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Deps, trust } from '@agent-tasks/core';
import { Hono } from 'hono';
import type { AppEnv } from './http-app.ts';

export const GITHUB_EVENTS = ['check_run', 'check_suite', 'status'] as const;
const UNSIGNED =
  "Error: bad or missing X-Hub-Signature-256 (HMAC-SHA256 of the body with the workspace's GitHub secret); nothing was recorded.";

/** The `sha256=<hex>` signature GitHub sends for `body` under `secret`. */
export const githubSignature = (secret: string, body: string | Buffer) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Whether `header` is the body's signature under `secret`, compared in constant time. */
export function verifyGithubSignature(secret: string, body: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(githubSignature(secret, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function githubHook(deps: Deps) {
  const app = new Hono<AppEnv>();
  app.post('/github', async (c) => {
    const body = Buffer.from(await c.req.arrayBuffer());
    const workspaceId = c.req.query('workspace') ?? '';
    const secret = /^[\w-]{1,100}$/.test(workspaceId) ? await deps.store.trust.githubSecret(workspaceId) : null;
    if (!secret || !verifyGithubSignature(secret, body, c.req.header('x-hub-signature-256'))) return c.json({ error: UNSIGNED }, 401);
    const event = c.req.header('x-github-event') ?? '';
    const deliveryId = c.req.header('x-github-delivery') ?? '';
    if (!/^[\w-]{1,100}$/.test(deliveryId)) {
      return c.json({ error: 'Error: a GitHub delivery needs its X-GitHub-Delivery id; nothing was recorded.' }, 400);
    }
    if (event === 'ping') return c.json({ ok: true, event });
    if (!(GITHUB_EVENTS as readonly string[]).includes(event)) {
      return c.json(
        {
          error: `Error: GitHub event ${JSON.stringify(event.slice(0, 50))} is not taken here (check_run, check_suite, status); nothing was recorded.`,
        },
        400,
      );
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      return c.json({ error: 'Error: the GitHub delivery is not JSON; nothing was recorded.' }, 400);
    }
    const received = await trust.receiveGithubEvent(deps, workspaceId, { id: deliveryId, event, payload });
    return c.json({ ok: true, event, duplicate: received.duplicate, taskIds: received.taskIds });
  });
  return app;
}
