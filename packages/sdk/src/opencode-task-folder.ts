// Where oh-my-opencode keeps a project's task files, found as oh-my-opencode 4.19 finds them: `<opencode config
// dir>/tasks/<list id>`, or its config's `sisyphus.tasks.storage_path`. The list id comes from ULTRAWORK_TASK_LIST_ID,
// then CLAUDE_CODE_TASK_LIST_ID, then the config's `sisyphus.tasks.task_list_id`, then the working directory's name.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export interface FolderContext {
  env: Record<string, string | undefined>;
  /** The working directory (oh-my-opencode resolves a relative `storage_path` and the default list id from it). */
  cwd: string;
}

/** What oh-my-opencode's config says about its task files (`sisyphus.tasks`). */
export interface SisyphusTasksConfig {
  storage_path?: string;
  task_list_id?: string;
}

const trimmed = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** A path resolved, through its symbolic links when it exists (as opencode resolves its config folder). */
function resolved(value: string) {
  const full = path.resolve(value);
  try {
    return existsSync(full) ? realpathSync(full) : full;
  } catch {
    return full;
  }
}

/** opencode's config folder: OPENCODE_CONFIG_DIR, else `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`). */
export function opencodeConfigDir({ env }: Pick<FolderContext, 'env'>): string {
  const custom = trimmed(env.OPENCODE_CONFIG_DIR);
  if (custom) return resolved(custom);
  const home = env.HOME ?? homedir();
  return resolved(path.join(trimmed(env.XDG_CONFIG_HOME) ?? path.join(home, '.config'), 'opencode'));
}

/** JSON with comments and trailing commas (oh-my-opencode's `.jsonc`), read as JSON; null when it is not. */
export function parseJsonc(text: string): unknown {
  let out = '';
  let i = 0;
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  while (i < body.length) {
    const c = body[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < body.length && body[j] !== '"') j += body[j] === '\\' ? 2 : 1;
      out += body.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && body[i + 1] === '/') {
      while (i < body.length && body[i] !== '\n') i++;
    } else if (c === '/' && body[i + 1] === '*') {
      const end = body.indexOf('*/', i + 2);
      i = end < 0 ? body.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  try {
    return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
  } catch {
    return null;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readConfig(file: string): Record<string, unknown> | null {
  try {
    const value = parseJsonc(readFileSync(file, 'utf8'));
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** `omo.jsonc`, else `omo.json`, in `dir`; null when neither is there. */
const configIn = (dir: string) => [path.join(dir, 'omo.jsonc'), path.join(dir, 'omo.json')].find((file) => existsSync(file)) ?? null;

/** The config files oh-my-opencode reads, in the order it applies them: `~/.omo`, then each `.omo` from the farthest folder above the working directory (below home) to the nearest. */
export function omoConfigFiles({ env, cwd }: FolderContext): string[] {
  const home = path.resolve(env.HOME ?? env.USERPROFILE ?? cwd);
  const files: string[] = [];
  const user = configIn(path.join(home, '.omo'));
  if (user) files.push(user);
  const project: string[] = [];
  for (let dir = path.resolve(cwd); dir !== home; dir = path.dirname(dir)) {
    const file = configIn(path.join(dir, '.omo'));
    if (file) project.push(file);
    if (path.dirname(dir) === dir) break;
  }
  return [...files, ...project.reverse()];
}

/** The `sisyphus` section of one config view, when it is well formed (oh-my-opencode skips a section that is not). */
function sisyphusOf(view: Record<string, unknown>): SisyphusTasksConfig | undefined {
  if (!('sisyphus' in view)) return undefined;
  const section = view.sisyphus;
  if (!isRecord(section)) return undefined;
  const tasks = section.tasks;
  if (tasks === undefined) return {};
  if (!isRecord(tasks)) return undefined;
  const { storage_path: storage, task_list_id: list } = tasks;
  if ((storage !== undefined && typeof storage !== 'string') || (list !== undefined && typeof list !== 'string')) return undefined;
  return { ...(storage === undefined ? {} : { storage_path: storage }), ...(list === undefined ? {} : { task_list_id: list }) };
}

/**
 * oh-my-opencode's `sisyphus.tasks` settings: the last config view that has a `sisyphus` section wins, the views being
 * each file's top level, then each file's `[opencode]` block, then the same two of the active profile (OMO_PROFILE,
 * OCX_PROFILE, or an OPENCODE_CONFIG_DIR of `…/profiles/<name>`).
 */
export function sisyphusTasksConfig(context: FolderContext): SisyphusTasksConfig {
  const layers = omoConfigFiles(context)
    .map(readConfig)
    .filter((c): c is Record<string, unknown> => c !== null);
  const { env } = context;
  const profile =
    trimmed(env.OMO_PROFILE) ??
    trimmed(env.OCX_PROFILE) ??
    /(?:^|[\\/])profiles[\\/]([^\\/]+)[\\/]*$/.exec(env.OPENCODE_CONFIG_DIR ?? '')?.[1];
  const block = (c: Record<string, unknown>) => (isRecord(c['[opencode]']) ? c['[opencode]'] : {});
  const profileOf = (c: Record<string, unknown>) => {
    const profiles = c.profiles;
    const chosen = profile !== undefined && isRecord(profiles) ? profiles[profile] : undefined;
    return isRecord(chosen) ? chosen : {};
  };
  const views = [...layers, ...layers.map(block), ...layers.map((c) => profileOf(c)), ...layers.map((c) => block(profileOf(c)))];
  let found: SisyphusTasksConfig = {};
  for (const view of views) found = sisyphusOf(view) ?? found;
  return found;
}

const pathSegment = (value: string) => value.replace(/[^a-zA-Z0-9_-]/g, '-') || 'default';

/** oh-my-opencode's task list id: ULTRAWORK_TASK_LIST_ID, CLAUDE_CODE_TASK_LIST_ID, `task_list_id`, the folder's name. */
export function opencodeTaskListId(context: FolderContext, config: SisyphusTasksConfig = sisyphusTasksConfig(context)): string {
  const { env, cwd } = context;
  const id = trimmed(env.ULTRAWORK_TASK_LIST_ID) ?? trimmed(env.CLAUDE_CODE_TASK_LIST_ID) ?? trimmed(config.task_list_id);
  return pathSegment(id ?? path.basename(path.resolve(cwd)));
}

/** The folder oh-my-opencode keeps its task files in for this environment and working directory. */
export function opencodeTaskFolder(context: FolderContext): string {
  const config = sisyphusTasksConfig(context);
  if (config.storage_path) return path.isAbsolute(config.storage_path) ? config.storage_path : path.join(context.cwd, config.storage_path);
  return path.join(opencodeConfigDir(context), 'tasks', opencodeTaskListId(context, config));
}
