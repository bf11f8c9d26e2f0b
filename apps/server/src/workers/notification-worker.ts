// Background delivery of queued notifications: polls the durable outbox (nothing is lost across restarts) and runs one
// lane per channel — each channel's messages in order, the channels side by side, so one slow or hanging receiver
// holds up only its own channel. A poll never waits for running lanes; it only skips their channels.
import { type Deps, type DeliveryPolicy, type WebhookSender, channels } from '@agent-tasks/core';
import { isDatabaseBusy } from '../db/busy.ts';
import type { Logger } from '../logger.ts';
import { repeatedFailureLog } from '../repeated-failure-log.ts';

export interface Worker {
  /** Starts lanes for what is due now, and resolves when the lanes it started are done. */
  kick(): Promise<void>;
  stop(): Promise<void>;
}

export interface WorkerPolicy extends DeliveryPolicy {
  /** How often the outbox is polled; null: only when kicked. */
  pollMs: number | null;
  /** Channels delivered to at once, at most. */
  lanes: number;
  /** The outbox claims what it answers (PostgreSQL replicas): ask for no more than the free lanes can take. */
  claims?: boolean;
}

export function startNotificationWorker(deps: Deps, sender: WebhookSender, log: Logger, policy: WorkerPolicy): Worker {
  const passFailed = repeatedFailureLog(log, 'error', 'notification delivery pass failed');
  let stopped = false;
  const stopping = new AbortController();
  let polling: Promise<void> | null = null;
  const running = new Map<string, Promise<void>>();

  function startLane(channelId: string, messages: Parameters<typeof channels.deliverLane>[3]) {
    const lane = channels
      .deliverLane(deps, sender, policy, messages, stopping.signal)
      .then((delivered) => {
        running.delete(channelId);
        // A claim hands out one message per channel: when it went out, the channel's next one is claimed at once
        // rather than at the next poll, so a queue behind it drains at the receiver's pace.
        if (policy.claims && delivered === messages.length && !stopped) void pass();
      })
      .catch((error: unknown) => log.error({ err: error, channelId }, 'notification delivery failed'))
      .finally(() => running.delete(channelId));
    running.set(channelId, lane);
    return lane;
  }

  async function poll(): Promise<Promise<void>[]> {
    const free = policy.lanes - running.size;
    if (stopped || free <= 0) return [];
    const limit = policy.claims ? Math.min(policy.batch, free) : policy.batch;
    const due = await deps.store.outbox.due(deps.clock.now(), limit, [...running.keys()]);
    const started: Promise<void>[] = [];
    for (const [channelId, messages] of channels.lanesOf(due)) {
      if (started.length >= free || running.has(channelId)) continue;
      started.push(startLane(channelId, messages));
    }
    return started;
  }

  /** A pass asked for while one polls: run once that one is done (it may have skipped a channel just freed). */
  let again = false;

  function pass(): Promise<Promise<void>[]> {
    if (polling) {
      again = true;
      return polling.then(() => []);
    }
    const current = poll().catch((error: unknown) => {
      // A database held by another writer past the busy timeout: the next pass tries again (an operator's warning).
      if (isDatabaseBusy(error)) log.warn('notification delivery pass: the database is busy; trying again at the next pass');
      else passFailed(error);
      return [] as Promise<void>[];
    });
    polling = current.then(() => undefined);
    void polling.finally(() => {
      polling = null;
      if (again && !stopped) {
        again = false;
        void pass();
      }
    });
    return current;
  }

  const timer = policy.pollMs === null ? undefined : setInterval(() => void pass(), policy.pollMs);
  timer?.unref();
  return {
    async kick() {
      await Promise.all(await pass());
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      stopping.abort(); // a send in progress ends now (recorded as a failed attempt, retried after the restart)
      await polling;
      await Promise.all(running.values());
    },
  };
}
