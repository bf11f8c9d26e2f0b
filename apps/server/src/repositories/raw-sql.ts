// Pieces of portable raw SQL built from a repository's own Prisma `select` and data objects, so a column added to
// the model and its select reaches the raw statements too.
import { Prisma } from '../generated/prisma/client.ts';

/** `"a", "b", …` for the keys of a Prisma select; with `table`, each of that table (`r."a", r."b", …`). */
export const columnsOf = (select: Record<string, true>, table?: string) =>
  Prisma.raw(
    Object.keys(select)
      .map((column) => (table ? `${table}."${column}"` : `"${column}"`))
      .join(', '),
  );

/** `"a" = $1, "b" = $2, …` for an object of column values. */
export const assignmentsOf = (values: object) =>
  Prisma.join(Object.entries(values).map(([column, value]) => Prisma.sql`${Prisma.raw(`"${column}"`)} = ${value}`));

/** `("a", "b") VALUES ($1, $2)` for an object of column values. */
export const insertOf = (values: object) =>
  Prisma.sql`(${Prisma.raw(
    Object.keys(values)
      .map((column) => `"${column}"`)
      .join(', '),
  )}) VALUES (${Prisma.join(Object.values(values))})`;

/** Most values bound in one statement (SQLite's historical limit; PostgreSQL allows more). */
const MAX_VALUES = 999;

/** Ids bound in one `IN (…)` list, leaving room under MAX_VALUES for the statement's other values. */
export const CHUNK = 400;

/** Ids per chunk for a statement that binds its chunk `times` times (and a few other values). */
export const chunkFor = (times: number) => Math.floor((MAX_VALUES - 3 * times) / times);

/**
 * Runs `query` on the ids `size` (CHUNK) at a time and joins the rows (one call for a short list, none for an empty
 * one). A statement that binds its chunk more than once passes `chunkFor(n)`.
 */
export async function inChunks<T>(ids: readonly string[], query: (chunk: string[]) => Promise<T[]>, size = CHUNK): Promise<T[]> {
  if (ids.length === 0) return [];
  if (ids.length <= size) return query([...ids]);
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += size) rows.push(...(await query(ids.slice(i, i + size))));
  return rows;
}

/**
 * `("a", "b") VALUES ($1, $2), ($3, $4), …` for rows with the same columns, in as many statements as the bound values
 * need: an import's rows without Prisma's query compiler, which costs far more CPU per row than the statement itself.
 */
export function insertsOf(rows: readonly object[]): Prisma.Sql[] {
  const [first] = rows;
  if (!first) return [];
  const columns = Object.keys(first);
  const names = Prisma.raw(columns.map((column) => `"${column}"`).join(', '));
  const perStatement = Math.max(1, Math.floor(MAX_VALUES / columns.length));
  const statements: Prisma.Sql[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const tuples = rows.slice(i, i + perStatement).map((row) => {
      const values = row as Record<string, unknown>;
      return Prisma.sql`(${Prisma.join(columns.map((column) => values[column]))})`;
    });
    statements.push(Prisma.sql`(${names}) VALUES ${Prisma.join(tuples)}`);
  }
  return statements;
}
