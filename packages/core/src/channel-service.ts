// Notification channels (admin-managed webhooks and chat services) and the delivery of queued notifications through the outbox.
import type { ChannelKind } from '@agent-tasks/schema';
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import type { Deps, LaneShare, StopSignal, ChannelSender } from './ports.ts';
import type { ChannelRecord, OutboxRecord } from './records.ts';
import { testPayload } from './channel-payload.ts';
import { retryDelay } from './run-notifications.ts';

const present = (c: ChannelRecord) => ({ id: c.id, name: c.name, kind: c.kind, url: c.url, createdAt: c.createdAt.toISOString() });

/** The refusal of a receiver URL that may not be reached, with the operator's way out for internal receivers. */
function unreachable(problem: string) {
  const hint = problem.includes('public address') ? ' (an operator can allow internal receivers with AGENT_TASKS_CHANNEL_ALLOWLIST)' : '';
  return new DomainError('INVALID_INPUT', `Error: invalid input: \`url\` ${problem}${hint}.`);
}

/** Adds a channel; its URL must reach a public address after DNS resolution (or one the operator allowed). */
export async function create(
  deps: Deps,
  sender: ChannelSender,
  actor: Actor,
  input: { name: string; url: string; kind?: ChannelKind | undefined },
) {
  requireRole(actor, 'admin');
  const problem = await sender.check(input.url);
  if (problem) throw unreachable(problem);
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

export async function list(deps: Deps, actor: Actor) {
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
  return list(deps, actor);
}

/** A test message is one attempt, answered while the admin waits: a shorter timeout than queued deliveries. */
export const TEST_MESSAGE_TIMEOUT_MS = 5_000;

/**
 * Sends a test message to one channel now, in the channel's kind, and answers whether its receiver accepted it. Not
 * queued and not retried: the answer is the outcome of this one attempt, and nothing is recorded.
 */
export async function sendTest(deps: Deps, sender: ChannelSender, actor: Actor, input: { id: string }) {
  requireRole(actor, 'admin');
  const channel = (await deps.store.channels.list(actor.workspaceId)).find((c) => c.id === input.id);
  if (!channel) throw new DomainError('NOT_FOUND', `Error: notification channel ${input.id} not found.`);
  const idempotencyKey = `test:${channel.id}:${deps.ids.uuid()}`;
  const result = await sender.send(channel.url, testPayload(channel, idempotencyKey), idempotencyKey, {
    timeoutMs: TEST_MESSAGE_TIMEOUT_MS,
  });
  return { channelId: channel.id, kind: channel.kind, delivered: result.ok, error: result.ok ? null : result.error };
}

export interface DeliveryPolicy {
  baseMs: number;
  maxMs: number;
  /** How long a message is retried, from its creation (or an admin's retry), before it is given up as dead. */
  maxAgeMs: number;
  batch: number;
  /** A number in [0, 1): each retry delay is stretched by up to half of itself, so retries spread out. */
  jitter?: () => number;
  /**
   * The least delay after an attempt the receiver did not answer in time: a receiver that answers late has likely
   * handled the message already, so it is not sent again at the pace of ordinary failures.
   */
  afterTimeoutMs?: number;
}

/** The delay before the next attempt: the exponential backoff, stretched by a random 0–50 %. */
export function jitteredDelay(attempts: number, policy: DeliveryPolicy) {
  const delay = retryDelay(attempts, policy.baseMs, policy.maxMs);
  return Math.round(delay * (1 + (policy.jitter?.() ?? 0) / 2));
}

export type DeliveryOutcome = 'delivered' | 'retrying' | 'dead';

/** What one attempt came to, for the worker's log: a failure's error, whether it timed out, and the delay to the next. */
export interface DeliveryAttempt {
  outcome: DeliveryOutcome;
  attempts: number;
  error: string | null;
  timedOut: boolean;
  /** Until the next attempt (retrying only). */
  delayMs: number | null;
}

/**
 * One attempt at one message: delivered, or retried later with backoff — the channel's other waiting messages wait
 * as long, so a failing receiver is not hammered, and one that did not answer in time waits at least
 * `afterTimeoutMs` — or, when the next attempt would fall past the message's maximum age, given up as dead (kept,
 * with its last error, for an admin to see and retry).
 */
export async function deliverMessage(
  deps: Deps,
  sender: ChannelSender,
  policy: DeliveryPolicy,
  message: OutboxRecord,
  signal?: StopSignal,
): Promise<DeliveryAttempt> {
  const result = await sender.send(message.url, message.payload, message.idempotencyKey, signal ? { signal } : {});
  const now = deps.clock.now();
  const attempts = message.attempts + 1;
  if (result.ok) {
    await deps.store.transaction((repos) => repos.outbox.markDelivered(message.id, now, attempts));
    return { outcome: 'delivered', attempts, error: null, timedOut: false, delayMs: null };
  }
  const timedOut = result.timedOut === true;
  const delayMs = Math.max(jitteredDelay(attempts, policy), timedOut ? (policy.afterTimeoutMs ?? 0) : 0);
  const next = new Date(now.getTime() + delayMs);
  const giveUpAt = (message.retriedAt ?? message.createdAt).getTime() + policy.maxAgeMs;
  if (next.getTime() > giveUpAt) {
    await deps.store.transaction((repos) => repos.outbox.markDead(message.id, attempts, now, result.error));
    return { outcome: 'dead', attempts, error: result.error, timedOut, delayMs: null };
  }
  await deps.store.transaction((repos) => repos.outbox.markFailed(message.id, attempts, next, result.error));
  return { outcome: 'retrying', attempts, error: result.error, timedOut, delayMs };
}

/**
 * A channel's due messages, in order, one at a time; stops at the first that is not delivered (the rest wait with
 * it), and before the next message once `signal` aborts. `report` hears every attempt.
 */
export async function deliverLane(
  deps: Deps,
  sender: ChannelSender,
  policy: DeliveryPolicy,
  messages: readonly OutboxRecord[],
  signal?: StopSignal,
  report?: (message: OutboxRecord, attempt: DeliveryAttempt) => void,
) {
  let delivered = 0;
  for (const message of messages) {
    if (signal?.aborted) {
      // Claimed (leased, on PostgreSQL) but never tried: due again now, so a restart or another replica sends it.
      await deps.store.outbox.release(message.id, deps.clock.now());
      break;
    }
    const attempt = await deliverMessage(deps, sender, policy, message, signal);
    report?.(message, attempt);
    if (attempt.outcome !== 'delivered') break;
    delivered++;
  }
  return delivered;
}

/** Due messages grouped by channel, each channel's in order. */
export function lanesOf(messages: readonly OutboxRecord[]): Map<string, OutboxRecord[]> {
  const lanes = new Map<string, OutboxRecord[]>();
  for (const m of messages) lanes.set(m.channelId, [...(lanes.get(m.channelId) ?? []), m]);
  return lanes;
}

/**
 * The lanes to start, fairly shared across workspaces: no workspace runs more than `share.perWorkspace` lanes (those it
 * runs already counted), and the workspaces take turns — each one's next channel before anyone's channel after it — so
 * the workspace running the fewest lanes goes first; at most `free` lanes, in that order. A workspace whose receivers
 * hang thus holds its share of the lanes, never all of them.
 */
export function fairLanes(messages: readonly OutboxRecord[], share: LaneShare, free: number): Map<string, OutboxRecord[]> {
  const seen = new Map<string, number>();
  const candidates = [...lanesOf(messages)].map(([channelId, lane], order) => {
    const workspaceId = lane[0]?.workspaceId ?? '';
    const turn = (seen.get(workspaceId) ?? share.running.get(workspaceId) ?? 0) + 1;
    seen.set(workspaceId, turn);
    return { channelId, lane, turn, order };
  });
  const allowed = candidates.filter((c) => c.turn <= share.perWorkspace).sort((a, b) => a.turn - b.turn || a.order - b.order);
  return new Map(allowed.slice(0, Math.max(0, free)).map((c) => [c.channelId, c.lane]));
}

/** The workspaces already running their share of the lanes: a pass leaves them out. */
export const workspacesAtShare = (share: LaneShare) =>
  [...share.running].filter(([, running]) => running >= share.perWorkspace).map(([workspaceId]) => workspaceId);

/**
 * One delivery pass: the due notifications, each channel's in order and the channels side by side, so one slow
 * receiver holds up only its own channel. At least once: a message is marked delivered only after its receiver
 * accepted it. (The worker runs lanes without waiting for a whole pass; this is the same work, awaited.)
 */
export async function deliverDue(deps: Deps, sender: ChannelSender, policy: DeliveryPolicy) {
  const due = await deps.store.outbox.due(deps.clock.now(), policy.batch);
  const counts = await Promise.all([...lanesOf(due).values()].map((lane) => deliverLane(deps, sender, policy, lane)));
  return { attempted: due.length, delivered: counts.reduce((a, b) => a + b, 0) };
}

/** An admin makes an undelivered message (dead, or waiting for its next attempt) due now, with a fresh maximum age. */
export async function retryDelivery(deps: Deps, actor: Actor, input: { id: string }) {
  requireRole(actor, 'admin');
  const message = await deps.store.transaction(async (repos) => {
    const found = await repos.outbox.get(actor.workspaceId, input.id);
    if (!found) throw new DomainError('NOT_FOUND', `Error: notification ${input.id} not found.`);
    if (found.deliveredAt) throw new DomainError('CONFLICT', `Error: notification ${input.id} was already delivered.`);
    const now = deps.clock.now();
    await repos.outbox.retry(found.id, now);
    return { ...found, deadAt: null, retriedAt: now, nextAttemptAt: now };
  });
  return presentOutboxMessage(message);
}

/** Where a message stands: delivered, dead (given up), retrying (an attempt failed) or pending (not tried yet). */
export const outboxState = (m: OutboxRecord): 'delivered' | 'dead' | 'retrying' | 'pending' =>
  m.deliveredAt ? 'delivered' : m.deadAt ? 'dead' : m.attempts > 0 ? 'retrying' : 'pending';

/** A message as the admin's delivery table shows it. */
export const presentOutboxMessage = (m: OutboxRecord) => ({
  id: m.id,
  channelId: m.channelId,
  url: m.url,
  runId: m.runId,
  kind: m.kind,
  state: outboxState(m),
  attempts: m.attempts,
  lastError: m.lastError,
  nextAttemptAt: m.deliveredAt || m.deadAt ? null : m.nextAttemptAt.toISOString(),
  deliveredAt: m.deliveredAt ? m.deliveredAt.toISOString() : null,
  deadAt: m.deadAt ? m.deadAt.toISOString() : null,
  createdAt: m.createdAt.toISOString(),
});

export async function runNotifications(deps: Deps, actor: Actor, input: { runId: string }) {
  const run = await deps.store.runs.get(actor.workspaceId, input.runId);
  if (!run) throw new DomainError('NOT_FOUND', `Error: run ${input.runId} not found.`);
  return {
    notifications: (await deps.store.outbox.forRun(run.id)).map((m) => ({
      kind: m.kind,
      channelId: m.channelId,
      attempts: m.attempts,
      delivered: m.deliveredAt !== null,
      // Why a delivery failed can tell open ports from closed ones: only an admin reads it.
      lastError: actor.role === 'admin' ? m.lastError : null,
    })),
  };
}
