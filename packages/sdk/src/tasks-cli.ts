// The task-file command: imports and exports a task list as the JSON task files of sisyphus or Claude Code, and
// mirrors a list live into a folder of sisyphus task files. `runTasksCli(argv)` is the whole command (the
// `agent-tasks-files` bin, and `agent-tasks tasks` in both agent-tasks commands). Exported from the `./cli` entry.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from './client.ts';
import { refusalOf } from './errors.ts';
import { opencodeTaskFolder } from './opencode-task-folder.ts';
import { mirrorTaskList } from './task-mirror.ts';

/** Claude Code's marker of the highest task number it gave out, next to its task files. */
const HIGH_WATERMARK = '.highwatermark';
/** A Claude Code task file: its number. */
const CLAUDE_TASK_FILE = /^[0-9]{1,9}\.json$/;

export interface TasksCliOptions {
  /** How the usage text names the command; default `agent-tasks-files`. */
  command?: string;
  /** Where AGENT_TASKS_URL and AGENT_TASKS_TOKEN (and oh-my-opencode's folder settings) are read; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** The working directory oh-my-opencode's folder is found from; default `process.cwd()`. */
  cwd?: string;
  /** Receives each line of output (a result or the usage); default: standard output. */
  stdout?: (line: string) => void;
  /** Receives each error line; default: standard error. */
  stderr?: (line: string) => void;
}

const usageOf = (command: string) =>
  [
    `usage: ${command} import|export --format claude|sisyphus [--dir <folder>] [--list <name>] [--url <url>] [--token <token>]`,
    `       ${command} mirror [--dir <folder>] [--list <name>] [--url <url>] [--token <token>]`,
    '  import            reads every *.json task file of <folder> into the list, all or nothing (claude: and its',
    '                    .highwatermark; a folder imported before updates the same tasks)',
    "  export            writes the list's tasks as task files into <folder> (sisyphus: deleted ones included;",
    "                    claude: as Claude Code writes them, a deleted task's file removed, and .highwatermark)",
    '  mirror            keeps <folder> in step with the list (one sisyphus file per task) until interrupted',
    "  --format <name>   claude (Claude Code's ~/.claude/tasks/<list>/<n>.json) or sisyphus (oh-my-opencode's T-….json)",
    "  --dir <folder>    the folder of task files; required for claude. Default for sisyphus and mirror: oh-my-opencode's",
    '                    own folder, <opencode config>/tasks/<list id> (or its sisyphus.tasks.storage_path)',
    '  --list <name>     the task list; default "default"',
    '  --url <url>       the server; default AGENT_TASKS_URL',
    '  --token <token>   an agent key or a session token; default AGENT_TASKS_TOKEN',
    '  -h, --help        prints this help',
  ].join('\n');

class UsageError extends Error {}

const plural = (n: number) => `${n} task${n === 1 ? '' : 's'}`;

async function readTaskFiles(dir: string, format: 'claude' | 'sisyphus') {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && (entry.name.endsWith('.json') || (format === 'claude' && entry.name === HIGH_WATERMARK)))
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return Promise.all(names.map(async (name) => ({ name, content: await readFile(path.join(dir, name), 'utf8') })));
}

async function run(argv: string[], usage: string, env: Record<string, string | undefined>, cwd: string): Promise<string> {
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
  if (command === 'mirror') return mirror(values, env, cwd);
  if (values.format !== 'claude' && values.format !== 'sisyphus') throw new UsageError('`--format` must be "claude" or "sisyphus".');
  if (!values.dir && values.format === 'claude') throw new UsageError('`--dir` names the folder of task files.');
  const url = values.url ?? env.AGENT_TASKS_URL;
  const token = values.token ?? env.AGENT_TASKS_TOKEN;
  if (!url || !token) throw new UsageError('set AGENT_TASKS_URL and AGENT_TASKS_TOKEN (or pass --url and --token).');

  const client = createClient({ url, token });
  const dir = path.resolve(cwd, values.dir ?? opencodeTaskFolder({ env, cwd }));
  const format = values.format;
  const listName = values.list;
  if (command === 'import') {
    let files;
    try {
      files = await readTaskFiles(dir, format);
    } catch (error) {
      throw new UsageError(`cannot read ${dir}: ${(error as Error).message}`);
    }
    const result = await client.tasks.import({ format, files, ...(listName === undefined ? {} : { listName }) });
    return `Imported ${plural(result.imported)} into list "${result.listName}" from ${dir}.`;
  }
  const result = await client.tasks.export({ format, ...(listName === undefined ? {} : { listName }) });
  await mkdir(dir, { recursive: true });
  for (const file of result.files) {
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*\.json$/.test(file.name) && !(format === 'claude' && file.name === HIGH_WATERMARK))
      throw new UsageError(`the server sent an unsafe file name ${JSON.stringify(file.name)}.`);
  }
  for (const file of result.files) await writeFile(path.join(dir, file.name), file.content);
  if (format === 'claude') {
    // A deleted task is a removed file, as Claude Code deletes it (its other files are left alone).
    const keep = new Set(result.files.map((f) => f.name));
    for (const name of await readdir(dir))
      if (CLAUDE_TASK_FILE.test(name) && !keep.has(name)) await rm(path.join(dir, name), { force: true });
  }
  return `Exported ${plural(result.files.filter((f) => f.name !== HIGH_WATERMARK).length)} from list "${result.listName}" to ${dir}.`;
}

/** Mirrors the list into the folder until SIGINT or SIGTERM, printing each sync. */
async function mirror(
  values: { dir?: string | undefined; list?: string | undefined; url?: string | undefined; token?: string | undefined },
  env: Record<string, string | undefined>,
  cwd: string,
) {
  const url = values.url ?? env.AGENT_TASKS_URL;
  const token = values.token ?? env.AGENT_TASKS_TOKEN;
  if (!url || !token) throw new UsageError('set AGENT_TASKS_URL and AGENT_TASKS_TOKEN (or pass --url and --token).');
  const dir = path.resolve(cwd, values.dir ?? opencodeTaskFolder({ env, cwd }));
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
    stdout(await run(argv, usageOf(options.command ?? 'agent-tasks-files'), options.env ?? process.env, options.cwd ?? process.cwd()));
    return 0;
  } catch (error) {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    stderr(usage ? `Error: ${(error as Error).message}` : refusalOf(error).message);
    return 1;
  }
}
