// Background delivery of queued notifications: polls the durable outbox (nothing is lost across restarts) and runs one
// lane per channel — each channel's messages in order, the channels side by side, so one slow or hanging receiver
// holds up only its own channel — with the lanes shared fairly across workspaces: one workspace runs at most its share
// of them, so hanging receivers of one tenant never hold the lanes the others' notifications need. A poll never waits
// for running lanes; it only skips their channels.
import {
  type DeliveryAttempt,
  type Deps,
  type DeliveryPolicy,
  type OutboxRecord,
  type ChannelSender,
  channels,
  isStoreUnavailable,
} from '@agent-tasks/core';
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
  /** Lanes one workspace runs at once, at most (the rest stay free for the other workspaces). */
  workspaceLanes: number;
  /** The outbox claims what it answers (PostgreSQL replicas): ask for no more than the free lanes can take. */
  claims?: boolean;
}

export function startNotificationWorker(deps: Deps, sender: ChannelSender, log: Logger, policy: WorkerPolicy): Worker {
  const passFailed = repeatedFailureLog(log, 'error', 'notification delivery pass failed');
  let stopped = false;
  const stopping = new AbortController();
  let polling: Promise<void> | null = null;
  /** Running lanes by channel, with the workspace each belongs to. */
  const running = new Map<string, { workspaceId: string; lane: Promise<void> }>();
  const perWorkspace = Math.max(1, Math.min(policy.workspaceLanes, policy.lanes));
  /** The last pass left due channels waiting (no free lane, or their workspace at its share): a lane that ends looks again. */
  let heldBack = false;

  function share() {
    const counts = new Map<string, number>();
    for (const { workspaceId } of running.values()) counts.set(workspaceId, (counts.get(workspaceId) ?? 0) + 1);
    return { perWorkspace, running: counts };
  }

  /** Every failed attempt the receiver did not answer in time, and every message given up, is an operator's warning. */
  function report(message: OutboxRecord, attempt: DeliveryAttempt) {
    const about = { workspaceId: message.workspaceId, channelId: message.channelId, messageId: message.id, attempts: attempt.attempts };
    if (attempt.outcome === 'retrying' && attempt.timedOut) {
      log.warn(
        { ...about, error: attempt.error, retryInMs: attempt.delayMs },
        `notification receiver did not answer in time (${attempt.error}): backing off, next attempt in ${Math.round((attempt.delayMs ?? 0) / 100) / 10} s`,
      );
    } else if (attempt.outcome === 'dead') {
      log.warn({ ...about, error: attempt.error }, 'notification given up after its maximum age (dead until an admin retries it)');
    }
  }

  function startLane(channelId: string, messages: OutboxRecord[]) {
    const lane = channels
      .deliverLane(deps, sender, policy, messages, stopping.signal, report)
      .then((delivered) => {
        running.delete(channelId);
        // A claim hands out one message per channel: when it went out, the channel's next one is claimed at once
        // rather than at the next poll, so a queue behind it drains at the receiver's pace. Channels a pass held back
        // take the freed lane at once too.
        if (((policy.claims && delivered === messages.length) || heldBack) && !stopped) void pass();
      })
      .catch((error: unknown) => log.error({ err: error, channelId }, 'notification delivery failed'))
      .finally(() => running.delete(channelId));
    running.set(channelId, { workspaceId: messages[0]?.workspaceId ?? '', lane });
    return lane;
  }

  async function poll(): Promise<Promise<void>[]> {
    const started: Promise<void>[] = [];
    // A round that started lanes looks again: the messages of channels (or workspaces) it just filled may have hidden
    // others' behind them in the batch. Each round starts a lane or ends the pass, so rounds are bounded.
    for (let round = 0; round <= policy.lanes; round++) {
      const free = policy.lanes - running.size;
      if (stopped || free <= 0) break;
      const limit = policy.claims ? Math.min(policy.batch, free) : policy.batch;
      const fair = share();
      const due = await deps.store.outbox.due(deps.clock.now(), limit, { channels: [...running.keys()], share: fair });
      const lanes = channels.fairLanes(due, fair, free);
      heldBack = channels.lanesOf(due).size > lanes.size || channels.workspacesAtShare(fair).length > 0;
      for (const [channelId, messages] of lanes) {
        if (running.has(channelId)) continue;
        started.push(startLane(channelId, messages));
      }
      // What a claim leased but no lane took (a channel whose lane started meanwhile): due again now.
      if (policy.claims) {
        for (const message of due) if (!lanes.has(message.channelId)) await deps.store.outbox.release(message.id, deps.clock.now());
      }
      if (lanes.size === 0 || due.length < limit) break;
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
      if (isStoreUnavailable(error) && error.reason === 'busy')
        log.warn('notification delivery pass: the database is busy; trying again at the next pass');
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
      await Promise.all([...running.values()].map((r) => r.lane));
    },
  };
}
