// Workspace router: who am I, settings, and new workspaces.
import { trust, workspaces } from '@agent-tasks/core';
import {
  githubSecretInput,
  githubSecretOutput,
  noInput,
  settings,
  settingsUpdateInput,
  whoamiOutput,
  workspaceCreateInput,
  workspaceCreateOutput,
} from '@agent-tasks/schema';
import { authedProcedure, router } from '../trpc.ts';

export const workspaceRouter = router({
  /** The secret GitHub signs this workspace's webhook deliveries with (admin). */
  githubSecret: authedProcedure
    .input(githubSecretInput)
    .output(githubSecretOutput)
    .mutation(({ ctx, input }) => trust.setGithubSecret(ctx.deps, ctx.actor, input)),
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
