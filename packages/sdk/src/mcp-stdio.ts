// A stdio MCP server for any MCP-speaking agent: the tool kit bound to a remote agent-tasks server.
//   AGENT_TASKS_URL=http://127.0.0.1:3000 AGENT_TASKS_TOKEN=<agent key or session token> tsx packages/sdk/src/mcp-stdio.ts
// With an agent (or admin) key it opens its own agent session at start; with a session token it acts as that session;
// a viewer key acts as itself, read-only (as over HTTP at /mcp).
// `--moira` (or AGENT_TASKS_MCP_SERVER=moira) serves the Moira-compatible server `moira` (tools start and step) instead.
import { MOIRA_SERVER, moiraTools, toolHandlers, toolKit } from '@agent-tasks/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createClient, openSessionClient } from './client.ts';
import { refusalOf } from './errors.ts';
import { apiOf } from './tools.ts';

const url = process.env.AGENT_TASKS_URL ?? 'http://127.0.0.1:3000';
const token = process.env.AGENT_TASKS_TOKEN;
if (!token) {
  process.stderr.write('agent-tasks MCP: set AGENT_TASKS_TOKEN to an agent key or a session token (and AGENT_TASKS_URL).\n');
  process.exit(2);
}

let client = createClient({ url, token });
if (!token.startsWith('ats_')) {
  try {
    // As over HTTP (/mcp): a viewer key acts as itself (read-only tools); an agent or admin key gets a session.
    if ((await client.whoami()).role === 'viewer') {
      process.stderr.write('agent-tasks MCP: viewer key: read-only, no session\n');
    } else {
      const opened = await openSessionClient(client, { title: process.env.AGENT_TASKS_SESSION_TITLE ?? 'MCP (stdio)' });
      client = opened.client;
      process.stderr.write(`agent-tasks MCP: opened session ${opened.session.id}\n`);
    }
  } catch (error) {
    process.stderr.write(`agent-tasks MCP: could not open a session: ${refusalOf(error).message}\n`);
    process.exit(1);
  }
}

const moira = process.argv.includes('--moira') || process.env.AGENT_TASKS_MCP_SERVER === MOIRA_SERVER;
const tools = toolHandlers(apiOf(client), (error) => refusalOf(error).message, moira ? moiraTools : toolKit);
const server = new Server({ name: moira ? MOIRA_SERVER : 'agent-tasks', version: '0.1.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() as never }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { text, isError } = await tools.call(request.params.name, request.params.arguments);
  return { content: [{ type: 'text', text }], isError };
});
await server.connect(new StdioServerTransport());
