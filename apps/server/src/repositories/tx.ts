// The Prisma handle a repository works on: the client itself or an interactive transaction.
import type { Db } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export type Tx = Db | Prisma.TransactionClient;

/** Work a repository defers until the surrounding write transaction has committed (at once outside a transaction). */
export type AfterCommit = (fn: () => void) => void;

/** The write under way, as group commit runs it: what waits for its transaction, and what the writes after it see. */
export interface WriteTurn {
  afterCommit: AfterCommit;
  /**
   * Runs once this write is kept in its transaction (done, its savepoint if any released): before the next write of
   * its batch begins, and never if the write is undone. At once outside a transaction.
   */
  afterKept: AfterCommit;
  /** One object per transaction (a batch run again is another one): what a kept write notes is for this one only. */
  transaction: object | undefined;
  /**
   * Whether a refusal undoes this write alone (it runs in a savepoint of its own). When not, what its statements did
   * (a lock taken) holds until its transaction ends: a refusal there rolls back the whole transaction or nothing.
   */
  undoneAlone: boolean;
}

/** The SQL a repository writes where the two databases differ (full-text search, data-modifying `WITH`). */
export type Dialect = 'sqlite' | 'postgres';
