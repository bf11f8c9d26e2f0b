// The writer's socket takes calls from workers of its own version only: a worker forked from other code (an upgrade in
// place) that knows the secret is turned away, the log says why, and its call is not run.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Actor, resolveActor } from '@agent-tasks/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, startApp } from '../src/app.ts';
import { type PrimaryLink, WRITE_PROTOCOL } from '../src/cluster/messages.ts';
import { serveWrites, writerRevocations } from '../src/cluster/writer.ts';
import { createLogger } from '../src/logger.ts';
import { appRouter } from '../src/routers/root.ts';

const adminKey = `atk_hello_${Math.random().toString(36).slice(2)}_${Date.now()}`;
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-writer-hello-'));
const address = path.join(dir, 'writer.sock');
const logLines: string[] = [];
let app: App;
let writes: Awaited<ReturnType<typeof serveWrites>>;
let secret = '';
let actor: Actor;

beforeAll(async () => {
  const log = createLogger({ level: 'info', format: 'json' }, { write: (line: string) => logLines.push(line) });
  app = await startApp({ databaseFile: path.join(dir, 'hello.db'), port: 0, adminKey, log });
  const link: PrimaryLink = {
    id: 1,
    send(message) {
      if (message.at === 'write:ready') secret = message.secret;
    },
    onMessage: () => {},
  };
  writes = await serveWrites(link, app.services, appRouter, address, writerRevocations());
  actor = await resolveActor(app.services.deps, adminKey);
});

afterAll(async () => {
  await writes?.stop();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the writer sends back on a connection whose first line is `hello`, then one call making key `name`. */
async function callAfter(hello: unknown, name: string) {
  const socket = net.createConnection(address);
  let answer = '';
  socket.on('data', (chunk: Buffer) => {
    answer += chunk.toString();
    if (answer.endsWith('\n')) socket.end();
  });
  const closed = new Promise((resolve) => socket.once('close', resolve));
  const call = { call: 1, path: 'keys.create', input: { name, role: 'viewer' }, actor, requestId: `req_${name}` };
  socket.write(`${JSON.stringify(hello)}\n${JSON.stringify(call)}\n`);
  await closed;
  return answer;
}

const keyNames = async () => (await app.services.deps.store.keys.list(actor.workspaceId)).map((k) => k.name);

describe("the writer's socket", () => {
  it('runs the calls of a worker of its own version', async () => {
    const answer = await callAfter({ hello: secret, protocol: WRITE_PROTOCOL }, 'same version');
    expect(JSON.parse(answer)).toMatchObject({ call: 1, ok: true });
    expect(await keyNames()).toContain('same version');
  });

  it('turns away a worker of another version that knows the secret: nothing runs, the log says why', async () => {
    const before = await keyNames();
    // A worker of the code before the version was told in the hello (version 1), and one of a later version.
    expect(await callAfter({ hello: secret }, 'version one')).toBe('');
    expect(await callAfter({ hello: secret, protocol: WRITE_PROTOCOL + 1 }, 'a later version')).toBe('');
    expect(await keyNames()).toEqual(before);
    const told = logLines.map((line) => JSON.parse(line) as { msg: string; err?: { message: string } });
    expect(told).toContainEqual(
      expect.objectContaining({
        msg: 'writer: a worker of another version was turned away; restart the server to run one version',
        err: expect.objectContaining({ message: `its lines are version 1, this writer's ${WRITE_PROTOCOL}` }),
      }),
    );
    // A connection without the secret is told apart.
    expect(await callAfter({ hello: 'a guess', protocol: WRITE_PROTOCOL }, 'guessed')).toBe('');
    expect(logLines.some((line) => line.includes('writer: a connection without the secret was closed'))).toBe(true);
    expect(await keyNames()).toEqual(before);
  });
});
