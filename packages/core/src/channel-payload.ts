// What a channel of each kind receives: our JSON for a webhook, or the chat service's own message shape.
import type { ChannelKind } from '@agent-tasks/schema';
import { chatMessageOf, testChatMessage, type ChatMessage } from './chat-message.ts';
import { discordPayload } from './chat-discord.ts';
import { slackPayload } from './chat-slack.ts';
import { teamsPayload } from './chat-teams.ts';
import type { notificationFor } from './run-notifications.ts';

const chat: Record<Exclude<ChannelKind, 'webhook'>, (m: ChatMessage) => Record<string, unknown>> = {
  slack: slackPayload,
  discord: discordPayload,
  teams: teamsPayload,
};

/** The body POSTed to a channel for a run notification; a webhook gets the notification JSON with its idempotency key. */
export function notificationPayload(
  kind: ChannelKind,
  notification: ReturnType<typeof notificationFor>,
  idempotencyKey: string,
): Record<string, unknown> {
  return kind === 'webhook' ? { ...notification, idempotencyKey } : chat[kind](chatMessageOf(notification));
}

/** The body of a test message to a channel. */
export function testPayload(channel: { id: string; name: string; kind: ChannelKind }, idempotencyKey: string): Record<string, unknown> {
  const message = testChatMessage(channel);
  if (channel.kind !== 'webhook') return chat[channel.kind](message);
  return {
    kind: 'test',
    title: message.title,
    heading: message.heading,
    channel: { id: channel.id, name: channel.name, kind: channel.kind },
    text: [message.heading, message.title, ...message.notes].join('\n'),
    idempotencyKey,
  };
}
