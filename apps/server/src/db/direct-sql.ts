// Raw SQL for the repositories: on our own SQLite connections straight to the connection, on PostgreSQL straight to
// node-postgres (db/postgres-raw.ts): the answer Prisma's $queryRaw would give, without its client's request pipeline.
import { Prisma } from '../generated/prisma/client.ts';
import type { SqliteConnection } from './sqlite-adapter.ts';

/** What the repositories call: Prisma's raw-query methods, with the same signatures and answers. */
export type RawSql = {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
};

const direct = new WeakMap<object, RawSql>();

/** A driver error as a raw query's: SQLite's own words for its message, the adapter's error (kind, code) as its cause. */
const rawError = (error: unknown): never => {
  const original = (error as { cause?: { originalMessage?: unknown } })?.cause?.originalMessage;
  throw typeof original === 'string' ? new Error(original, { cause: error }) : error;
};

/** A tagged template's statement, or the one given. */
export const statementOf = (query: TemplateStringsArray | Prisma.Sql, values: unknown[]): Prisma.Sql =>
  query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);

/** Runs the raw statements of `client` (a Prisma client) with `raw` instead of Prisma's own methods. */
export function useRawSql(client: object, raw: RawSql): void {
  direct.set(client, raw);
}

/** Runs the raw statements of `client` (a Prisma client on this one connection) on the connection itself. */
export function runRawOn(client: object, connection: SqliteConnection): void {
  useRawSql(client, {
    $queryRaw<T>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      const { sql, values: bound } = statementOf(query, values);
      return connection.run(() => connection.rawRows(sql, bound) as T).catch(rawError);
    },
    $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      const { sql, values: bound } = statementOf(query, values);
      return connection.run(() => connection.rawChanges(sql, bound)).catch(rawError);
    },
  });
}

/** The raw-query methods for `db`: the connection's own for one of ours on SQLite, else Prisma's. */
export const rawSql = (db: RawSql): RawSql => direct.get(db) ?? db;
