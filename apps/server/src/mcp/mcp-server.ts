// An MCP server exposing the core tool kit against one api: the same names, descriptions, schemas and texts as the SDK.
import { type ToolApi, toolHandlers } from '@agent-tasks/core';

/** The MCP SDK is loaded on first use, so a server start that serves no MCP does not pay for it. */
export async function createMcpServer(api: ToolApi, errorText: (error: unknown) => string) {
  const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const tools = toolHandlers(api, errorText);
  const server = new Server({ name: 'agent-tasks', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { text, isError } = await tools.call(request.params.name, request.params.arguments);
    return { content: [{ type: 'text', text }], isError };
  });
  return server;
}
