// `agent-tasks keys create|list|revoke`: API keys managed on the database (SQLite file or PostgreSQL), as an admin of its workspace.
import type { Command } from 'commander';
import { databaseOption, fail, type DatabaseFlags } from './flags.ts';

type KeyFlags = DatabaseFlags & { workspace?: string };

/** What the actions use, loaded when one runs (--help needs none of it). */
async function load() {
  const [{ keys }, { role }, { withLocalDatabase, operatorOf }, { databaseOf }] = await Promise.all([
    import('@agent-tasks/core'),
    import('@agent-tasks/schema'),
    import('./local-database.ts'),
    import('./options.ts'),
  ]);
  return { keyUseCases: keys, roleSchema: role, withLocalDatabase, operatorOf, databaseOf };
}

export function keysCommand(program: Command) {
  const keys = program.command('keys').description('create, list and revoke API keys (on the database)');
  const withWorkspace = (command: Command) =>
    databaseOption(command).option('--workspace <id>', 'the workspace (needed only when the database holds several)');

  withWorkspace(keys.command('create').description('create a key; its token is printed once'))
    .requiredOption('--name <name>', 'a name to recognise the key by')
    .requiredOption('--role <role>', 'admin, agent, member or viewer')
    .action(async (flags: KeyFlags & { name: string; role: string }) => {
      const { keyUseCases, roleSchema, withLocalDatabase, operatorOf, databaseOf } = await load();
      const role = roleSchema.safeParse(flags.role);
      if (!role.success) return fail(`Error: --role must be admin, agent, member or viewer (got ${JSON.stringify(flags.role)}).`);
      await withLocalDatabase(databaseOf(flags), async (deps, ids) => {
        const { key, token } = await keyUseCases.create(deps, await operatorOf(ids, flags.workspace), {
          name: flags.name,
          role: role.data,
        });
        process.stdout.write(`Created ${key.role} key ${key.id} "${key.name}". Its token (shown only now):\n${token}\n`);
      });
    });

  withWorkspace(keys.command('list').description('list the keys (never their tokens)'))
    .option('--json', 'print JSON')
    .action(async (flags: KeyFlags & { json?: boolean }) => {
      const { keyUseCases, withLocalDatabase, operatorOf, databaseOf } = await load();
      await withLocalDatabase(databaseOf(flags), async (deps, ids) => {
        const { keys: list } = await keyUseCases.list(deps, await operatorOf(ids, flags.workspace));
        if (flags.json) return void process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        for (const k of list) {
          process.stdout.write(
            `${k.id}  ${k.role.padEnd(6)}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'.padEnd(32)}  ${k.name}\n`,
          );
        }
      });
    });

  withWorkspace(keys.command('revoke').description('revoke a key; calls with it are refused from then on'))
    .argument('<id>', 'the key id (from keys list)')
    .action(async (id: string, flags: KeyFlags) => {
      const { keyUseCases, withLocalDatabase, operatorOf, databaseOf } = await load();
      await withLocalDatabase(databaseOf(flags), async (deps, ids) => {
        const { key } = await keyUseCases.revoke(deps, await operatorOf(ids, flags.workspace), { id });
        process.stdout.write(`Revoked key ${key.id} "${key.name}".\n`);
      });
    });
}
