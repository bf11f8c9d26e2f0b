// CLI `pnpm migrate:create <name>`: writes a new Prisma migration when prisma/schema.prisma differs from prisma/migrations.
import path from 'node:path';
import { createMigration } from './schema-engine.ts';

const root = path.resolve(import.meta.dirname, '../../../..');
const name = process.argv[2];
if (!name || !/^[A-Za-z0-9_]+$/.test(name)) {
  console.error('Usage: pnpm migrate:create <name>   (letters, digits and underscores)');
  process.exit(2);
}

const created = await createMigration({
  name,
  schemaFile: path.join(root, 'prisma', 'schema.prisma'),
  migrationsDir: path.join(root, 'prisma', 'migrations'),
});
console.log(
  created ? `Created prisma/migrations/${created}/migration.sql` : 'The schema and the migrations already agree: nothing to create.',
);
