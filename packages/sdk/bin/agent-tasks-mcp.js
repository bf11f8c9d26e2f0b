#!/usr/bin/env node
// The `agent-tasks-mcp` command: the stdio MCP server (AGENT_TASKS_URL, AGENT_TASKS_TOKEN), from the built package.
import { runMcpStdio } from '@agent-tasks/sdk/mcp';

process.exitCode = await runMcpStdio();
