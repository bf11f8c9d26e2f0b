// An MCP server exposing a tool kit against one api: the core's agent-tasks tools (the same names, descriptions, schemas
// and texts as the SDK) or, by name, the Moira-compatible `moira` tools.
import { MOIRA_SERVER, type ToolApi, type ToolSpec, moiraTools, toolHandlers, toolKit } from '@agent-tasks/core';

export interface McpKit {
  /** The server name clients see (tools are named mcp__<name>__<tool> in Claude Code). */
  name: string;
  specs: readonly ToolSpec[];
}

export const agentTasksKit: McpKit = { name: 'agent-tasks', specs: toolKit };
/** The Moira-compatible server: the tools start and step (served at /mcp/moira). */
export const moiraKit: McpKit = { name: MOIRA_SERVER, specs: moiraTools };

/** The MCP SDK is loaded on first use, so a server start that serves no MCP does not pay for it. */
export async function createMcpServer(api: ToolApi, errorText: (error: unknown) => string, kit: McpKit = agentTasksKit) {
  const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const tools = toolHandlers(api, errorText, kit.specs);
  const server = new Server({ name: kit.name, version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { text, isError } = await tools.call(request.params.name, request.params.arguments);
    return { content: [{ type: 'text', text }], isError };
  });
  return server;
}
