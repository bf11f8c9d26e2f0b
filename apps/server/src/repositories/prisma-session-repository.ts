// Prisma implementation of the domain's SessionRepository.
import type { SessionRecord, SessionRepository } from '@agent-tasks/core';
import type { TurnState } from '@agent-tasks/schema';
import type { AfterCommit, Tx } from './tx.ts';
import { rawSql } from '../db/direct-sql.ts';

const select = {
  id: true,
  workspaceId: true,
  parentId: true,
  title: true,
  agentName: true,
  tokenHash: true,
  openedByKey: true,
  externalId: true,
  turnNumber: true,
  turnState: true,
  todoRevision: true,
  createdAt: true,
} as const;

function toRecord(row: { turnState: string } & Omit<SessionRecord, 'turnState'>): SessionRecord;
function toRecord(row: null): null;
function toRecord(row: ({ turnState: string } & Omit<SessionRecord, 'turnState'>) | null): SessionRecord | null;
function toRecord(row: ({ turnState: string } & Omit<SessionRecord, 'turnState'>) | null) {
  return row ? { ...row, turnState: row.turnState as TurnState } : null;
}

export const prismaSessionRepository = (
  db: Tx,
  afterCommit: AfterCommit,
  tokensDropped: (hashes: string[]) => void,
): SessionRepository => ({
  async create(session) {
    await db.session.create({ data: session, select: { id: true } });
  },
  async findByHash(tokenHash) {
    const first = await db.session.findUnique({ where: { tokenHash }, select });
    if (first) return toRecord(first);
    return toRecord((await db.sessionToken.findUnique({ where: { tokenHash }, select: { session: { select } } }))?.session ?? null);
  },
  findByExternalId: async (workspaceId, externalId) =>
    toRecord(await db.session.findUnique({ where: { workspaceId_externalId: { workspaceId, externalId } }, select })),
  async addToken(sessionId, tokenHash, at, keep) {
    await db.sessionToken.create({ data: { tokenHash, sessionId, createdAt: at }, select: { tokenHash: true } });
    const older = await db.sessionToken.findMany({
      where: { sessionId },
      orderBy: [{ createdAt: 'desc' }, { tokenHash: 'desc' }],
      skip: keep,
      select: { tokenHash: true },
    });
    if (older.length) {
      const hashes = older.map((t) => t.tokenHash);
      await db.sessionToken.deleteMany({ where: { tokenHash: { in: hashes } } });
      afterCommit(() => tokensDropped(hashes));
    }
    return older.length;
  },
  async get(workspaceId, id) {
    // Every read of a list names its session: a raw statement, as cheap as Prisma gets.
    const [row] = await rawSql(db).$queryRaw<({ turnState: string } & Omit<SessionRecord, 'turnState'>)[]>`
      SELECT "id", "workspaceId", "parentId", "title", "agentName", "tokenHash", "openedByKey", "externalId", "turnNumber",
             "turnState", "todoRevision", "createdAt"
      FROM "Session" WHERE "id" = ${id} AND "workspaceId" = ${workspaceId}`;
    return toRecord(row ?? null);
  },
  list: async (workspaceId) =>
    (await db.session.findMany({ where: { workspaceId }, orderBy: { createdAt: 'asc' }, select })).map((r) => toRecord(r)),
  async setTurn(id, turnNumber, turnState) {
    await db.session.update({ where: { id }, data: { turnNumber, turnState }, select: { id: true } });
  },
  async deleteIfUnused(workspaceId, id) {
    const [runs, starts, tasks] = await Promise.all([
      db.run.count({ where: { sessionId: id } }),
      db.runStart.count({ where: { sessionId: id } }),
      db.task.count({ where: { sessionId: id } }),
    ]);
    if (runs + starts + tasks > 0) return false;
    // Its further tokens go with it (cascade); a session with a list or a subagent stays.
    return (await db.session.deleteMany({ where: { workspaceId, id, todoRevision: 0, children: { none: {} } } })).count === 1;
  },
});
