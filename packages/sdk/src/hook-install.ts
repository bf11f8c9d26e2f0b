// `agent-tasks hook install|uninstall <runtime>`: writes (or removes) the entries that run the agent-tasks hook in a
// runtime's own configuration, project or user scope, merged with what is there: a second install changes nothing,
// and uninstall removes exactly what install added (entries whose command runs `hook <runtime>`, and the containers
// that held nothing else).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const HOOK_RUNTIMES = ['claude-code', 'codex', 'gemini', 'opencode'] as const;
export type HookRuntime = (typeof HOOK_RUNTIMES)[number];
export type HookScope = 'project' | 'user';

export interface HookInstallOptions {
  runtime: HookRuntime;
  scope: HookScope;
  /** The project folder (project scope); defaults to the working directory. */
  projectDir?: string;
  /** The user's home (user scope); defaults to the home directory. */
  homeDir?: string;
  /** How the runtime starts agent-tasks, e.g. `agent-tasks` or `node /path/to/agent-tasks.mjs`. */
  command: string;
  /** The module (a file: URL) the opencode plugin file imports where this package is not installed by name: the
   * server package's own built copy. Default: the SDK's `@agent-tasks/sdk/opencode`. */
  opencodeModule?: string;
}

/** One file an install or uninstall writes: its path, its text before (null: absent) and after (null: removed). */
export interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
}

type Json = Record<string, unknown>;
interface HookGroup {
  matcher?: string;
  hooks: Json[];
  [key: string]: unknown;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a hook handler's command runs agent-tasks' hook for `runtime` (what install writes, whatever the prefix). */
const isOurs = (handler: unknown, runtime: HookRuntime) =>
  isObject(handler) && typeof handler.command === 'string' && handler.command.trimEnd().endsWith(` hook ${runtime}`);

/** Per runtime: the file holding its hooks, and the event groups install adds there. */
function hookPlan(options: HookInstallOptions): { file: string; events: Record<string, HookGroup>; wrap?: boolean } | null {
  const { runtime, scope, command } = options;
  const project = path.resolve(options.projectDir ?? process.cwd());
  const home = options.homeDir ?? os.homedir();
  const run = `${command} hook ${runtime}`;
  const base = (dir: string) => (scope === 'project' ? path.join(project, dir) : path.join(home, dir));
  if (runtime === 'claude-code') {
    const handler = { type: 'command', command: run, timeout: 10 };
    return {
      file: path.join(base('.claude'), 'settings.json'),
      events: {
        PostToolUse: { matcher: 'TodoWrite|TaskCreate|TaskUpdate', hooks: [handler] },
        SessionStart: { matcher: 'startup|resume|compact', hooks: [handler] },
      },
    };
  }
  if (runtime === 'codex') {
    const handler = { type: 'command', command: run, timeout: 10, statusMessage: 'agent-tasks: plan' };
    return {
      file: path.join(base('.codex'), 'hooks.json'),
      events: {
        SessionStart: { matcher: 'startup|resume|clear|compact', hooks: [handler] },
        PostToolUse: { matcher: '^update_plan$', hooks: [handler] },
      },
    };
  }
  if (runtime === 'gemini') {
    // Gemini CLI compares a lifecycle matcher with the source as a whole string: no matcher runs on every source.
    const handler = { name: 'agent-tasks', type: 'command', command: run, timeout: 10000 };
    return {
      file: path.join(base('.gemini'), 'settings.json'),
      events: {
        SessionStart: { hooks: [handler] },
        AfterTool: { matcher: '^write_todos$', hooks: [handler] },
        BeforeAgent: { hooks: [handler] },
      },
    };
  }
  return null;
}

function readJson(file: string): { text: string | null; value: Json } {
  if (!existsSync(file)) return { text: null, value: {} };
  const text = readFileSync(file, 'utf8');
  if (!text.trim()) return { text, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`Error: ${file} is not JSON (${(error as Error).message}); nothing was written.`, { cause: error });
  }
  if (!isObject(value)) throw new Error(`Error: ${file} does not hold a JSON object; nothing was written.`);
  return { text, value };
}

const jsonText = (value: Json) => `${JSON.stringify(value, null, 2)}\n`;

function installHooks(value: Json, events: Record<string, HookGroup>, runtime: HookRuntime, file: string): Json {
  const hooks = value.hooks ?? {};
  if (!isObject(hooks)) throw new Error(`Error: ${file}: \`hooks\` is not an object; nothing was written.`);
  const next: Json = { ...hooks };
  for (const [event, group] of Object.entries(events)) {
    const groups: unknown = next[event] ?? [];
    if (!Array.isArray(groups)) throw new Error(`Error: ${file}: \`hooks.${event}\` is not an array; nothing was written.`);
    const existing = groups as unknown[];
    const present = existing.some(
      (g: unknown) =>
        isObject(g) && (g.matcher ?? null) === (group.matcher ?? null) && Array.isArray(g.hooks) && g.hooks.some((h) => isOurs(h, runtime)),
    );
    if (!present) next[event] = [...existing, group];
  }
  return { ...value, hooks: next };
}

function uninstallHooks(value: Json, runtime: HookRuntime): Json {
  if (!isObject(value.hooks)) return value;
  const next: Json = { ...value.hooks };
  for (const [event, groups] of Object.entries(value.hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept: unknown[] = [];
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks) || !group.hooks.some((h) => isOurs(h, runtime))) {
        kept.push(group);
        continue;
      }
      const rest = group.hooks.filter((h) => !isOurs(h, runtime));
      if (rest.length) kept.push({ ...group, hooks: rest });
    }
    if (kept.length) next[event] = kept;
    else delete next[event];
  }
  const out: Json = { ...value, hooks: next };
  if (!Object.keys(next).length) delete out.hooks;
  return out;
}

/** The Codex config.toml table that makes `agent-tasks mcp` Codex's way to write the shared task list. */
function codexMcpBlock(command: string): string {
  const [program, ...args] = splitCommand(command);
  const list = [...args, 'mcp'].map((a) => JSON.stringify(a)).join(', ');
  return [
    MCP_BEGIN,
    '[mcp_servers.agent-tasks]',
    `command = ${JSON.stringify(program)}`,
    `args = [${list}]`,
    'env_vars = ["AGENT_TASKS_URL", "AGENT_TASKS_TOKEN"]',
    MCP_END,
    '',
  ].join('\n');
}
const MCP_BEGIN = '# agent-tasks: begin (written by `agent-tasks hook install codex`; `agent-tasks hook uninstall codex` removes it)';
const MCP_END = '# agent-tasks: end';

/** Splits a command line on spaces, keeping double-quoted parts whole. */
function splitCommand(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

function codexMcpChange(options: HookInstallOptions, install: boolean): FileChange {
  const project = path.resolve(options.projectDir ?? process.cwd());
  const home = options.homeDir ?? os.homedir();
  const file = path.join(options.scope === 'project' ? project : home, '.codex', 'config.toml');
  const before = existsSync(file) ? readFileSync(file, 'utf8') : null;
  const text = before ?? '';
  const start = text.indexOf(MCP_BEGIN);
  if (install) {
    // Ours already there, or a table of that name the user wrote: leave the file as it is.
    if (start !== -1 || /^\s*\[mcp_servers\.(agent-tasks|"agent-tasks")\]/m.test(text)) return { path: file, before, after: before };
    const sep = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    return { path: file, before, after: `${text}${sep}${codexMcpBlock(options.command)}` };
  }
  if (start === -1) return { path: file, before, after: before };
  const endAt = text.indexOf(MCP_END, start);
  const stop = endAt === -1 ? text.length : endAt + MCP_END.length + (text[endAt + MCP_END.length] === '\n' ? 1 : 0);
  let head = text.slice(0, start);
  const tail = text.slice(stop);
  // Drop the blank line install put before the block.
  if (!tail && head.endsWith('\n\n')) head = head.slice(0, -1);
  const after = head + tail;
  return { path: file, before, after: after === '' && before !== null ? null : after };
}

/** Where the opencode plugin file goes, and the SDK module it loads the plugin from. */
function opencodePlan(options: HookInstallOptions) {
  const project = path.resolve(options.projectDir ?? process.cwd());
  const home = options.homeDir ?? os.homedir();
  const configHome = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  const dir = options.scope === 'project' ? path.join(project, '.opencode', 'plugins') : path.join(configHome, 'opencode', 'plugins');
  // The SDK's own opencode entry, as installed (a package may import itself by name): dist/opencode.js; inside the
  // server package, which bundles the SDK, its own copy.
  let module: string;
  try {
    module = import.meta.resolve('@agent-tasks/sdk/opencode');
  } catch (error) {
    if (!options.opencodeModule) throw error;
    module = options.opencodeModule;
  }
  return { file: path.join(dir, 'agent-tasks.js'), module };
}

export const opencodePluginText = (moduleUrl: string) =>
  [
    "// agent-tasks: keeps opencode's todo list in agent-tasks and gives the plan back (written by `agent-tasks hook install opencode`;",
    "// `agent-tasks hook uninstall opencode` removes this file). Needs AGENT_TASKS_URL and AGENT_TASKS_TOKEN in opencode's environment.",
    `export { AgentTasksPlugin } from ${JSON.stringify(moduleUrl)};`,
    '',
  ].join('\n');

/** The changes install (or uninstall) makes for `options`, computed without writing anything. */
export function planHookChanges(options: HookInstallOptions, install: boolean): FileChange[] {
  if (options.runtime === 'opencode') {
    const { file, module } = opencodePlan(options);
    const before = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (install) return [{ path: file, before, after: opencodePluginText(module) }];
    // Only a file install wrote is removed.
    return [{ path: file, before, after: before !== null && before.startsWith('// agent-tasks:') ? null : before }];
  }
  const plan = hookPlan(options)!;
  const { text, value } = readJson(plan.file);
  const next = install ? installHooks(value, plan.events, options.runtime, plan.file) : uninstallHooks(value, options.runtime);
  const unchanged = JSON.stringify(next) === JSON.stringify(value);
  const after = unchanged ? text : !Object.keys(next).length && text !== null && !install ? null : jsonText(next);
  const changes: FileChange[] = [{ path: plan.file, before: text, after }];
  if (options.runtime === 'codex') changes.push(codexMcpChange(options, install));
  return changes;
}

/** Writes `changes` (a file whose text is unchanged is left untouched). */
export function applyHookChanges(changes: FileChange[]): void {
  for (const change of changes) {
    if (change.after === change.before) continue;
    if (change.after === null) rmSync(change.path, { force: true });
    else {
      mkdirSync(path.dirname(change.path), { recursive: true });
      writeFileSync(change.path, change.after);
    }
  }
}

/** What `--print` shows: each file and its text after the change, or that it stays as it is. */
export function describeHookChanges(changes: FileChange[]): string {
  return changes
    .map((c) => {
      if (c.after === c.before) return `${c.path}: unchanged\n`;
      if (c.after === null) return `${c.path}: removed\n`;
      return `${c.path}: ${c.before === null ? 'created' : 'updated'}\n${c.after.endsWith('\n') ? c.after : `${c.after}\n`}`;
    })
    .join('\n');
}

/** The default `command`: the agent-tasks bin running now, as `node <its absolute path>`. */
export function defaultHookCommand(binPath: string | undefined): string {
  if (!binPath) return 'agent-tasks';
  const quote = (p: string) => (/[\s"]/.test(p) ? JSON.stringify(p) : p);
  return `${quote(process.execPath)} ${quote(path.resolve(binPath))}`;
}

/** A refusal of `hook install|uninstall`: its `Error: …` text and exit code (2 for a usage error, 1 otherwise). */
export class HookInstallRefusal extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/**
 * The whole `agent-tasks hook install|uninstall <runtime> [--scope project|user] [--print] [--command <command>]`
 * command (the SDK's and the server's `agent-tasks` both run it): writes the changes, or with `print` only shows them,
 * and writes what it did through `write`. Throws a HookInstallRefusal for bad input, having written nothing.
 */
export function runHookInstall(
  install: boolean,
  runtime: string,
  flags: { scope?: string; print?: boolean; command?: string },
  write: (text: string) => void,
  opencodeModule?: string,
): void {
  if (!(HOOK_RUNTIMES as readonly string[]).includes(runtime)) {
    throw new HookInstallRefusal(`Error: unknown runtime "${runtime}"; expected one of ${HOOK_RUNTIMES.join(', ')}.`, 2);
  }
  const scope = flags.scope ?? 'project';
  if (scope !== 'project' && scope !== 'user') throw new HookInstallRefusal(`Error: --scope must be project or user (got "${scope}").`, 2);
  const options = {
    runtime: runtime as HookRuntime,
    scope,
    command: flags.command ?? defaultHookCommand(process.argv[1]),
    ...(opencodeModule ? { opencodeModule } : {}),
  } as const;
  let changes;
  try {
    changes = planHookChanges(options, install);
  } catch (error) {
    throw new HookInstallRefusal((error as Error).message, 1);
  }
  if (flags.print) {
    write(describeHookChanges(changes));
    return;
  }
  applyHookChanges(changes);
  for (const c of changes) {
    const done = c.after === c.before ? 'unchanged' : c.after === null ? 'removed' : c.before === null ? 'created' : 'updated';
    write(`${c.path}: ${done}\n`);
  }
}
