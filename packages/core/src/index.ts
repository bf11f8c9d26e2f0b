// Public surface of @agent-tasks/core: the domain rules, use cases and the ports they need.
export * from './errors.ts';
export * from './records.ts';
export * from './ports.ts';
export * from './actor.ts';
export * from './present.ts';
export * from './todo-rules.ts';
export * from './session-rules.ts';
export * as workspaces from './workspace-service.ts';
export * as sessions from './session-service.ts';
export * as todos from './todo-service.ts';
export * as tasks from './task-service.ts';
export * as taskFiles from './task-import.ts';
export * from './task-graph.ts';
export { taskTopic } from './task-changes.ts';
export { presentTask } from './task-present.ts';
export { todoTopic } from './todo-service.ts';
