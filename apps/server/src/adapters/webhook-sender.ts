// Sends a notification as a JSON POST with its idempotency key; any non-2xx answer or network error is a failure.
import type { WebhookSender } from '@agent-tasks/core';

export function fetchWebhookSender(timeoutMs = 10_000): WebhookSender {
  return {
    async send(url, body, idempotencyKey) {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey, 'user-agent': 'agent-tasks' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.arrayBuffer().catch(() => undefined);
        return response.ok ? { ok: true } : { ok: false, error: `HTTP ${response.status}` };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
      }
    },
  };
}
