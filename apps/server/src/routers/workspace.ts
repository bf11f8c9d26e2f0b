// Workspace router: who am I, settings, and new workspaces.
import { workspaces } from '@agent-tasks/core';
import { noInput, settings, settingsUpdateInput, whoamiOutput, workspaceCreateInput, workspaceCreateOutput } from '@agent-tasks/schema';
import { authedProcedure, router } from '../trpc.ts';

export const workspaceRouter = router({
  whoami: authedProcedure
    .input(noInput)
    .output(whoamiOutput)
    .query(({ ctx }) => workspaces.whoami(ctx.deps, ctx.actor)),
  create: authedProcedure
    .input(workspaceCreateInput)
    .output(workspaceCreateOutput)
    .mutation(({ ctx, input }) => workspaces.createWorkspace(ctx.deps, ctx.actor, input)),
  settings: authedProcedure
    .input(noInput)
    .output(settings)
    .query(({ ctx }) => workspaces.getSettings(ctx.deps, ctx.actor)),
  updateSettings: authedProcedure
    .input(settingsUpdateInput)
    .output(settings)
    .mutation(({ ctx, input }) => workspaces.updateSettings(ctx.deps, ctx.actor, input)),
});
