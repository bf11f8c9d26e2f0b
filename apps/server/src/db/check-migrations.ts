// CLI `pnpm migrate:check`: exits 0 when prisma/schema.prisma and prisma/migrations agree, 1 with the missing SQL otherwise.
import path from 'node:path';
import { checkDrift } from './schema-engine.ts';

const root = path.resolve(import.meta.dirname, '../../../..');
const { inSync, script } = await checkDrift({
  schemaFile: path.join(root, 'prisma', 'schema.prisma'),
  migrationsDir: path.join(root, 'prisma', 'migrations'),
});
if (inSync) {
  console.log('prisma/schema.prisma and prisma/migrations agree.');
} else {
  console.error('prisma/schema.prisma differs from prisma/migrations. Run `pnpm migrate:create <name>`. Missing SQL:\n');
  console.error(script);
  process.exitCode = 1;
}
