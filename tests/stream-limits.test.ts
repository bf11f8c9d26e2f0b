// Black-box test of the live-stream caps, against the built server as its own process with a 160 MB heap: 2,000
// todos.watch / tasks.watch streams from eight viewer keys in two workspaces are held (each still gets every event), and
// past a cap — per key, per workspace, in all — a stream is refused with 429, Retry-After and its exact text, taking no
// place; a closed stream gives its place back.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { guardMs } from './support/time-guard.ts';
import { waitFor } from './support/webhook-receiver.ts';

const PER_KEY = 250;
const PER_WORKSPACE = 1_000;
const TOTAL = 2_000;

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    process: true,
    env: {
      NODE_OPTIONS: '--max-old-space-size=160',
      // The caps are per process: one process holds them all.
      AGENT_TASKS_WORKERS: '1',
      AGENT_TASKS_STREAMS_PER_KEY: String(PER_KEY),
      AGENT_TASKS_STREAMS_PER_WORKSPACE: String(PER_WORKSPACE),
      AGENT_TASKS_STREAMS_MAX: String(TOTAL),
    },
  });
});
afterAll(() => server?.stop());

interface Stream {
  status: number;
  retryAfter: string | undefined;
  /** The answer of a refused stream. */
  body: string;
  /** Events with an id (the stream's data) received so far. */
  events: number;
  ended: boolean;
  close(): void;
}

// Every stream its own connection, as browsers and agents open them.
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** Opens a stream as the SDK's EventSource does (GET, the token in the header); resolves once it answered. */
function open(path: string, input: unknown, token: string): Promise<Stream> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const stream: Stream = { status: 0, retryAfter: undefined, body: '', events: 0, ended: false, close: () => req.destroy() };
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'GET',
        path: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`,
        headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
      },
      (res) => {
        stream.status = res.statusCode ?? 0;
        stream.retryAfter = res.headers['retry-after'];
        res.setEncoding('utf8');
        res.on('end', () => void (stream.ended = true));
        res.on('close', () => void (stream.ended = true));
        if (stream.status !== 200) {
          res.on('data', (chunk: string) => (stream.body += chunk));
          res.on('end', () => resolve(stream));
          return;
        }
        res.on('data', (chunk: string) => {
          stream.events += chunk.match(/^id: /gm)?.length ?? 0;
          resolve(stream); // the first bytes (`connected`): the stream is open
        });
      },
    );
    req.on('error', (error) => (stream.status === 0 ? reject(error) : void (stream.ended = true)));
    req.end();
  });
}

/** Runs `count` opens, `atOnce` at a time. */
async function openMany(count: number, atOnce: number, one: (i: number) => Promise<Stream>): Promise<Stream[]> {
  const opened: Stream[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      for (let i = next++; i < count; i = next++) opened[i] = await one(i);
    }),
  );
  return opened;
}

/** The server's resident memory in MB (Linux). */
const residentMb = () =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.process().pid}/status`, 'utf8'))?.[1]) / 1024);

const refusal = (s: Stream) => JSON.parse(s.body).error as { message: string; data: { httpStatus: number; appCode: string } };

describe('live streams are capped per key, per workspace and in all', () => {
  it('2,000 streams under a 160 MB heap each get their events; past a cap a stream is 429 with its text and takes no place', async () => {
    const admins = [
      adminClient(server),
      createClient({ url: server.url, token: (await adminClient(server).workspaces.create({ name: 'second' })).adminKey }),
    ];
    const workspaces = await Promise.all(
      admins.map(async (admin) => {
        const agentKey = (await admin.keys.create({ name: 'writer', role: 'agent' })).token;
        const writer = await openSessionClient(createClient({ url: server.url, token: agentKey }), { title: 'watched' });
        const viewers = await Promise.all(
          [1, 2, 3, 4].map(async (n) => (await admin.keys.create({ name: `dash ${n}`, role: 'viewer' })).token),
        );
        return { admin, writer, viewers };
      }),
    );
    const before = residentMb();
    // Each key opens its 250: half watch the task list, half the writer's todo list.
    const held = await openMany(TOTAL, 50, (i) => {
      const ws = workspaces[Math.floor(i / PER_WORKSPACE)]!;
      const key = ws.viewers[Math.floor((i % PER_WORKSPACE) / PER_KEY)]!;
      return i % 2 === 0
        ? open('tasks.watch', { listName: 'default' }, key)
        : open('todos.watch', { sessionId: ws.writer.session.id }, key);
    });
    expect(held.map((s) => s.status).filter((status) => status !== 200)).toEqual([]);

    // Past each cap: the key's 251st, a fifth key of a full workspace, a third workspace's first when the server is full.
    const third = createClient({ url: server.url, token: (await admins[0]!.workspaces.create({ name: 'third' })).adminKey });
    const thirdViewer = (await third.keys.create({ name: 'dash', role: 'viewer' })).token;
    const fifth = (await workspaces[0]!.admin.keys.create({ name: 'dash 5', role: 'viewer' })).token;
    const [overKey, overWorkspace, overTotal] = await Promise.all([
      open('tasks.watch', { listName: 'default' }, workspaces[0]!.viewers[0]!),
      open('tasks.watch', { listName: 'default' }, fifth),
      open('tasks.watch', { listName: 'default' }, thirdViewer),
    ]);
    for (const s of [overKey, overWorkspace, overTotal]) {
      expect(s.status).toBe(429);
      expect(s.retryAfter).toBe('10');
      expect(refusal(s).data).toMatchObject({ httpStatus: 429, appCode: 'RATE_LIMITED' });
    }
    expect(refusal(overKey).message).toBe(
      'Error: too many open live streams for this key (250, at most 250); close one before opening another.',
    );
    expect(refusal(overWorkspace).message).toBe(
      'Error: too many open live streams for this workspace (1000, at most 1000); close one before opening another.',
    );
    expect(refusal(overTotal).message).toBe('Error: the server has too many open live streams (2000); try again shortly.');

    // Every stream is live: one task and one todo update per workspace reach all 2,000.
    for (const ws of workspaces) {
      await ws.writer.client.tasks.create({ subject: 'Seen by every dashboard' });
      await ws.writer.client.todos.write({ todos: [{ content: 'Seen by every dashboard', status: 'pending' }] });
    }
    await waitFor('every stream got its event', () => held.every((s) => s.events >= 1), guardMs(6_000), 200);
    const during = residentMb();
    expect(held.some((s) => s.ended)).toBe(false);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.output()).not.toMatch(/heap out of memory/i);
    console.log(`resident memory: ${before} MB before, ${during} MB with ${TOTAL} streams`);
    expect(during).toBeLessThan(before + 400);

    // The refusals took no place; a closed stream gives its back (to its key, and to the server).
    held[0]!.close();
    await waitFor('a place is free again', async () => {
      const again = await open('tasks.watch', { listName: 'default' }, workspaces[0]!.viewers[0]!);
      if (again.status === 200) held[0] = again;
      return again.status === 200;
    });
    expect((await open('tasks.watch', { listName: 'default' }, workspaces[0]!.viewers[0]!)).status).toBe(429);
    for (const s of held.slice(0, 10)) s.close();
    await waitFor('the third workspace gets a place', async () => {
      const s = await open('tasks.watch', { listName: 'default' }, thirdViewer);
      s.close();
      return s.status === 200;
    });
    for (const s of held) s.close();
  }, 300_000);
});
