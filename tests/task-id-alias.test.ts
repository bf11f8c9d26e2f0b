// Black-box tests of the task tools called as Claude Code's own TaskGet and TaskUpdate are: with `taskId` for the task
// (Claude Code 2.1.112 declares TaskGet `{ taskId }` and TaskUpdate `{ taskId, subject?, description?, activeForm?,
// status?, addBlocks?, addBlockedBy?, owner?, metadata? }`, both strict objects; Oh My OpenCode's take `id`). Through
// the SDK tool kit, the server's /mcp endpoint and the stdio MCP server, `taskId` is taken for `id` by every tool that
// takes a task id, without showing in the definitions; `taskId` and `id` naming different tasks is refused, recording
// nothing.
import os from 'node:os';
import path from 'node:path';
import { taskTools } from '@agent-tasks/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { countRows, sessionClient, type Session } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { sourceNodeArgs } from './support/source-node.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const repoRoot = path.resolve(import.meta.dirname, '..');
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
});

let lists = 0;
const freshList = () => `alias-${++lists}`;

/** A model's tool call, however it reaches the tool: its name and arguments in, the text the model reads out. */
type CallTool = (name: string, args: Record<string, unknown>) => Promise<string>;

function toolKitOf(s: Session): { call: CallTool; definitions: () => Promise<{ name: string; properties: string[] }[]> } {
  const tools = taskTools(s.client);
  return {
    call: async (name, args) => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      return tool.handler(args);
    },
    definitions: async () => tools.map((t) => ({ name: t.name, properties: Object.keys(t.inputSchema.properties ?? {}) })),
  };
}

async function mcpOf(client: Client) {
  open.push(client);
  return {
    call: (async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      const [content] = result.content as { type: string; text: string }[];
      return content?.text ?? '';
    }) satisfies CallTool,
    definitions: async () =>
      (await client.listTools()).tools.map((t) => ({ name: t.name, properties: Object.keys(t.inputSchema.properties ?? {}) })),
  };
}

async function httpMcp(s: Session) {
  const client = new Client({ name: 'agent-tasks-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${s.token}` } } }),
  );
  return mcpOf(client);
}

async function stdioMcp(s: Session) {
  const client = new Client({ name: 'agent-tasks-tests', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...sourceNodeArgs, path.join(repoRoot, 'packages/sdk/bin/agent-tasks-mcp.js')],
      env: { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: s.token },
      cwd: os.tmpdir(),
      stderr: 'pipe',
    }),
  );
  return mcpOf(client);
}

const surfaces: [
  string,
  (s: Session) => Promise<{ call: CallTool; definitions: () => Promise<{ name: string; properties: string[] }[]> }>,
][] = [
  ['the SDK tool kit', async (s) => toolKitOf(s)],
  ['MCP over HTTP (/mcp)', httpMcp],
  ['stdio MCP (agent-tasks-mcp)', stdioMcp],
];

describe.each(surfaces)('taskId for id, through %s', (_surface, connect) => {
  it('TaskGet({ taskId }), TaskUpdate({ taskId, status, addBlockedBy }) and TaskClaim({ taskId }) act on that task', async () => {
    const s = await sessionClient(server);
    const tools = await connect(s);
    const listName = freshList();
    const a = await s.client.tasks.create({ listName, subject: 'Write the parser' });
    const b = await s.client.tasks.create({ listName, subject: 'Test the parser' });
    const c = await s.client.tasks.create({ listName, subject: 'Ship it' });

    const got = await tools.call('TaskGet', { listName, taskId: a.id });
    expect(JSON.parse(got)).toMatchObject({ id: a.id, subject: 'Write the parser', status: 'pending' });
    // Claude Code's TaskUpdate, as its model writes it: the task by `taskId`, edges added.
    expect(await tools.call('TaskUpdate', { listName, taskId: b.id, addBlockedBy: [a.id] })).toBe(
      `Updated ${b.id} [pending] Test the parser (version 2)  blockedBy: [${a.id}]`,
    );
    expect(await tools.call('TaskUpdate', { listName, taskId: a.id, status: 'in_progress', owner: 'alice' })).toBe(
      `Updated ${a.id} [in_progress] Write the parser (version 3)  blockedBy: []`,
    );
    expect(await tools.call('TaskClaim', { listName, taskId: c.ref })).toMatch(
      new RegExp(`^Claimed ${c.id} \\[in_progress\\] Ship it as `),
    );
    // The same id under both names is one task named once.
    expect(await tools.call('TaskGet', { listName, taskId: b.id, id: b.id })).toContain(`"id": "${b.id}"`);

    expect(await s.client.tasks.get({ listName, id: a.id })).toMatchObject({ status: 'in_progress', owner: 'alice' });
    expect((await s.client.tasks.get({ listName, id: b.id })).blockedBy).toEqual([a.id]);
    expect((await s.client.tasks.get({ listName, id: c.id })).status).toBe('in_progress');

    // The definitions still show `id` only (token budget).
    for (const definition of (await tools.definitions()).filter((d) => ['TaskGet', 'TaskUpdate', 'TaskClaim'].includes(d.name))) {
      expect(definition.properties).toContain('id');
      expect(definition.properties).not.toContain('taskId');
    }
  });

  it('taskId and id naming different tasks, or a taskId that is no task id, is refused with a clear text; nothing is recorded', async () => {
    const s = await sessionClient(server);
    const tools = await connect(s);
    const listName = freshList();
    const a = await s.client.tasks.create({ listName, subject: 'A' });
    const b = await s.client.tasks.create({ listName, subject: 'B' });
    const changes = await countRows(server, 'TaskChange');

    const different = `Error: invalid input: \`taskId\` "${a.id}" and \`id\` "${b.id}" name different tasks; send one of them.`;
    expect(await tools.call('TaskUpdate', { listName, taskId: a.id, id: b.id, status: 'completed' })).toBe(different);
    expect(await tools.call('TaskClaim', { listName, taskId: a.id, id: b.id })).toBe(different);
    expect(await tools.call('TaskGet', { listName, taskId: a.id, id: b.id })).toBe(different);
    // Claude Code's own ids are numbers as text ("3"): not ours, and the refusal names the field the caller used.
    expect(await tools.call('TaskUpdate', { listName, taskId: '3', status: 'completed' })).toBe(
      'Error: invalid input: `taskId`: "3" is not a task id (T-… or #n).',
    );
    expect(await tools.call('TaskGet', { listName, taskId: 7 })).toBe(
      'Error: invalid input: `taskId` must be a task id like "T-…" or "#3".',
    );

    expect(await countRows(server, 'TaskChange')).toBe(changes);
    for (const t of [a, b]) {
      const now = await s.client.tasks.get({ listName, id: t.id });
      expect({ status: now.status, owner: now.owner ?? null, version: now.version }).toEqual({
        status: 'pending',
        owner: null,
        version: 1,
      });
    }
  });
});
