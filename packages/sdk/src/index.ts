// Public surface of @agent-tasks/sdk.
export { createClient, openSessionClient, type AgentTasksClient, type ClientOptions, type Subscription } from './client.ts';
export { refusalOf, type Refusal } from './errors.ts';
export { runDirective, runTools, taskLine, taskTools, todoWriteTool, todoWriteJsonSchema, TODO_WRITE_DESCRIPTION, type ToolDefinition } from './tools.ts';
export type { AppRouter, RouterInputs, RouterOutputs } from '@agent-tasks/server';
