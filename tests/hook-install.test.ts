// `agent-tasks hook install|uninstall <runtime>` on real configuration files of each runtime's documented shape
// (tests/fixtures/<runtime>/): install twice changes the file once, merged with what was there; --print writes
// nothing; uninstall gives back the file as it was; bad input is refused with an Error: text and nothing written.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTasksBin } from './support/server.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const ourCommand = (runtime: string) => `${process.execPath} ${agentTasksBin} hook ${runtime}`;

function agentTasks(args: string[], cwd: string, home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [agentTasksBin, ...args], {
    cwd,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function folders() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-install-'));
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  mkdirSync(project);
  mkdirSync(home);
  return { project, home };
}

/** Copies a fixture to `dir/rel`, returning its path and text. */
function place(fixture: string, dir: string, rel: string) {
  const file = path.join(dir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(path.join(fixtures, fixture), file);
  return { file, text: readFileSync(file, 'utf8') };
}

const json = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };

/** Every hook handler of ours in a settings file, as [event, matcher]. */
const ours = (file: string, runtime: string) =>
  Object.entries(json(file).hooks).flatMap(([event, groups]) =>
    groups.flatMap((g) => g.hooks.filter((h) => h.command === ourCommand(runtime)).map(() => [event, g.matcher ?? null])),
  );

/** install twice, then uninstall, checking each step; `check` looks at the file after the first install. */
async function roundTrip(
  runtime: string,
  scope: 'project' | 'user',
  dir: 'project' | 'home',
  rel: string,
  fixture: string,
  check: (file: string) => void,
) {
  const f = folders();
  const { file, text } = place(fixture, f[dir], rel);
  const args = ['hook', 'install', runtime, '--scope', scope];

  const printed = await agentTasks([...args, '--print'], f.project, f.home);
  expect(printed).toMatchObject({ code: 0, stderr: '' });
  expect(printed.stdout).toContain(`${file}: updated\n`);
  expect(printed.stdout).toContain(ourCommand(runtime));
  expect(readFileSync(file, 'utf8')).toBe(text);

  const first = await agentTasks(args, f.project, f.home);
  expect(first).toMatchObject({ code: 0, stderr: '' });
  expect(first.stdout).toContain(`${file}: updated\n`);
  check(file);
  const once = readFileSync(file, 'utf8');
  const second = await agentTasks(args, f.project, f.home);
  expect(second).toMatchObject({ code: 0, stderr: '' });
  expect(second.stdout).toContain(`${file}: unchanged\n`);
  expect(readFileSync(file, 'utf8')).toBe(once);

  const removed = await agentTasks(['hook', 'uninstall', runtime, '--scope', scope], f.project, f.home);
  expect(removed).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(text));
  return f;
}

describe('hook install and uninstall', () => {
  it('claude-code: .claude/settings.json keeps its own hooks beside ours; uninstall gives it back', async () => {
    await roundTrip('claude-code', 'project', 'project', '.claude/settings.json', 'claude-code/settings.json', (file) => {
      expect(json(file).hooks.PostToolUse?.[0]?.matcher).toBe('Edit|Write');
      expect(ours(file, 'claude-code')).toEqual([
        ['PostToolUse', 'TodoWrite|TaskCreate|TaskUpdate|Bash'],
        ['PostToolUseFailure', 'Bash'],
        ['TaskCompleted', null],
        ['SessionStart', 'startup|resume|compact'],
      ]);
    });
  });

  it('codex: ~/.codex/hooks.json gets SessionStart and PostToolUse for update_plan; config.toml gets agent-tasks mcp, once', async () => {
    const f = folders();
    const toml = place('codex/config.toml', f.home, '.codex/config.toml');
    const hooks = place('codex/hooks.json', f.home, '.codex/hooks.json');
    const args = ['hook', 'install', 'codex', '--scope', 'user'];
    for (let i = 0; i < 2; i++) expect(await agentTasks(args, f.project, f.home)).toMatchObject({ code: 0, stderr: '' });
    expect(ours(hooks.file, 'codex')).toEqual([
      ['SessionStart', 'startup|resume|clear|compact'],
      ['PostToolUse', '^update_plan$'],
    ]);
    expect(json(hooks.file).hooks.PostToolUse?.[0]?.matcher).toBe('Bash');
    const written = readFileSync(toml.file, 'utf8');
    expect(written.startsWith(toml.text)).toBe(true);
    expect(written.slice(toml.text.length)).toBe(
      [
        '',
        '# agent-tasks: begin (written by `agent-tasks hook install codex`; `agent-tasks hook uninstall codex` removes it)',
        '[mcp_servers.agent-tasks]',
        `command = ${JSON.stringify(process.execPath)}`,
        `args = [${JSON.stringify(agentTasksBin)}, "mcp"]`,
        'env_vars = ["AGENT_TASKS_URL", "AGENT_TASKS_TOKEN"]',
        '# agent-tasks: end',
        '',
      ].join('\n'),
    );
    expect(await agentTasks(['hook', 'uninstall', 'codex', '--scope', 'user'], f.project, f.home)).toMatchObject({ code: 0 });
    expect(readFileSync(toml.file, 'utf8')).toBe(toml.text);
    expect(JSON.parse(readFileSync(hooks.file, 'utf8'))).toEqual(JSON.parse(hooks.text));
  });

  it('codex, project scope with no config yet: creates .codex/hooks.json and config.toml; uninstall removes both', async () => {
    const f = folders();
    expect(await agentTasks(['hook', 'install', 'codex'], f.project, f.home)).toMatchObject({ code: 0, stderr: '' });
    expect(ours(path.join(f.project, '.codex/hooks.json'), 'codex')).toHaveLength(2);
    expect(existsSync(path.join(f.project, '.codex/config.toml'))).toBe(true);
    expect(await agentTasks(['hook', 'uninstall', 'codex'], f.project, f.home)).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(path.join(f.project, '.codex'))).toEqual([]);
  });

  it('gemini: .gemini/settings.json gets SessionStart, AfterTool for write_todos and BeforeAgent, beside its own settings', async () => {
    await roundTrip('gemini', 'project', 'project', '.gemini/settings.json', 'gemini/settings.json', (file) => {
      const settings = json(file) as unknown as { theme: string; hooks: Record<string, { hooks: { timeout?: number }[] }[]> };
      expect(settings.theme).toBe('GitHub');
      expect(ours(file, 'gemini')).toEqual([
        ['SessionStart', null],
        ['AfterTool', '^write_todos$'],
        ['BeforeAgent', null],
      ]);
      // Gemini CLI's timeouts are milliseconds.
      expect(settings.hooks.AfterTool?.[0]?.hooks[0]?.timeout).toBe(10000);
    });
  });

  it("opencode: writes one plugin file beside the project's other plugins; uninstall removes only it", async () => {
    const f = folders();
    const other = path.join(f.project, '.opencode/plugins/notify.js');
    mkdirSync(path.dirname(other), { recursive: true });
    writeFileSync(other, 'export const Notify = async () => ({});\n');
    for (let i = 0; i < 2; i++)
      expect(await agentTasks(['hook', 'install', 'opencode'], f.project, f.home)).toMatchObject({ code: 0, stderr: '' });
    const file = path.join(f.project, '.opencode/plugins/agent-tasks.js');
    expect(readFileSync(file, 'utf8')).toMatch(
      /^\/\/ agent-tasks: .*\nexport \{ AgentTasksPlugin \} from "file:\/\/.*\/packages\/sdk\/dist\/opencode\.js";\n$/s,
    );
    expect(readdirSync(path.dirname(file)).sort()).toEqual(['agent-tasks.js', 'notify.js']);
    expect(await agentTasks(['hook', 'uninstall', 'opencode'], f.project, f.home)).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(path.dirname(file))).toEqual(['notify.js']);
    // User scope: the opencode config folder.
    expect(await agentTasks(['hook', 'install', 'opencode', '--scope', 'user'], f.project, f.home)).toMatchObject({ code: 0 });
    expect(existsSync(path.join(f.home, '.config/opencode/plugins/agent-tasks.js'))).toBe(true);
  });

  it('refuses an unknown runtime, a bad scope and a settings file that is not JSON, writing nothing', async () => {
    const f = folders();
    expect(await agentTasks(['hook', 'install', 'cursor'], f.project, f.home)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error: unknown runtime "cursor"; expected one of claude-code, codex, gemini, opencode.\n',
    });
    expect(await agentTasks(['hook', 'install', 'gemini', '--scope', 'global'], f.project, f.home)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error: --scope must be project or user (got "global").\n',
    });
    const file = path.join(f.project, '.gemini/settings.json');
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{ "theme": ');
    const broken = await agentTasks(['hook', 'install', 'gemini'], f.project, f.home);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toMatch(
      new RegExp(`^Error: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not JSON \\(.+\\); nothing was written\\.\\n$`),
    );
    expect(readFileSync(file, 'utf8')).toBe('{ "theme": ');
    expect(readdirSync(f.project)).toEqual(['.gemini']);
  });
});
