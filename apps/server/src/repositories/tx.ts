// The Prisma handle a repository works on: the client itself or an interactive transaction.
import type { Db } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export type Tx = Db | Prisma.TransactionClient;

/** Work a repository defers until the surrounding write transaction has committed (at once outside a transaction). */
export type AfterCommit = (fn: () => void) => void;

/** The SQL a repository writes where the two databases differ (full-text search, data-modifying `WITH`). */
export type Dialect = 'sqlite' | 'postgres';
