// Public surface of @agent-tasks/sdk.
export {
  createClient,
  openSessionClient,
  type AgentTasksClient,
  type ClientOptions,
  type Subscription,
  type WatchHandlers,
} from './client.ts';
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
export type { AppRouter, RouterInputs, RouterOutputs } from './router-types.ts';
export type { ToolApi, ToolSpec } from '@agent-tasks/core';
export type { ErrorCode, RunEvent, TaskEvent, TodoCard } from '@agent-tasks/schema';
export {
  CLAUDE_CODE_HOOK_TIMEOUT_MS,
  claudeMirrorTaskId,
  claudeTaskListName,
  runClaudeCodeHook,
  type ClaudeCodeHookIo,
} from './claude-code-hook.ts';
export { HOOK_TIMEOUT_MS, mirroredTodo, planText, projectListName, sessionForExternalId } from './hook-support.ts';
export { codexExternalId, runCodexHook } from './codex-hook.ts';
export { geminiExternalId, runGeminiHook } from './gemini-hook.ts';
export {
  AgentTasksPlugin,
  agentTasksOpencodeHooks,
  opencodeExternalId,
  type AgentTasksOpencodeHooks,
  type AgentTasksOpencodeOptions,
} from './opencode-plugin.ts';
export {
  applyHookChanges,
  defaultHookCommand,
  describeHookChanges,
  HOOK_RUNTIMES,
  HookInstallRefusal,
  planHookChanges,
  runHookInstall,
  type FileChange,
  type HookInstallOptions,
  type HookRuntime as HookInstallRuntime,
  type HookScope,
} from './hook-install.ts';
export { hookRuntimes, isHookRuntime, runHook, type HookIo, type HookRuntime } from './hooks.ts';
