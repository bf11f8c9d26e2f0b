// A stdio MCP server for any MCP-speaking agent: the tool kit bound to a remote agent-tasks server.
// `runMcpStdio()` is the whole server (the `agent-tasks-mcp` bin, and `agent-tasks mcp` in the server's CLI).
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
import { SDK_VERSION } from './version.ts';

export interface McpStdioOptions {
  /** The agent-tasks server; default AGENT_TASKS_URL, else http://127.0.0.1:3000. */
  url?: string;
  /** An agent key, a session token or a viewer key; default AGENT_TASKS_TOKEN. */
  token?: string;
  /** The title of the session opened for an API key; default AGENT_TASKS_SESSION_TITLE, else "MCP (stdio)". */
  sessionTitle?: string;
  /** Serve the Moira-compatible `moira` tools (start, step); default: `--moira` in argv or AGENT_TASKS_MCP_SERVER=moira. */
  moira?: boolean;
  /** Where the defaults above are read; default `process.env`. */
  env?: Record<string, string | undefined>;
}

const log = (line: string) => process.stderr.write(`agent-tasks MCP: ${line}\n`);

/**
 * Serves the tool kit over MCP on standard input and output until standard input ends; status lines go to standard
 * error. Answers the exit code: 0 after a clean end, 2 without a token, 1 when no session could be opened.
 */
export async function runMcpStdio(options: McpStdioOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const url = options.url ?? env.AGENT_TASKS_URL ?? 'http://127.0.0.1:3000';
  const token = options.token ?? env.AGENT_TASKS_TOKEN;
  if (!token) {
    log('set AGENT_TASKS_TOKEN to an agent key or a session token (and AGENT_TASKS_URL).');
    return 2;
  }

  let client = createClient({ url, token });
  if (!token.startsWith('ats_')) {
    try {
      // As over HTTP (/mcp): a viewer or member key acts as itself (a viewer reads; a member, a person, writes tasks);
      // an agent or admin key gets a session.
      const { role } = await client.workspaces.whoami();
      if (role === 'viewer' || role === 'member') {
        log(role === 'viewer' ? 'viewer key: read-only, no session' : 'member key: a person, no session');
      } else {
        const opened = await openSessionClient(client, { title: options.sessionTitle ?? env.AGENT_TASKS_SESSION_TITLE ?? 'MCP (stdio)' });
        client = opened.client;
        log(`opened session ${opened.session.id}`);
      }
    } catch (error) {
      log(`could not open a session: ${refusalOf(error).message}`);
      return 1;
    }
  }

  const moira = options.moira ?? (process.argv.includes('--moira') || env.AGENT_TASKS_MCP_SERVER === MOIRA_SERVER);
  const tools = toolHandlers(apiOf(client), (error) => refusalOf(error).message, moira ? moiraTools : toolKit);
  const server = new Server({ name: moira ? MOIRA_SERVER : 'agent-tasks', version: SDK_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { text, isError } = await tools.call(request.params.name, request.params.arguments);
    return { content: [{ type: 'text', text }], isError };
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    process.stdin.once('end', () => void server.close());
  });
  await server.connect(new StdioServerTransport());
  await closed;
  return 0;
}
