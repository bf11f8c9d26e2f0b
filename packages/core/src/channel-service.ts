// Notification channels (admin-managed webhooks and chat services) and the delivery of queued notifications through the outbox.
import type { ChannelKind } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import type { Deps, WebhookSender } from './ports.ts';
import type { ChannelRecord } from './records.ts';
import { testPayload } from './channel-payload.ts';
import { retryDelay } from './run-notifications.ts';

const present = (c: ChannelRecord) => ({ id: c.id, name: c.name, kind: c.kind, url: c.url, createdAt: c.createdAt.toISOString() });

export async function createChannel(deps: Deps, actor: Actor, input: { name: string; url: string; kind?: ChannelKind | undefined }) {
  requireRole(actor, 'admin');
  const channel: ChannelRecord = {
    id: deps.ids.id('ch'),
    workspaceId: actor.workspaceId,
    name: input.name,
    kind: input.kind ?? 'webhook',
    url: input.url,
    createdAt: deps.clock.now(),
  };
  await deps.store.transaction((repos) => repos.channels.create(channel));
  return present(channel);
}

export async function listChannels(deps: Deps, actor: Actor) {
  requireRole(actor, 'admin');
  return { channels: (await deps.store.channels.list(actor.workspaceId)).map(present) };
}

export async function deleteChannel(deps: Deps, actor: Actor, input: { id: string }) {
  requireRole(actor, 'admin');
  const deleted = await deps.store.transaction(async (repos) => {
    const found = await repos.channels.delete(actor.workspaceId, input.id);
    if (found) await repos.outbox.dropPending(input.id);
    return found;
  });
  if (!deleted) throw new DomainError('NOT_FOUND', `Error: notification channel ${input.id} not found.`);
  return listChannels(deps, actor);
}

/**
 * Sends a test message to one channel now, in the channel's kind, and answers whether its receiver accepted it. Not
 * queued and not retried: the answer is the outcome of this one attempt, and nothing is recorded.
 */
export async function sendTestMessage(deps: Deps, sender: WebhookSender, actor: Actor, input: { id: string }) {
  requireRole(actor, 'admin');
  const channel = (await deps.store.channels.list(actor.workspaceId)).find((c) => c.id === input.id);
  if (!channel) throw new DomainError('NOT_FOUND', `Error: notification channel ${input.id} not found.`);
  const idempotencyKey = `test:${channel.id}:${deps.ids.uuid()}`;
  const result = await sender.send(channel.url, testPayload(channel, idempotencyKey), idempotencyKey);
  return { channelId: channel.id, kind: channel.kind, delivered: result.ok, error: result.ok ? null : result.error };
}

export interface DeliveryPolicy {
  baseMs: number;
  maxMs: number;
  batch: number;
}

/**
 * Delivers the due notifications: each is POSTed with its idempotency key; a failure is retried later with
 * exponential backoff. At least once: a message is marked delivered only after its receiver accepted it.
 */
export async function deliverDue(deps: Deps, sender: WebhookSender, policy: DeliveryPolicy) {
  const due = await deps.store.outbox.due(deps.clock.now(), policy.batch);
  // Sent side by side, so one slow receiver does not hold up the others.
  const results = await Promise.all(
    due.map(async (message) => ({ message, result: await sender.send(message.url, message.payload, message.idempotencyKey) })),
  );
  let delivered = 0;
  for (const { message, result } of results) {
    const now = deps.clock.now();
    const attempts = message.attempts + 1;
    if (result.ok) {
      await deps.store.transaction((repos) => repos.outbox.markDelivered(message.id, now, attempts));
      delivered++;
    } else {
      const next = new Date(now.getTime() + retryDelay(attempts, policy.baseMs, policy.maxMs));
      await deps.store.transaction((repos) => repos.outbox.markFailed(message.id, attempts, next, result.error));
    }
  }
  return { attempted: due.length, delivered };
}

export async function runNotifications(deps: Deps, actor: Actor, input: { runId: string }) {
  const run = await deps.store.runs.get(actor.workspaceId, input.runId);
  if (!run) throw new DomainError('NOT_FOUND', `Error: run ${input.runId} not found.`);
  return {
    notifications: (await deps.store.outbox.forRun(run.id)).map((m) => ({
      kind: m.kind,
      channelId: m.channelId,
      attempts: m.attempts,
      delivered: m.deliveredAt !== null,
      lastError: m.lastError,
    })),
  };
}
