// Black-box tests of what a hook process starts with: the bundled hook handlers (dist/hook.cjs of the SDK and of the
// server) stay small, so a hook parses and runs little before its first request, and a hook against an http:// server
// never loads TLS (node:https), which it loads only for an https:// server (here a TLS proxy in front of the server,
// with a self-signed certificate from tests/fixtures/tls). Timing is measured by `pnpm bench -- --only hook`, not here.
import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './support/fixtures.ts';
import { moduleRecorder } from './support/module-recorder.ts';
import { type RunningServer, agentTasksBin, startServer } from './support/server.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const hookBin = path.join(path.dirname(agentTasksBin), 'agent-tasks-hook.cjs');
const sdkBin = path.join(repoRoot, 'packages/sdk/bin/agent-tasks.cjs');
const tls = path.join(import.meta.dirname, 'fixtures/tls');
/** The most a bundle of the hook handlers may weigh (it was 516 KB with the whole of zod and every contract in it). */
const HOOK_BUNDLE_MAX_BYTES = 96 * 1024;

let server: RunningServer;
let agentKey: string;
beforeAll(async () => {
  server = await startServer();
  agentKey = (await adminClient(server).keys.create({ name: 'hook bundle', role: 'agent' })).token;
});
afterAll(() => server.stop());

/** Runs `node <bin> <args>` with `input` on stdin and `env`; its exit code, output, the built-in modules it loaded and
 * the module files it imported. */
const runHook = moduleRecorder('hook-bundle');

const todoWrite = (sessionId: string, content: string) =>
  JSON.stringify({
    session_id: sessionId,
    transcript_path: `/home/dev/.claude/projects/-home-dev-projects-shop-api/${sessionId}.jsonl`,
    cwd: '/home/dev/projects/shop-api',
    permission_mode: 'default',
    hook_event_name: 'PostToolUse',
    tool_name: 'TodoWrite',
    tool_input: { todos: [{ content, status: 'in_progress', activeForm: `Doing: ${content}` }] },
    tool_response: { oldTodos: [], newTodos: [{ content, status: 'in_progress', activeForm: `Doing: ${content}` }] },
    tool_use_id: 'toolu_01HookBundleTest00000000',
  });

async function todoListOf(externalId: string) {
  const viewer = createClient({ url: server.url, token: (await adminClient(server).keys.create({ name: 'v', role: 'viewer' })).token });
  const session = (await viewer.sessions.list()).sessions.find((s) => s.externalId === externalId);
  return session ? (await viewer.sessions.get({ sessionId: session.id })).todo : null;
}

describe('the hook handlers a hook process loads', () => {
  it(`are one small script in each package (at most ${HOOK_BUNDLE_MAX_BYTES / 1024} KB): no contract, no zod locale`, () => {
    for (const dist of ['packages/sdk/dist', 'apps/server/dist']) {
      const file = path.join(repoRoot, dist, 'hook.cjs');
      const source = readFileSync(file, 'utf8');
      expect({ file: path.join(dist, 'hook.cjs'), bytes: statSync(file).size <= HOOK_BUNDLE_MAX_BYTES }).toEqual({
        file: path.join(dist, 'hook.cjs'),
        bytes: true,
      });
      // Texts of zod's classic API and of the schema package's contracts, none of which a hook reads.
      for (const absent of ['toJSONSchema', 'Invalid input: expected', 'baseRevision']) expect(source).not.toContain(absent);
    }
  });

  it('against an http:// server: records with neither TLS nor node:https loaded, through both packages’ commands', async () => {
    const sessionId = `hook-bundle-http-${Date.now()}`;
    const env = { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: agentKey };
    const runs: [string, string[], string][] = [
      [hookBin, ['claude-code'], 'Write the parser'],
      [agentTasksBin, ['hook', 'claude-code'], 'Test the parser'],
      [sdkBin, ['hook', 'claude-code'], 'Ship the parser'],
    ];
    for (const [bin, args, content] of runs) {
      const run = await runHook(bin, args, todoWrite(sessionId, content), env);
      expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(run.builtins).toContain('http');
      expect(run.builtins.filter((name) => name === 'https' || name === 'tls' || name === '_tls_wrap')).toEqual([]);
    }
    expect(await todoListOf(sessionId)).toMatchObject({ revision: 3, items: [{ content: 'Ship the parser', status: 'in_progress' }] });
  });

  it('through the whole command line (dist/cli.js hook <runtime>): the bundled handlers too, no SDK module, zod or tRPC', async () => {
    const sessionId = `hook-bundle-cli-${Date.now()}`;
    const fullCli = path.join(repoRoot, 'apps/server/dist/cli.js');
    const run = await runHook(fullCli, ['hook', 'claude-code'], todoWrite(sessionId, 'Write the parser'), {
      AGENT_TASKS_URL: server.url,
      AGENT_TASKS_TOKEN: agentKey,
    });
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
    // Node's ES module loader sees the command line (dist/cli.js, its chunks and commander), never the hook's modules.
    const packageOf = (url: string) => {
      const [scope, name] = (url.split('/node_modules/').at(-1) ?? '').split('/');
      return scope?.startsWith('@') ? `${scope}/${name}` : scope;
    };
    const npm = [...new Set(run.imported.filter((url) => url.includes('/node_modules/')).map(packageOf))];
    expect(npm).toEqual(['commander']);
    expect(await todoListOf(sessionId)).toMatchObject({ revision: 1, items: [{ content: 'Write the parser', status: 'in_progress' }] });
  });

  it('against an https:// server: loads node:https then and records the same way', async () => {
    // A TLS proxy in front of the server, with a certificate the hook trusts through NODE_EXTRA_CA_CERTS.
    const target = new URL(server.url);
    const proxy = https.createServer(
      { key: readFileSync(path.join(tls, 'localhost-key.pem')), cert: readFileSync(path.join(tls, 'localhost-cert.pem')) },
      (request, response) => {
        const forwarded = http.request(
          { host: target.hostname, port: target.port, path: request.url, method: request.method, headers: request.headers },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
          },
        );
        forwarded.on('error', () => response.destroy());
        request.pipe(forwarded);
      },
    );
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const sessionId = `hook-bundle-https-${Date.now()}`;
      const env = { AGENT_TASKS_URL: url, AGENT_TASKS_TOKEN: agentKey, NODE_EXTRA_CA_CERTS: path.join(tls, 'localhost-cert.pem') };
      for (const [bin, args, content] of [
        [hookBin, ['claude-code'], 'Write the parser'],
        [sdkBin, ['hook', 'claude-code'], 'Test the parser'],
      ] as const) {
        const run = await runHook(bin, [...args], todoWrite(sessionId, content), env);
        expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
        expect(run.builtins).toContain('https');
      }
      expect(await todoListOf(sessionId)).toMatchObject({ revision: 2, items: [{ content: 'Test the parser', status: 'in_progress' }] });
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
