// Public surface of @agent-tasks/sdk.
export { createClient, openSessionClient, type AgentTasksClient, type ClientOptions, type Subscription } from './client.ts';
export { refusalOf, type Refusal } from './errors.ts';
export {
  agentTools,
  anthropicTools,
  apiOf,
  createDispatcher,
  openAITools,
  runDirective,
  runTools,
  taskLine,
  taskTools,
  todoWriteJsonSchema,
  todoWriteTool,
  TODO_WRITE_DESCRIPTION,
  type ToolCall,
  type ToolDefinition,
} from './tools.ts';
export type { AppRouter, RouterInputs, RouterOutputs } from '@agent-tasks/server';
export { CLAUDE_CODE_HOOK_TIMEOUT_MS, claudeMirrorTaskId, claudeTaskListName, runClaudeCodeHook, type ClaudeCodeHookIo } from './claude-code-hook.ts';
