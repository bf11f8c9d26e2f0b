// Public surface of @agent-tasks/schema: every contract shared by server, SDK and UIs.
export * from './limits.ts';
export * from './errors.ts';
export * from './common.ts';
export * from './todo.ts';
export * from './session.ts';
export * from './workspace.ts';
export * from './format-error.ts';
export * from './task.ts';
export * from './trust.ts';
export * from './task-fields.ts';
export * from './run.ts';
export * from './channel.ts';
export * from './dashboard.ts';
export * from './auth.ts';
export * from './shown.ts';
export * from './input-guard.ts';
