// The /mcp endpoint's sessions in the database, so that every worker (and a restarted server) can serve them.
import type { Db } from '../db/client.ts';

export interface McpSessionRecord {
  id: string;
  workspaceId: string;
  keyId: string;
  /** The session token's session when the MCP session was opened with one (its requests must come with it). */
  callerSessionId: string | null;
  /** The agent session opened for an API key, which the tools act as; null: they act as the caller. */
  agentSessionId: string | null;
  /** Which MCP server it belongs to (agent-tasks at /mcp, moira at /mcp/moira). */
  server: string;
  createdAt: Date;
  lastSeenAt: Date;
  closedAt: Date | null;
}

const select = {
  id: true,
  workspaceId: true,
  keyId: true,
  callerSessionId: true,
  agentSessionId: true,
  server: true,
  createdAt: true,
  lastSeenAt: true,
  closedAt: true,
} as const;

/** Caps on open MCP sessions (counted across both MCP servers and every worker): per key and in all. */
export interface McpSessionCaps {
  perKey: number;
  total: number;
}

export type McpOpenResult = { opened: true } | { opened: false; over: 'key' | 'total'; count: number };

/** The key of the PostgreSQL advisory lock that puts MCP session opens in line. */
const OPEN_LOCK = 7_421_001;

export const prismaMcpSessionRepository = (db: Db, options: { postgres?: boolean } = {}) => ({
  /**
   * Records a new session unless its key or the server is at its cap of sessions used since `activeSince` (counted and
   * inserted in one transaction, BEGIN IMMEDIATE, so concurrent opens — in any worker — cannot pass together). On
   * PostgreSQL (READ COMMITTED: two transactions could count the same rows) an advisory lock held to the commit does.
   */
  open: (session: McpSessionRecord, caps: McpSessionCaps, activeSince: Date): Promise<McpOpenResult> =>
    db.$transaction(async (tx) => {
      if (options.postgres) await tx.$queryRawUnsafe(`SELECT 1 AS "locked" FROM pg_advisory_xact_lock(${OPEN_LOCK})`);
      const open = { closedAt: null, lastSeenAt: { gt: activeSince } };
      const mine = await tx.mcpSession.count({ where: { ...open, keyId: session.keyId } });
      if (mine >= caps.perKey) return { opened: false, over: 'key', count: mine } as const;
      const all = await tx.mcpSession.count({ where: open });
      if (all >= caps.total) return { opened: false, over: 'total', count: all } as const;
      await tx.mcpSession.create({ data: session, select: { id: true } });
      return { opened: true } as const;
    }),
  get: (id: string): Promise<McpSessionRecord | null> => db.mcpSession.findUnique({ where: { id }, select }),
  async touch(id: string, at: Date): Promise<void> {
    await db.mcpSession.updateMany({ where: { id, closedAt: null }, data: { lastSeenAt: at } });
  },
  /** Records the agent session opened for the MCP session's tools; false when another request recorded one first. */
  async setAgentSession(id: string, agentSessionId: string): Promise<boolean> {
    const { count } = await db.mcpSession.updateMany({ where: { id, agentSessionId: null }, data: { agentSessionId } });
    return count === 1;
  },
  /** The server's sessions closed, or unused since `cutoff` (to be removed). */
  stale: (server: string, cutoff: Date): Promise<McpSessionRecord[]> =>
    db.mcpSession.findMany({ where: { server, OR: [{ closedAt: { not: null } }, { lastSeenAt: { lte: cutoff } }] }, select, take: 500 }),
  /** Removes a session's row; the record when this call removed it (so exactly one caller cleans up after it). */
  async remove(id: string): Promise<McpSessionRecord | null> {
    const record = await db.mcpSession.findUnique({ where: { id }, select });
    if (!record) return null;
    const { count } = await db.mcpSession.deleteMany({ where: { id } });
    return count === 1 ? record : null;
  },
});

export type McpSessionRepository = ReturnType<typeof prismaMcpSessionRepository>;
