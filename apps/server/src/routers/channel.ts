// Notification channel router (admin): webhooks and chat services that receive a run's notifications, and a test message.
import { channels } from '@agent-tasks/core';
import {
  channel,
  channelCreateInput,
  channelDeleteInput,
  channelListOutput,
  channelSendTestInput,
  channelSendTestOutput,
  noInput,
} from '@agent-tasks/schema';
import { fetchWebhookSender } from '../adapters/webhook-sender.ts';
import { authedProcedure, router } from '../trpc.ts';

/** A test message is one attempt, answered while the admin waits: a shorter timeout than queued deliveries. */
const testSender = fetchWebhookSender(5_000);

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
  sendTest: authedProcedure
    .input(channelSendTestInput)
    .output(channelSendTestOutput)
    .mutation(({ ctx, input }) => channels.sendTestMessage(ctx.deps, testSender, ctx.actor, input)),
});
