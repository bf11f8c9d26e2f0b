// The root router: one router per domain, and the types clients import.
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { router } from '../trpc.ts';
import { authRouter } from './auth.ts';
import { channelRouter } from './channel.ts';
import { dashboardRouter } from './dashboard.ts';
import { keysRouter } from './keys.ts';
import { runRouter } from './run.ts';
import { sessionRouter } from './session.ts';
import { taskRouter } from './task.ts';
import { todoRouter } from './todo.ts';
import { workspaceRouter } from './workspace.ts';

export const appRouter = router({
  auth: authRouter,
  workspaces: workspaceRouter,
  keys: keysRouter,
  sessions: sessionRouter,
  todos: todoRouter,
  tasks: taskRouter,
  runs: runRouter,
  channels: channelRouter,
  dashboard: dashboardRouter,
});

export type AppRouter = typeof appRouter;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
