// Black-box tests of inbound GitHub checks: POST /hooks/github verifies X-Hub-Signature-256 (GitHub's documented test
// vector), records a delivery once, and attaches check_run, check_suite and status results as CI evidence to the tasks
// naming the commit or the check; a failure after a success makes the task contested.
import { createHmac, randomUUID } from 'node:crypto';
import { openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, keyClient, refused } from './support/fixtures.ts';
import { rowCounts } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';

// GitHub's documented example (docs.github.com, "Validating webhook deliveries").
const TEST_SECRET = "It's a Secret to Everybody";
const TEST_PAYLOAD = 'Hello, World!';
const TEST_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

let server: RunningServer;
let workspaceId: string;
beforeAll(async () => {
  server = await startServer();
  const admin = adminClient(server);
  workspaceId = (await admin.workspaces.githubSecret({ secret: TEST_SECRET })).workspaceId;
});
afterAll(() => server.stop());

const sign = (body: string, secret = TEST_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

async function deliver(event: string, body: string, headers: Record<string, string | null> = {}) {
  const all: Record<string, string | null> = {
    'content-type': 'application/json',
    'x-github-event': event,
    'x-github-delivery': randomUUID(),
    'x-hub-signature-256': sign(body),
    ...headers,
  };
  const response = await fetch(`${server.url}/hooks/github?workspace=${workspaceId}`, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== null)),
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const sha = () => randomUUID().replace(/-/g, '').padEnd(40, '0').slice(0, 40);
const checkRun = (commit: string, name: string, conclusion: string) =>
  JSON.stringify({
    action: 'completed',
    check_run: { name, status: 'completed', conclusion, head_sha: commit, html_url: `https://github.com/acme/shop/runs/${name.length}` },
    repository: { full_name: 'acme/shop', html_url: 'https://github.com/acme/shop' },
  });

const UNSIGNED =
  "Error: bad or missing X-Hub-Signature-256 (HMAC-SHA256 of the body with the workspace's GitHub secret); nothing was recorded.";

describe('POST /hooks/github: signatures', () => {
  it("GitHub's test vector verifies; a bad or missing signature is 401 and records nothing", async () => {
    // The documented signature of the documented payload is taken (the body then is no JSON: 400, after the check).
    const vector = await deliver('status', TEST_PAYLOAD, { 'x-hub-signature-256': TEST_SIGNATURE });
    expect(vector).toEqual({ status: 400, body: { error: 'Error: the GitHub delivery is not JSON; nothing was recorded.' } });
    expect(sign(TEST_PAYLOAD)).toBe(TEST_SIGNATURE);

    const before = await rowCounts(server);
    const body = checkRun(sha(), 'ci / test', 'success');
    expect(await deliver('check_run', body, { 'x-hub-signature-256': sign(body, 'another secret entirely') })).toEqual({
      status: 401,
      body: { error: UNSIGNED },
    });
    expect(await deliver('check_run', body, { 'x-hub-signature-256': null })).toEqual({ status: 401, body: { error: UNSIGNED } });
    expect(await deliver('check_run', body, { 'x-hub-signature-256': TEST_SIGNATURE })).toEqual({ status: 401, body: { error: UNSIGNED } });
    expect(await rowCounts(server)).toEqual(before);
  });

  it("the secret is an admin's to set; a short one is refused", async () => {
    const agent = await keyClient(server, 'agent');
    expect((await refused(agent.workspaces.githubSecret({ secret: 'x'.repeat(20) }))).message).toBe(
      'Error: forbidden: this call needs an admin key (this key is agent).',
    );
    expect((await refused(adminClient(server).workspaces.githubSecret({ secret: 'short' }))).message).toBe(
      'Error: invalid input: `secret` must be 16 to 256 characters.',
    );
  });
});

describe('POST /hooks/github: checks become CI evidence', () => {
  it('check_run success verifies the task naming its commit; a replayed delivery records nothing twice; a later failure contests it', async () => {
    const { client } = await openSessionClient(await keyClient(server, 'agent'), { agentName: 'ci-watcher' });
    const commit = sha();
    const listName = 'github-1';
    const task = await client.tasks.create({ listName, subject: 'Fix totals', metadata: { commit: commit.slice(0, 10) } });
    const other = await client.tasks.create({ listName, subject: 'Unrelated', metadata: { commit: sha().slice(0, 10) } });

    const delivery = randomUUID();
    const body = checkRun(commit, 'ci / test', 'success');
    const first = await deliver('check_run', body, { 'x-github-delivery': delivery });
    expect(first).toEqual({ status: 200, body: { ok: true, event: 'check_run', duplicate: false, taskIds: [task.id] } });
    let got = await client.tasks.get({ listName, id: task.id });
    expect(got.evidence).toEqual([
      {
        kind: 'check',
        name: 'ci / test',
        conclusion: 'success',
        url: 'https://github.com/acme/shop/runs/9',
        commit,
        provenance: 'ci',
        success: true,
        at: expect.any(String),
      },
    ]);
    expect(got.verdict).toBe('verified');
    expect(await client.tasks.get({ listName, id: other.id })).not.toHaveProperty('evidence');

    const before = await rowCounts(server);
    const replay = await deliver('check_run', body, { 'x-github-delivery': delivery });
    expect(replay).toEqual({ status: 200, body: { ok: true, event: 'check_run', duplicate: true, taskIds: [] } });
    expect(await rowCounts(server)).toEqual(before);

    // The same check fails on a later run: contested, in TaskGet and TaskList.
    await deliver('check_run', checkRun(commit, 'ci / test', 'failure'));
    got = await client.tasks.get({ listName, id: task.id });
    expect(got.verdict).toBe('contested');
    expect(got.evidence?.map((e) => [e.provenance, e.conclusion, e.success])).toEqual([
      ['ci', 'success', true],
      ['ci', 'failure', false],
    ]);
    expect((await client.tasks.list({ listName })).tasks.find((t) => t.id === task.id)?.verdict).toBe('contested');
    const history = (await client.tasks.history({ listName, id: task.id })).changes;
    expect(history.at(-1)).toMatchObject({ kind: 'evidence', by: { keyId: 'github', sessionId: null } });
  });

  it('status and check_suite events reach the tasks naming the check (metadata.check) or the commit; pending ones are skipped', async () => {
    const { client } = await openSessionClient(await keyClient(server, 'agent'), { agentName: 'ci-2' });
    const listName = 'github-2';
    const commit = sha();
    const byCheck = await client.tasks.create({ listName, subject: 'Deploy preview', metadata: { check: 'deploy/preview' } });
    const byCommit = await client.tasks.create({ listName, subject: 'Suite', metadata: { commit } });
    const status = (state: string) =>
      JSON.stringify({
        sha: commit,
        state,
        context: 'deploy/preview',
        target_url: 'https://preview.example.com/1',
        repository: { html_url: 'https://github.com/acme/shop' },
      });
    expect((await deliver('status', status('pending'))).body.taskIds).toEqual([]);
    expect(((await deliver('status', status('success'))).body.taskIds as string[]).sort()).toEqual([byCheck.id, byCommit.id].sort());
    expect(await client.tasks.get({ listName, id: byCheck.id })).toMatchObject({
      verdict: 'verified',
      evidence: [{ kind: 'check', name: 'deploy/preview', conclusion: 'success', url: 'https://preview.example.com/1', provenance: 'ci' }],
    });
    const suite = JSON.stringify({
      action: 'completed',
      check_suite: { head_sha: commit, status: 'completed', conclusion: 'failure', app: { name: 'GitHub Actions' } },
      repository: { html_url: 'https://github.com/acme/shop' },
    });
    expect((await deliver('check_suite', suite)).body.taskIds).toEqual([byCommit.id]);
    const got = await client.tasks.get({ listName, id: byCommit.id });
    expect(got.evidence?.at(-1)).toMatchObject({
      name: 'GitHub Actions',
      conclusion: 'failure',
      url: `https://github.com/acme/shop/commit/${commit}/checks`,
      provenance: 'ci',
    });
    expect(got.verdict).toBe('contested');
  });
  it('a label names the check (`check:<name>`) or the commit (`commit:<sha>`, 7 or more hex digits); other labels match nothing', async () => {
    const { client } = await openSessionClient(await keyClient(server, 'agent'), { agentName: 'ci-3' });
    const listName = 'github-3';
    const commit = sha();
    const byCheck = await client.tasks.create({ listName, subject: 'Lint clean', labels: ['check:ci / lint'] });
    const byCommit = await client.tasks.create({ listName, subject: 'Totals fixed', labels: ['backend', `commit:${commit.slice(0, 12)}`] });
    const short = await client.tasks.create({ listName, subject: 'Too short a sha', labels: [`commit:${commit.slice(0, 6)}`] });
    const plain = await client.tasks.create({ listName, subject: 'Named in a plain label', labels: ['ci / lint'] });
    const result = await deliver('check_run', checkRun(commit, 'ci / lint', 'success'));
    expect((result.body.taskIds as string[]).sort()).toEqual([byCheck.id, byCommit.id].sort());
    for (const t of [byCheck, byCommit]) {
      expect(await client.tasks.get({ listName, id: t.id })).toMatchObject({
        verdict: 'verified',
        evidence: [{ kind: 'check', name: 'ci / lint', conclusion: 'success', commit, provenance: 'ci' }],
      });
    }
    for (const t of [short, plain]) expect(await client.tasks.get({ listName, id: t.id })).not.toHaveProperty('evidence');
  });
});
