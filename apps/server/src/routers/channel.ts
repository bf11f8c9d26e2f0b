// Notification channel router (admin): webhooks that receive a run's notifications as a JSON POST.
import { channels } from '@agent-tasks/core';
import { channel, channelCreateInput, channelDeleteInput, channelListOutput, noInput } from '@agent-tasks/schema';
import { authedProcedure, router } from '../trpc.ts';

export const channelRouter = router({
  create: authedProcedure
    .input(channelCreateInput)
    .output(channel)
    .mutation(({ ctx, input }) => channels.createChannel(ctx.deps, ctx.actor, input)),
  list: authedProcedure
    .input(noInput)
    .output(channelListOutput)
    .query(({ ctx }) => channels.listChannels(ctx.deps, ctx.actor)),
  delete: authedProcedure
    .input(channelDeleteInput)
    .output(channelListOutput)
    .mutation(({ ctx, input }) => channels.deleteChannel(ctx.deps, ctx.actor, input)),
});
