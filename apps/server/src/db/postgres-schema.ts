// The PostgreSQL twin of prisma/schema.prisma: the same models, only the datasource provider and the client's output differ.
import path from 'node:path';
import { repoRoot } from './database-file.ts';

export const postgresSchemaFile = path.join(repoRoot, 'prisma', 'schema.postgres.prisma');
export const postgresMigrationsDir = path.join(repoRoot, 'prisma', 'migrations-postgres');

/** Whether DATABASE_URL names a PostgreSQL server (anything else is a SQLite file). */
export const isPostgresUrl = (url: string | undefined) => !!url && /^postgres(ql)?:\/\//i.test(url);

const HEADER =
  '// Generated from prisma/schema.prisma by `pnpm schema:postgres`; do not edit. Only the datasource provider and the\n' +
  "// client's output folder differ (a test fails when the two drift apart).\n\n";

function replaceOnce(text: string, pattern: RegExp, replacement: string, what: string): string {
  if (!pattern.test(text)) throw new Error(`prisma/schema.prisma: ${what} not found`);
  return text.replace(pattern, replacement);
}

/** The PostgreSQL schema text for the SQLite schema text (the source of truth). */
export function postgresSchemaOf(sqliteSchema: string): string {
  let text = replaceOnce(
    sqliteSchema,
    /(datasource db \{[^}]*provider\s*=\s*)"sqlite"/,
    '$1"postgresql"',
    'datasource db { provider = "sqlite" }',
  );
  text = replaceOnce(
    text,
    /(generator client \{[^}]*output\s*=\s*)"\.\.\/apps\/server\/src\/generated\/prisma"/,
    '$1"../apps/server/src/generated/prisma-postgres"',
    'generator client { output = "../apps/server/src/generated/prisma" }',
  );
  return HEADER + text;
}
