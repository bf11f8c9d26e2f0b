// Contracts of notification channels: their kind (webhook or a chat service), creation, listing and the test message.
import { z } from 'zod';
import { shown } from './shown.ts';
import { id, isoDate, unknownField } from './common.ts';
import { CHANNEL_URL_MAX, NAME_MAX } from './limits.ts';

export const channelKinds = ['webhook', 'slack', 'discord', 'teams'] as const;
export const channelKind = z
  .enum(channelKinds, {
    error: (iss) => `Error: invalid input: \`kind\` must be one of webhook, slack, discord, teams (got ${shown(iss.input)}).`,
  })
  .describe("webhook: our JSON; slack, discord, teams: that service's incoming-webhook message");
export type ChannelKind = z.infer<typeof channelKind>;

export const channel = z.object({ id: z.string(), name: z.string(), kind: channelKind, url: z.string(), createdAt: isoDate });
export type Channel = z.infer<typeof channel>;

export const channelCreateInput = z.strictObject(
  {
    name: z
      .string({ error: 'Error: invalid input: `name` must be a non-empty string.' })
      .trim()
      .min(1, { error: 'Error: invalid input: `name` must be a non-empty string.' })
      .max(NAME_MAX, {
        error: (iss) =>
          `Error: invalid input: \`name\` must be at most ${NAME_MAX} characters (got ${typeof iss.input === 'string' ? [...iss.input].length : 0}).`,
      }),
    kind: channelKind.default('webhook'),
    url: z
      .url({ protocol: /^https?$/, error: 'Error: invalid input: `url` must be an http(s) URL.' })
      .max(CHANNEL_URL_MAX, { error: `Error: invalid input: \`url\` must be at most ${CHANNEL_URL_MAX} characters.` }),
  },
  { error: unknownField() },
);
export const channelListOutput = z.object({ channels: z.array(channel) });
export const channelDeleteInput = z.strictObject({ id }, { error: unknownField() });

export const channelSendTestInput = z.strictObject({ id }, { error: unknownField() });
export const channelSendTestOutput = z.object({
  channelId: z.string(),
  kind: channelKind,
  delivered: z.boolean().describe('Whether the receiver accepted the message (a 2xx answer)'),
  error: z.string().nullable().describe('Why it was not delivered: "HTTP 404", a network error, …'),
});
export type ChannelSendTestOutput = z.infer<typeof channelSendTestOutput>;
