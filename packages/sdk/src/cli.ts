// The task-file command: imports and exports a task list as the JSON task files of sisyphus or Claude Code, and
// mirrors a list live into a folder of sisyphus task files. `runTasksCli(argv)` is the whole command (the
// `agent-tasks-files` bin, and `agent-tasks tasks` in the server's CLI).
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from './client.ts';
import { refusalOf } from './errors.ts';
import { mirrorTaskList } from './task-mirror.ts';

export interface TasksCliOptions {
  /** How the usage text names the command; default `agent-tasks-files`. */
  command?: string;
  /** Where AGENT_TASKS_URL and AGENT_TASKS_TOKEN are read; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Receives each line of output (a result or the usage); default: standard output. */
  stdout?: (line: string) => void;
  /** Receives each error line; default: standard error. */
  stderr?: (line: string) => void;
}

const usageOf = (command: string) =>
  [
    `usage: ${command} import|export --format claude|sisyphus --dir <folder> [--list <name>] [--url <url>] [--token <token>]`,
    `       ${command} mirror --dir <folder> [--list <name>] [--url <url>] [--token <token>]`,
    '  import            reads every *.json task file of <folder> into the list, all or nothing',
    "  export            writes the list's tasks (deleted ones included) as task files into <folder>",
    '  mirror            keeps <folder> in step with the list (one sisyphus file per task) until interrupted',
    "  --format <name>   claude (Claude Code's ~/.claude/tasks/<list>/<n>.json) or sisyphus (.sisyphus/tasks/T-….json)",
    '  --dir <folder>    the folder of task files',
    '  --list <name>     the task list; default "default"',
    '  --url <url>       the server; default AGENT_TASKS_URL',
    '  --token <token>   an agent key or a session token; default AGENT_TASKS_TOKEN',
    '  -h, --help        prints this help',
  ].join('\n');

class UsageError extends Error {}

const plural = (n: number) => `${n} task${n === 1 ? '' : 's'}`;

async function readTaskFiles(dir: string) {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return Promise.all(names.map(async (name) => ({ name, content: await readFile(path.join(dir, name), 'utf8') })));
}

async function run(argv: string[], usage: string, env: Record<string, string | undefined>): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      dir: { type: 'string' },
      list: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return usage;
  const [command, ...extra] = positionals;
  if ((command !== 'import' && command !== 'export' && command !== 'mirror') || extra.length > 0) throw new UsageError(usage);
  if (command === 'mirror') return mirror(values, env);
  if (values.format !== 'claude' && values.format !== 'sisyphus') throw new UsageError('`--format` must be "claude" or "sisyphus".');
  if (!values.dir) throw new UsageError('`--dir` names the folder of task files.');
  const url = values.url ?? env.AGENT_TASKS_URL;
  const token = values.token ?? env.AGENT_TASKS_TOKEN;
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
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*\.json$/.test(file.name))
      throw new UsageError(`the server sent an unsafe file name ${JSON.stringify(file.name)}.`);
    await writeFile(path.join(dir, file.name), file.content);
  }
  return `Exported ${plural(result.files.length)} from list "${result.listName}" to ${dir}.`;
}

/** Mirrors the list into the folder until SIGINT or SIGTERM, printing each sync. */
async function mirror(
  values: { dir?: string | undefined; list?: string | undefined; url?: string | undefined; token?: string | undefined },
  env: Record<string, string | undefined>,
) {
  if (!values.dir) throw new UsageError('`--dir` names the folder of task files.');
  const url = values.url ?? env.AGENT_TASKS_URL;
  const token = values.token ?? env.AGENT_TASKS_TOKEN;
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

/**
 * Runs the task-file command on its arguments (without the program name): `import` or `export`, or `--help`.
 * Prints the result, or one `Error: …` line (a usage error or the server's refusal); answers the exit code, 0 or 1.
 */
export async function runTasksCli(argv: string[], options: TasksCliOptions = {}): Promise<number> {
  const stdout = options.stdout ?? ((line) => process.stdout.write(`${line}\n`));
  const stderr = options.stderr ?? ((line) => process.stderr.write(`${line}\n`));
  try {
    stdout(await run(argv, usageOf(options.command ?? 'agent-tasks-files'), options.env ?? process.env));
    return 0;
  } catch (error) {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    stderr(usage ? `Error: ${(error as Error).message}` : refusalOf(error).message);
    return 1;
  }
}
