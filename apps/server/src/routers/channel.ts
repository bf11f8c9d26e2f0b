// Notification channel router (admin): webhooks and chat services that receive a run's notifications, a test message,
// and retrying an undelivered notification.
import { channels } from '@agent-tasks/core';
import {
  channel,
  channelCreateInput,
  channelDeleteInput,
  channelListOutput,
  channelSendTestInput,
  channelSendTestOutput,
  noInput,
  outboxMessageView,
  outboxRetryInput,
} from '@agent-tasks/schema';
import { authedProcedure, router } from '../trpc.ts';

export const channelRouter = router({
  create: authedProcedure
    .input(channelCreateInput)
    .output(channel)
    .mutation(({ ctx, input }) => channels.create(ctx.deps, ctx.channelSender, ctx.actor, input)),
  list: authedProcedure
    .input(noInput)
    .output(channelListOutput)
    .query(({ ctx }) => channels.list(ctx.deps, ctx.actor)),
  delete: authedProcedure
    .input(channelDeleteInput)
    .output(channelListOutput)
    .mutation(({ ctx, input }) => channels.deleteChannel(ctx.deps, ctx.actor, input)),
  sendTest: authedProcedure
    .input(channelSendTestInput)
    .output(channelSendTestOutput)
    .mutation(({ ctx, input }) => channels.sendTest(ctx.deps, ctx.channelSender, ctx.actor, input)),
  /** Makes an undelivered notification (dead, or waiting for a retry) due now again (admin). */
  retryDelivery: authedProcedure
    .input(outboxRetryInput)
    .output(outboxMessageView)
    .mutation(({ ctx, input }) => channels.retryDelivery(ctx.deps, ctx.actor, input)),
});
