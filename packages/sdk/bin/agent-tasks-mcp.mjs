#!/usr/bin/env node
// The agent-tasks stdio MCP server as one command: loads the TypeScript entry through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/mcp-stdio.ts');
