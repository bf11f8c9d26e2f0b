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

export const prismaMcpSessionRepository = (db: Db) => ({
  async create(session: McpSessionRecord): Promise<void> {
    await db.mcpSession.create({ data: session, select: { id: true } });
  },
  get: (id: string): Promise<McpSessionRecord | null> => db.mcpSession.findUnique({ where: { id }, select }),
  async touch(id: string, at: Date): Promise<void> {
    await db.mcpSession.updateMany({ where: { id, closedAt: null }, data: { lastSeenAt: at } });
  },
  async close(id: string, at: Date): Promise<void> {
    await db.mcpSession.updateMany({ where: { id, closedAt: null }, data: { closedAt: at } });
  },
});

export type McpSessionRepository = ReturnType<typeof prismaMcpSessionRepository>;
