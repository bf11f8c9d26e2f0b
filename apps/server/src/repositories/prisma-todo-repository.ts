// Prisma implementation of the domain's TodoRepository; items and changes are stored as JSON text.
import type { TodoRepository, TodoUpdateRecord } from '@agent-tasks/core';
import type { Tx } from './tx.ts';

const select = {
  id: true,
  sessionId: true,
  revision: true,
  turnNumber: true,
  items: true,
  changes: true,
  pending: true,
  inProgress: true,
  completed: true,
  createdAt: true,
} as const;

type Row = { items: string; changes: string; pending: number; inProgress: number; completed: number } & Omit<
  TodoUpdateRecord,
  'items' | 'changes' | 'counts'
>;

const toRecord = ({ items, changes, pending, inProgress, completed, ...rest }: Row): TodoUpdateRecord => ({
  ...rest,
  items: JSON.parse(items),
  changes: JSON.parse(changes),
  counts: { pending, inProgress, completed },
});

export const prismaTodoRepository = (db: Tx): TodoRepository => ({
  async latest(sessionId) {
    const row = await db.todoUpdate.findFirst({ where: { sessionId }, orderBy: { revision: 'desc' }, select });
    return row ? toRecord(row) : null;
  },
  async insert({ items, changes, counts, ...rest }) {
    await db.todoUpdate.create({
      data: { ...rest, items: JSON.stringify(items), changes: JSON.stringify(changes), ...counts },
      select: { id: true },
    });
  },
  page: async (sessionId, before, limit) =>
    (
      await db.todoUpdate.findMany({
        where: { sessionId, ...(before === null ? {} : { revision: { lt: before } }) },
        orderBy: { revision: 'desc' },
        take: limit,
        select,
      })
    ).map(toRecord),
  after: async (sessionId, after, limit) =>
    (
      await db.todoUpdate.findMany({
        where: { sessionId, revision: { gt: after } },
        orderBy: { revision: 'asc' },
        take: limit,
        select,
      })
    ).map(toRecord),
  async atRevisions(refs) {
    const rows = [];
    // Each pair is one lookup on the (sessionId, revision) index; chunked to stay under SQLite's variable limit.
    for (let i = 0; i < refs.length; i += 400) {
      const chunk = refs.slice(i, i + 400).map(({ sessionId, revision }) => ({ sessionId, revision }));
      rows.push(...(await db.todoUpdate.findMany({ where: { OR: chunk }, select })));
    }
    return rows.map(toRecord);
  },
});
