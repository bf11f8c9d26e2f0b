// Black-box tests of the one vocabulary: the same plural names on the wire and in the SDK (`tasks.create`, `runs.step`,
// `sessions.open`, `todos.write`); the SDK's methods built from the router's procedures, and the tool kit's calls
// (ToolApi) held to the router's own contracts.
import { toolCalls } from '@agent-tasks/core';
import { apiOf } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procedureKinds, procedureTree } from '../apps/server/src/routers/procedure-kinds.ts';
import { appRouter } from '../apps/server/src/routers/root.ts';
import { procedures } from '../packages/sdk/src/procedures.ts';
import { adminClient, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ env: { LOG_FORMAT: 'json', LOG_LEVEL: 'info' } });
});
afterAll(() => server.stop());

type Def = { _def: { type: string; inputs: unknown[]; output: unknown } };
const routerProcedures = (appRouter as unknown as { _def: { procedures: Record<string, Def> } })._def.procedures;

/** The routes of the access log's request lines since `from` characters of output. */
const routesSince = (from: number) =>
  server
    .output()
    .slice(from)
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => (JSON.parse(line) as { route: string }).route);

describe('names on the wire', () => {
  it('every domain router is named in the plural (auth, keys and dashboard are not collections)', () => {
    expect(Object.keys(procedureTree())).toEqual([
      'auth',
      'workspaces',
      'keys',
      'sessions',
      'todos',
      'tasks',
      'runs',
      'channels',
      'dashboard',
    ]);
    expect(Object.keys(procedureKinds())).toEqual(expect.arrayContaining(['tasks.create', 'runs.step', 'sessions.open', 'todos.write']));
  });

  it('the plural paths answer; the old singular ones are unknown procedures', async () => {
    const s = await sessionClient(server, 'vocabulary');
    const post = (path: string) =>
      fetch(`${server.url}/trpc/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` },
        body: JSON.stringify({ todos: [{ content: 'Named in the plural', status: 'pending' }] }),
      });
    const plural = await post('todos.write');
    expect(plural.status).toBe(200);
    expect(await plural.json()).toMatchObject({ result: { data: { revision: 1 } } });
    const singular = await post('todo.write');
    expect(singular.status).toBe(404);
    expect(((await singular.json()) as { error: { message: string } }).error.message).toBe(
      'Error: no procedure found on path "todo.write".',
    );
    expect((await s.client.todos.get()).items).toEqual([{ content: 'Named in the plural', status: 'pending' }]);
  });
});

describe('the SDK client, built from the router', () => {
  it("its procedure table is the router's, procedure for procedure and kind for kind", () => {
    expect(procedures).toEqual(procedureTree());
  });

  it('has one method per procedure, under the same group and name, and nothing else in those groups', () => {
    const client = adminClient(server) as unknown as Record<string, Record<string, unknown>>;
    for (const [group, names] of Object.entries(procedureTree())) {
      expect(Object.keys(client[group] ?? {}).sort(), group).toEqual(Object.keys(names).sort());
      for (const name of Object.keys(names)) expect(typeof client[group]?.[name], `${group}.${name}`).toBe('function');
    }
  });

  it('each method calls the procedure of its own path: a query, a mutation and a subscription', async () => {
    const s = await sessionClient(server, 'paths');
    const from = server.output().length;
    await s.client.workspaces.whoami();
    await s.client.tasks.create({ subject: 'Called by its path' });
    await s.client.tasks.list();
    const started = new Promise<void>((resolve, reject) => {
      const sub = s.client.todos.watch(
        { from: 'now' },
        { onData: () => undefined, onError: reject, onStarted: () => (sub.unsubscribe(), resolve()) },
      );
    });
    await started;
    expect(routesSince(from)).toEqual(expect.arrayContaining(['workspaces.whoami', 'tasks.create', 'tasks.list', 'todos.watch']));
    expect(routesSince(from).every((route) => /^(workspaces|tasks|todos)\.\w+$/.test(route))).toBe(true);
  });
});

describe('the tool kit calls (ToolApi)', () => {
  it("are router procedures (queries or mutations) taking and answering the router's own contracts", () => {
    for (const [group, calls] of Object.entries(toolCalls)) {
      for (const [name, contract] of Object.entries(calls)) {
        const procedure = routerProcedures[`${group}.${name}`];
        expect(procedure, `${group}.${name}`).toBeDefined();
        expect(procedure?._def.type, `${group}.${name}`).not.toBe('subscription');
        expect(procedure?._def.inputs[0] === contract.input, `${group}.${name} input`).toBe(true);
        // A presented answer's parser carries its contract (trpc.ts `presented`).
        const output = procedure?._def.output as { contract?: unknown } | undefined;
        expect((output?.contract ?? output) === contract.output, `${group}.${name} output`).toBe(true);
      }
    }
  });

  it("apiOf hands the tools the client's own groups of the same names", async () => {
    const s = await sessionClient(server, 'api');
    const api = apiOf(s.client);
    expect(Object.keys(api)).toEqual(Object.keys(toolCalls));
    expect(api.todos).toBe(s.client.todos);
    expect(api.tasks).toBe(s.client.tasks);
    expect(api.runs).toBe(s.client.runs);
    expect((await api.todos.write({ todos: [{ content: 'Through the api', status: 'in_progress' }] })).message).toBe(
      'Updated todo list: 0 pending, 1 in progress, 0 completed',
    );
  });
});
