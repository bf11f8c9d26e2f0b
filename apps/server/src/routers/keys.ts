// API key router (admin): create, list and revoke keys.
import { keys } from '@agent-tasks/core';
import { keyCreateInput, keyCreateOutput, keyListOutput, keyRevokeInput, keyRevokeOutput, noInput } from '@agent-tasks/schema';
import { authedProcedure, router } from '../trpc.ts';

export const keysRouter = router({
  create: authedProcedure
    .input(keyCreateInput)
    .output(keyCreateOutput)
    .mutation(({ ctx, input }) => keys.create(ctx.deps, ctx.actor, input)),
  list: authedProcedure
    .input(noInput)
    .output(keyListOutput)
    .query(({ ctx }) => keys.list(ctx.deps, ctx.actor)),
  revoke: authedProcedure
    .input(keyRevokeInput)
    .output(keyRevokeOutput)
    .mutation(({ ctx, input }) => keys.revoke(ctx.deps, ctx.actor, input)),
});
