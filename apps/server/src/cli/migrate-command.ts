// `agent-tasks migrate [apply|check]`: apply pending migrations to the database (SQLite file or PostgreSQL), or check schema/migration drift.
import type { Command } from 'commander';
import { databaseOption, type DatabaseFlags } from './flags.ts';

/** What the actions use, loaded when one runs (--help needs none of it). */
async function load() {
  const [files, local, engine, options] = await Promise.all([
    import('../db/database-file.ts'),
    import('../db/local-database.ts'),
    import('../db/schema-engine.ts'),
    import('./options.ts'),
  ]);
  return { ...files, ...local, ...engine, ...options };
}

export function migrateCommand(program: Command) {
  const migrate = program.command('migrate').description('apply pending migrations (default) or check for drift');
  databaseOption(migrate.command('apply', { isDefault: true }).description('apply pending migrations to the database')).action(
    async (flags: DatabaseFlags) => {
      const { databaseOf, opening, migrateDatabase, databaseLabel } = await load();
      const target = databaseOf(flags);
      const applied = await opening(target, () => migrateDatabase(target));
      const database = databaseLabel(target);
      process.stdout.write(
        applied.length > 0
          ? `Applied ${applied.length} migration(s) to ${database}: ${applied.join(', ')}\n`
          : `${database} is up to date.\n`,
      );
    },
  );
  migrate
    .command('check')
    .description('exit 0 when prisma/schema.prisma and prisma/migrations agree, 1 with the missing SQL otherwise')
    .action(async () => {
      const { checkDrift, schemaFile, migrationsDir } = await load();
      const { inSync, script } = await checkDrift({ schemaFile, migrationsDir });
      if (inSync) return void process.stdout.write('prisma/schema.prisma and prisma/migrations agree.\n');
      process.stderr.write(
        `prisma/schema.prisma differs from prisma/migrations. Run \`pnpm migrate:create <name>\`. Missing SQL:\n\n${script}\n`,
      );
      process.exitCode = 1;
    });
}
