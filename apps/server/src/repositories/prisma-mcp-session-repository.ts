// The /mcp endpoint's sessions in the database, so that every worker (and a restarted server) can serve them.
import { StoreUnavailable } from '@agent-tasks/core';
import { withStoreErrors } from './store-errors.ts';
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

/** Caps on open MCP sessions (counted across both MCP servers and every worker): per key, per workspace and in all. */
export interface McpSessionCaps {
  perKey: number;
  perWorkspace: number;
  total: number;
}

/** Opened (having closed, to make room, the least recently used session of a workspace over its share), or refused. */
export type McpOpenResult =
  { opened: true; closed: McpSessionRecord | null } | { opened: false; over: 'key' | 'workspace' | 'total'; count: number };

/** The advisory lock every replica takes to count and open MCP sessions (PostgreSQL; any fixed 64-bit number). */
const MCP_OPEN_LOCK = 7_411_202_611;

/** A workspace's share of the total: an equal part for each workspace holding sessions (the opener's counted), at least 1. */
export const fairShare = (total: number, workspaces: number) => Math.max(1, Math.floor(total / Math.max(1, workspaces)));

/** How long an open waits for a connection to begin its transaction on (Prisma's default is 2 s), and may then run. */
const OPEN_TRANSACTION = { maxWait: 60_000, timeout: 30_000 };

/** An open whose client went away while it waited its turn: nothing is opened, and nobody reads the answer. */
export class McpOpenAbandoned extends Error {
  constructor() {
    super('the client went away before its MCP session was opened');
    this.name = 'McpOpenAbandoned';
  }
}

/**
 * Runs work one at a time, in the order it came. A caller still waiting for its turn `maxWaitMs` after it came is
 * refused busy (StoreUnavailable, 503), and one whose `signal` aborted meanwhile leaves the line: neither runs.
 */
export function turns(maxWaitMs: number) {
  let tail: Promise<void> = Promise.resolve();
  return async <T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    const previous = tail;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    // The next caller's turn comes when the one before this is done and this one is (run, refused or gone).
    tail = previous.then(() => mine);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const outcome = await Promise.race([
        previous.then(() => 'turn' as const),
        new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), maxWaitMs))),
        new Promise<'gone'>((resolve) => {
          if (signal?.aborted) return resolve('gone');
          onAbort = () => resolve('gone');
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      if (outcome === 'gone' || signal?.aborted) throw new McpOpenAbandoned();
      if (outcome === 'late')
        throw new StoreUnavailable('busy', new Error(`waited past ${maxWaitMs} ms for its turn to open an MCP session`));
      return await work();
    } finally {
      clearTimeout(timer);
      done();
    }
  };
}

/**
 * `postgres`: opens take an advisory transaction lock, as READ COMMITTED would let two replicas pass a cap together.
 * `turnWaitMs`: the longest an open waits for its turn in this process (the busy timeout), then it is answered busy.
 */
const mcpSessionRepository = (db: Db, options: { postgres?: boolean; turnWaitMs?: number }) => {
  // Opens in this process take turns before they take a connection: each would otherwise hold one of the shared pool's
  // connections while it waits for the lock, and a flood of opens (25 at once) took every connection, starving reads
  // and failing opens past Prisma's 2 s wait for a connection ("Unable to start a transaction in the given time").
  // While another replica holds the lock the line would grow without end (the k-th answered after k lock timeouts):
  // an open waits for its turn no longer than the busy timeout.
  const inTurn = turns(options.turnWaitMs ?? 5_000);
  return {
    /**
     * Records a new session unless its key or workspace is at its cap of sessions used since `activeSince`. At the total,
     * a workspace below its fair share still gets in: the least recently used session of the workspace furthest over its
     * share is closed for it (so no workspace can take the others' room); one at or over its share is refused. Counted,
     * closed and inserted in one transaction — BEGIN IMMEDIATE on SQLite, under pg_advisory_xact_lock on PostgreSQL — so
     * concurrent opens, in any worker or replica, cannot pass together. A key already at its cap is refused from a read
     * first, without waiting its turn for the lock (a flood of opens by one key is mostly that). Rejects with
     * McpOpenAbandoned when `signal` aborts before its turn.
     */
    open: async (session: McpSessionRecord, caps: McpSessionCaps, activeSince: Date, signal?: AbortSignal): Promise<McpOpenResult> => {
      const held = await db.mcpSession.count({ where: { closedAt: null, lastSeenAt: { gt: activeSince }, keyId: session.keyId } });
      if (held >= caps.perKey) return { opened: false, over: 'key', count: held };
      return inTurn(
        () =>
          db.$transaction(async (tx) => {
            if (options.postgres) await tx.$executeRaw`SELECT pg_advisory_xact_lock(${MCP_OPEN_LOCK}::bigint)`;
            const open = { closedAt: null, lastSeenAt: { gt: activeSince } };
            const mine = await tx.mcpSession.count({ where: { ...open, keyId: session.keyId } });
            if (mine >= caps.perKey) return { opened: false, over: 'key', count: mine } as const;
            const ours = await tx.mcpSession.count({ where: { ...open, workspaceId: session.workspaceId } });
            if (ours >= caps.perWorkspace) return { opened: false, over: 'workspace', count: ours } as const;
            const all = await tx.mcpSession.count({ where: open });
            let closed: McpSessionRecord | null = null;
            if (all >= caps.total) {
              const held = await tx.mcpSession.groupBy({ by: ['workspaceId'], where: open, _count: { _all: true } });
              const share = fairShare(caps.total, held.length + (ours === 0 ? 1 : 0));
              const over = held.filter((w) => w._count._all > share).sort((a, b) => b._count._all - a._count._all)[0];
              if (ours >= share || !over) return { opened: false, over: 'total', count: all } as const;
              closed = await tx.mcpSession.findFirst({
                where: { ...open, workspaceId: over.workspaceId },
                orderBy: [{ lastSeenAt: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
                select,
              });
              if (!closed) return { opened: false, over: 'total', count: all } as const;
              await tx.mcpSession.deleteMany({ where: { id: closed.id } });
            }
            await tx.mcpSession.create({ data: session, select: { id: true } });
            return { opened: true, closed } as const;
          }, OPEN_TRANSACTION),
        signal,
      );
    },
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
  };
};

/** The repository, its driver errors turned into port-level ones (StoreUnavailable), as the Store's are. */
export const prismaMcpSessionRepository = (db: Db, options: { postgres?: boolean; turnWaitMs?: number } = {}) =>
  withStoreErrors(mcpSessionRepository(db, options));

export type McpSessionRepository = ReturnType<typeof prismaMcpSessionRepository>;
