// Reads the app's schema as SQL: every prisma/migrations/*/migration.sql, in the order Prisma applies them.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const migrationsDir = path.resolve(import.meta.dirname, '../../prisma/migrations');

export function schemaSql(): string {
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8'))
    .join('\n');
}
