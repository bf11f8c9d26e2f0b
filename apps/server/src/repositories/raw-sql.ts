// Pieces of portable raw SQL built from a repository's own Prisma `select` and data objects, so a column added to
// the model and its select reaches the raw statements too.
import { Prisma } from '../generated/prisma/client.ts';

/** `"a", "b", …` for the keys of a Prisma select. */
export const columnsOf = (select: Record<string, true>) =>
  Prisma.raw(
    Object.keys(select)
      .map((column) => `"${column}"`)
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
