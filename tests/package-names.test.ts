// The unscoped npm name `agent-tasks` belongs to another project: our packages are @agent-tasks/sdk and
// @agent-tasks/server, and no doc or --help text tells a user to fetch the unscoped one (`npx agent-tasks`,
// `npm install -g agent-tasks`, an MCP config running `npx` with `agent-tasks`). Reads every Markdown file and package
// manifest of the repository and the --help of both built `agent-tasks` commands and their subcommands.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTasksBin } from './support/server.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const sdkBin = path.join(repoRoot, 'packages/sdk/bin/agent-tasks.cjs');

/** Ways of telling a user to fetch or run the unscoped package. */
const UNSCOPED = [
  /\b(?:npx|bunx|pnpx)\s+(?:-\S+\s+)*agent-tasks(?![\w/-])/,
  /\b(?:pnpm|yarn)\s+dlx\s+(?:-\S+\s+)*agent-tasks(?![\w/-])/,
  /\b(?:npm|pnpm|yarn|bun)\s+(?:i|install|add)\s+(?:-\S+\s+)*agent-tasks(?![\w/-])/,
  /"command"\s*:\s*"npx"\s*,\s*"args"\s*:\s*\[\s*(?:"-[^"]*"\s*,\s*)*"agent-tasks"/,
];
const offences = (text: string) => UNSCOPED.flatMap((pattern) => text.match(pattern) ?? []);

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', '.git', '.turbo', 'generated', 'data'].includes(entry.name)) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full, keep) : keep(entry.name) ? [full] : [];
  });
}

function help(bin: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, ...args, '--help'], { cwd: repoRoot }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${args.join(' ')} --help: ${stderr}`));
      else resolve(stdout);
    });
  });
}

describe('no doc or help text sends a user to the unscoped `agent-tasks` package', () => {
  it('catches each way of saying it (the check itself)', () => {
    for (const bad of [
      'run `npx agent-tasks serve`',
      'npx -y agent-tasks hook codex',
      'npm install -g agent-tasks',
      'pnpm dlx agent-tasks mcp',
      '{ "command": "npx", "args": ["agent-tasks", "mcp"] }',
    ])
      expect(offences(bad), bad).not.toEqual([]);
    for (const good of [
      'npm install -g @agent-tasks/sdk',
      'npx agent-tasks-mcp',
      'npx --package @agent-tasks/sdk agent-tasks hook codex',
      'agent-tasks hook install codex',
      '{ "command": "npx", "args": ["agent-tasks-mcp"] }',
    ])
      expect(offences(good), good).toEqual([]);
  });

  it('in any Markdown file or package manifest of the repository', () => {
    const docs = files(repoRoot, (name) => name.endsWith('.md') || name === 'package.json');
    expect(docs.map((f) => path.relative(repoRoot, f))).toEqual(
      expect.arrayContaining(['README.md', 'docs/install.md', 'apps/server/package.json']),
    );
    const found = docs.flatMap((file) => offences(readFileSync(file, 'utf8')).map((text) => `${path.relative(repoRoot, file)}: ${text}`));
    expect(found).toEqual([]);
  });

  it("in the --help of the server's and the SDK's `agent-tasks` and of every subcommand", async () => {
    const commands = [
      [],
      ['serve'],
      ['keys'],
      ['migrate'],
      ['mcp'],
      ['hook'],
      ['hook', 'claude-code'],
      ['hook', 'codex'],
      ['hook', 'gemini'],
      ['hook', 'install'],
      ['hook', 'uninstall'],
      ['tasks'],
    ];
    const texts = await Promise.all([
      ...commands.map(async (args) => ({ what: `agent-tasks ${args.join(' ')}`, text: await help(agentTasksBin, args) })),
      (async () => ({ what: 'SDK agent-tasks', text: await help(sdkBin, []) }))(),
      (async () => ({ what: 'SDK agent-tasks tasks', text: await help(sdkBin, ['tasks']) }))(),
    ]);
    for (const { what, text } of texts) {
      expect(text, what).toMatch(/\S/);
      expect(offences(text), what).toEqual([]);
    }
    // The packages are named by their scope where the help names them.
    expect(texts.find((t) => t.what === 'SDK agent-tasks')?.text).toContain('@agent-tasks/server');
  });
});
