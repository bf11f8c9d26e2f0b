// CLI `pnpm schema:postgres`: writes prisma/schema.postgres.prisma from prisma/schema.prisma.
import { readFileSync, writeFileSync } from 'node:fs';
import { schemaFile } from './database-file.ts';
import { postgresSchemaFile, postgresSchemaOf } from './postgres-schema.ts';

writeFileSync(postgresSchemaFile, postgresSchemaOf(readFileSync(schemaFile, 'utf8')));
console.log('Wrote prisma/schema.postgres.prisma from prisma/schema.prisma.');
