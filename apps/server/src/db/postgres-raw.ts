// Raw SQL on PostgreSQL straight to node-postgres: the answer Prisma's $queryRaw gives there (its argument encoding, its
// value for each column type), without its client's request pipeline, which costs several times the statement.
import pg from 'pg';
import { Prisma } from '../generated/prisma/client.ts';
import { type RawSql, statementOf } from './direct-sql.ts';

/** What a statement runs on: a pool (a connection per call) or the connection of a transaction under way. */
export interface PgQueryable {
  query(config: pg.QueryArrayConfig): Promise<pg.QueryArrayResult>;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A date as Prisma's adapter sends it: UTC, `YYYY-MM-DD HH:MM:SS.mmm`, whatever the process's time zone. */
const utcTimestamp = (date: Date) =>
  `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
  `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}` +
  (date.getUTCMilliseconds() ? `.${pad(date.getUTCMilliseconds(), 3)}` : '');

/** A bound value as Prisma encodes a raw query's: dates in UTC, big integers and decimals as text, objects as JSON. */
function argOf(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return utcTimestamp(value);
  if (typeof value === 'bigint') return value.toString();
  if (Prisma.Decimal.isDecimal(value)) return value.toJSON();
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return value.map(argOf);
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

const { builtins } = pg.types;
const timestamp = (text: string) => new Date(`${text.replace(' ', 'T')}+00:00`);
/** PostgreSQL's text for the column types whose value Prisma gives differently from node-postgres's defaults. */
const parsers: Partial<Record<number, (text: string) => unknown>> = {
  [builtins.INT8]: (text) => BigInt(text),
  [builtins.OID]: (text) => BigInt(text),
  [builtins.NUMERIC]: (text) => new Prisma.Decimal(text),
  [builtins.MONEY]: (text) => new Prisma.Decimal(text.slice(1)),
  [builtins.TIMESTAMP]: timestamp,
  [builtins.TIMESTAMPTZ]: (text) => new Date(text.replace(' ', 'T').replace(/[+-]\d{2}(:\d{2})?$/, '+00:00')),
  [builtins.DATE]: (text) => new Date(text),
  [builtins.TIME]: (text) => new Date(`1970-01-01T${text}Z`),
  [builtins.JSON]: (text) => JSON.parse(text) as unknown,
  [builtins.JSONB]: (text) => JSON.parse(text) as unknown,
};
const defaultParser = (oid: number, format?: string): ((text: string) => unknown) =>
  pg.types.getTypeParser(oid, format as 'text') as (text: string) => unknown;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    ((format ?? 'text') === 'text' ? parsers[oid] : undefined) ?? defaultParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * A server's refusal as Prisma words a raw query's (P2010: "Raw query failed. Code: `23505`. Message: `…`"), with the
 * adapter's view of it (the code, for "busy") as its cause; a broken connection's error as it is.
 */
export function postgresError(error: unknown): never {
  const e = error as { code?: unknown; severity?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && typeof e.severity === 'string' && typeof e.message === 'string') {
    throw new Error(`Raw query failed. Code: \`${e.code}\`. Message: \`${e.message}\``, {
      cause: { kind: 'postgres', code: e.code, originalCode: e.code, originalMessage: e.message },
    });
  }
  throw error;
}

/**
 * Raw statements on `target` (a pool, or a pool whose queries go to the write transaction under way), each text named
 * by `nameOf` (prepared once per connection, as Prisma's own statements are), answered as Prisma's $queryRaw would.
 */
export function postgresRawSql(target: PgQueryable, nameOf: (query: { sql: string }) => string): RawSql {
  const run = async (query: TemplateStringsArray | Prisma.Sql, values: unknown[]) => {
    const { text, values: bound } = statementOf(query, values);
    const name = nameOf({ sql: text });
    return target
      .query({ ...(name === undefined ? {} : { name }), text, values: bound.map(argOf), rowMode: 'array', types })
      .catch(postgresError);
  };
  return {
    async $queryRaw<T>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      const { fields, rows } = await run(query, values);
      const out = new Array<Record<string, unknown>>(rows.length);
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r] as unknown[];
        const record: Record<string, unknown> = {};
        for (let i = 0; i < fields.length; i++) record[(fields[i] as pg.FieldDef).name] = row[i];
        out[r] = record;
      }
      return out as T;
    },
    async $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      return (await run(query, values)).rowCount ?? 0;
    },
  };
}
