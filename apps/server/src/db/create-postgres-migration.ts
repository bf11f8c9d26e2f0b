// CLI `pnpm migrate:create:postgres <name>`: rewrites prisma/schema.postgres.prisma from prisma/schema.prisma, then
// writes a migration to prisma/migrations-postgres for what the migrations lack. The schema engine replays them on a
// scratch database it creates and drops on the PostgreSQL server named by POSTGRES_URL.
import { readFileSync, writeFileSync } from 'node:fs';
import { schemaFile } from './database-file.ts';
import { createPostgresMigration } from './postgres-migrations.ts';
import { isPostgresUrl, postgresMigrationsDir, postgresSchemaFile, postgresSchemaOf } from './postgres-schema.ts';

const name = process.argv[2];
const url = process.env.POSTGRES_URL;
if (!name || !/^[A-Za-z0-9_]+$/.test(name) || !isPostgresUrl(url)) {
  console.error(
    'Usage: POSTGRES_URL=postgresql://user:password@host/db pnpm migrate:create:postgres <name>   (letters, digits and underscores;',
  );
  console.error('       the user must be allowed to create databases: a scratch one is created and dropped)');
  process.exit(2);
}
writeFileSync(postgresSchemaFile, postgresSchemaOf(readFileSync(schemaFile, 'utf8')));
const created = await createPostgresMigration({
  url: url as string,
  name,
  schemaFile: postgresSchemaFile,
  migrationsDir: postgresMigrationsDir,
});
console.log(
  created
    ? `Created prisma/migrations-postgres/${created}/migration.sql`
    : 'The schema and the migrations already agree: nothing to create.',
);
