// The SDK's version, as its package.json states it (a test keeps the two equal); reported by its MCP server.
export const SDK_VERSION = '0.1.0';
