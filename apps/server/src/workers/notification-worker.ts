// Background delivery of queued notifications: polls the durable outbox, so nothing is lost across restarts.
import { type Deps, type DeliveryPolicy, type WebhookSender, channels } from '@agent-tasks/core';
import type { Logger } from '../logger.ts';

export interface Worker {
  /** Runs one delivery pass now (and returns when it is done). */
  kick(): Promise<void>;
  stop(): Promise<void>;
}

export function startNotificationWorker(deps: Deps, sender: WebhookSender, log: Logger, policy: DeliveryPolicy & { pollMs: number }): Worker {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const pass = () => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await channels.deliverDue(deps, sender, policy);
      } catch (error) {
        log.error({ err: error }, 'notification delivery pass failed');
      }
    });
    return running;
  };
  const timer = setInterval(() => void pass(), policy.pollMs);
  timer.unref();
  return {
    kick: pass,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
