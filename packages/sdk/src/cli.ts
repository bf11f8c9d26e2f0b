// agent-tasks-cli: imports and exports a task list as the JSON task files of sisyphus or Claude Code (run with tsx),
// and mirrors a list live into a folder of sisyphus task files.
//   agent-tasks-cli import --format claude|sisyphus --dir <folder> [--list <name>]
//   agent-tasks-cli export --format claude|sisyphus --dir <folder> [--list <name>]
//   agent-tasks-cli mirror --dir .sisyphus/tasks [--list <name>]   (until interrupted)
// Server and credentials: AGENT_TASKS_URL and AGENT_TASKS_TOKEN, or --url and --token.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from './client.ts';
import { refusalOf } from './errors.ts';
import { mirrorTaskList } from './task-mirror.ts';

const USAGE =
  'usage: agent-tasks-cli import|export --format claude|sisyphus --dir <folder> [--list <name>] [--url <url>] [--token <token>]\n' +
  '       agent-tasks-cli mirror --dir <folder> [--list <name>] [--url <url>] [--token <token>]';

class UsageError extends Error {}

const plural = (n: number) => `${n} task${n === 1 ? '' : 's'}`;

async function readTaskFiles(dir: string) {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return Promise.all(names.map(async (name) => ({ name, content: await readFile(path.join(dir, name), 'utf8') })));
}

async function run(argv: string[]): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      dir: { type: 'string' },
      list: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
    },
  });
  const [command, ...extra] = positionals;
  if ((command !== 'import' && command !== 'export' && command !== 'mirror') || extra.length > 0) throw new UsageError(USAGE);
  if (command === 'mirror') return mirror(values);
  if (values.format !== 'claude' && values.format !== 'sisyphus') throw new UsageError('`--format` must be "claude" or "sisyphus".');
  if (!values.dir) throw new UsageError('`--dir` names the folder of task files.');
  const url = values.url ?? process.env.AGENT_TASKS_URL;
  const token = values.token ?? process.env.AGENT_TASKS_TOKEN;
  if (!url || !token) throw new UsageError('set AGENT_TASKS_URL and AGENT_TASKS_TOKEN (or pass --url and --token).');

  const client = createClient({ url, token });
  const dir = path.resolve(values.dir);
  const format = values.format;
  const listName = values.list;
  if (command === 'import') {
    let files;
    try {
      files = await readTaskFiles(dir);
    } catch (error) {
      throw new UsageError(`cannot read ${dir}: ${(error as Error).message}`);
    }
    const result = await client.tasks.import({ format, files, ...(listName === undefined ? {} : { listName }) });
    return `Imported ${plural(result.imported)} into list "${result.listName}" from ${dir}.`;
  }
  const result = await client.tasks.export({ format, ...(listName === undefined ? {} : { listName }) });
  await mkdir(dir, { recursive: true });
  for (const file of result.files) {
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*\.json$/.test(file.name)) throw new UsageError(`the server sent an unsafe file name ${JSON.stringify(file.name)}.`);
    await writeFile(path.join(dir, file.name), file.content);
  }
  return `Exported ${plural(result.files.length)} from list "${result.listName}" to ${dir}.`;
}

/** Mirrors the list into the folder until SIGINT or SIGTERM, printing each sync. */
async function mirror(values: { dir?: string | undefined; list?: string | undefined; url?: string | undefined; token?: string | undefined }) {
  if (!values.dir) throw new UsageError('`--dir` names the folder of task files.');
  const url = values.url ?? process.env.AGENT_TASKS_URL;
  const token = values.token ?? process.env.AGENT_TASKS_TOKEN;
  if (!url || !token) throw new UsageError('set AGENT_TASKS_URL and AGENT_TASKS_TOKEN (or pass --url and --token).');
  const dir = path.resolve(values.dir);
  const list = values.list ?? 'default';
  const mirrored = mirrorTaskList({
    client: createClient({ url, token }),
    dir,
    listName: values.list,
    onSync: (s) => console.log(`Mirrored list "${list}" to ${dir}: ${plural(s.tasks)} (${s.written} written, ${s.removed} removed).`),
    onError: (error) => console.error(refusalOf(error).message),
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await mirrored.stop();
  return 'Mirror stopped.';
}

try {
  console.log(await run(process.argv.slice(2)));
} catch (error) {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  console.error(usage ? `Error: ${(error as Error).message}` : refusalOf(error).message);
  process.exitCode = 1;
}
