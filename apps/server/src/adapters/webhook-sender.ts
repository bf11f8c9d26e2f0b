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
        return { ok: false, error: failureText(error, timeoutMs) };
      }
    },
  };
}

/** Why a delivery failed, in words an admin can act on (fetch's own "fetch failed" says nothing). */
function failureText(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs / 1000} s`;
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the receiver',
    ENOTFOUND: 'host name not found',
    EAI_AGAIN: 'host name lookup failed',
    EHOSTUNREACH: 'host unreachable',
    ETIMEDOUT: 'connection timed out',
    UND_ERR_SOCKET: 'connection closed by the receiver',
  };
  if (typeof code === 'string') return reasons[code] ?? `network error (${code})`;
  return 'network error';
}
