// The open MCP sessions of both endpoints: at most `perKey` per key and `total` in all (past either, a new one is
// refused with 429), each closed after `idleMs` without a request; a closed session's agent session row goes too when
// it recorded nothing.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface McpSessionLimits {
  perKey: number;
  total: number;
  idleMs: number;
}

export interface OpenMcpSession {
  keyId: string;
  workspaceId: string;
  /** The session token's session, when the MCP session was opened with one (null for an API key). */
  sessionId: string | null;
  /** The agent session opened for an API key's MCP session, once its first tool call needed one. */
  opened: { id: string } | null;
  lastSeen: number;
  /** Serves one request of the session (its transport's). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

export function mcpSessionRegistry(limits: McpSessionLimits, onClosed: (session: OpenMcpSession) => Promise<void>) {
  const open = new Map<string, OpenMcpSession>();
  /** Places taken by sessions still initializing, per key: counted, so concurrent opens cannot pass the caps together. */
  const pending = new Map<string, number>();
  const pendingTotal = () => [...pending.values()].reduce((a, b) => a + b, 0);

  async function drop(id: string) {
    const session = open.get(id);
    if (!session) return;
    open.delete(id);
    await session.close().catch(() => undefined);
    await onClosed(session).catch(() => undefined);
  }

  function sweep(now = Date.now()) {
    for (const [id, session] of open) if (now - session.lastSeen > limits.idleMs) void drop(id);
  }
  const timer = setInterval(sweep, Math.max(250, Math.min(30_000, Math.floor(limits.idleMs / 4))));
  timer.unref();

  return {
    limits,
    get: (id: string) => open.get(id),
    /**
     * Takes a place for a new MCP session of this key: a release function (call it once the session is added or has
     * failed), or the refusal when the key or the server is at its cap.
     */
    reserve(keyId: string): { release: () => void } | { refusal: string } {
      sweep();
      const mine = [...open.values()].filter((s) => s.keyId === keyId).length + (pending.get(keyId) ?? 0);
      if (mine >= limits.perKey) {
        return {
          refusal: `Error: too many open MCP sessions for this key (${mine}, at most ${limits.perKey}); end one with DELETE /mcp, or wait: idle ones close after ${Math.round(limits.idleMs / 1000)} s.`,
        };
      }
      const all = open.size + pendingTotal();
      if (all >= limits.total) return { refusal: `Error: the server has too many open MCP sessions (${all}); try again shortly.` };
      pending.set(keyId, (pending.get(keyId) ?? 0) + 1);
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          const left = (pending.get(keyId) ?? 1) - 1;
          if (left > 0) pending.set(keyId, left);
          else pending.delete(keyId);
        },
      };
    },
    add(id: string, session: OpenMcpSession) {
      open.set(id, session);
    },
    /** Forgets a session its transport closed (DELETE, or the client went away). */
    closed(id: string) {
      const session = open.get(id);
      if (!session) return;
      open.delete(id);
      void onClosed(session).catch(() => undefined);
    },
    count: () => open.size,
    async closeAll() {
      clearInterval(timer);
      await Promise.all([...open.keys()].map(drop));
    },
  };
}

export type McpSessionRegistry = ReturnType<typeof mcpSessionRegistry>;
