// Black-box tests of what oh-my-opencode 4.19 sends and writes: its task files' repoURL and parentID kept through
// import, TaskCreate, TaskGet and export; TaskList({ status: "pending" }) (one value, as it sends it) over tRPC, MCP and
// the tool kit; and its task folder found as it finds it (opencode config dir, list id from the environment or its
// config, `storage_path`), by `tasks import` and `tasks mirror`.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentTools, createDispatcher } from '@agent-tasks/sdk';
import { opencodeTaskFolder, runTasksCli } from '@agent-tasks/sdk/cli';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { countRows, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { sourceNodeArgs } from './support/source-node.ts';
import { waitFor } from './support/webhook-receiver.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const fixture = path.resolve(import.meta.dirname, 'fixtures/oh-my-opencode/tasks/release-train');
const fixtureFiles = () =>
  readdirSync(fixture)
    .sort()
    .map((name) => ({ name, content: readFileSync(path.join(fixture, name), 'utf8') }));
const FRONTEND = 'T-3f0c2a8e-5b1d-4c7e-9a42-1d6b8e0f7c31';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
});

let lists = 0;
const freshList = () => `omo-${++lists}`;
const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-omo-'));

describe("oh-my-opencode's task fields", () => {
  it('keeps repoURL, parentID and threadID through import, TaskGet and export', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    expect(await s.client.tasks.import({ listName, format: 'sisyphus', files: fixtureFiles() })).toMatchObject({ imported: 3 });
    expect(await s.client.tasks.get({ listName, id: 'T-8b7d6c5e-4f3a-4b2c-8d1e-0f9a8b7c6d5e' })).toMatchObject({
      repoURL: 'https://github.com/acme/shop',
      parentID: FRONTEND,
      threadID: 'ses_2f4e6a8c0b1d3f5a',
      owner: 'sisyphus',
    });
    const frontend = await s.client.tasks.get({ listName, id: FRONTEND });
    expect(frontend.repoURL).toBe('https://github.com/acme/shop');
    expect('parentID' in frontend).toBe(false);
    const { files } = await s.client.tasks.export({ listName, format: 'sisyphus' });
    expect(files.map((f) => f.name)).toEqual(fixtureFiles().map((f) => f.name));
    for (const f of fixtureFiles()) {
      const out = files.find((x) => x.name === f.name)?.content ?? '';
      // The same fields in the same order as oh-my-opencode's schema.
      expect(Object.keys(JSON.parse(out))).toEqual(Object.keys(JSON.parse(f.content)));
      expect(JSON.parse(out)).toEqual(JSON.parse(f.content));
    }
  });

  it('TaskCreate takes repoURL and parentID (tRPC, tool kit, MCP); TaskUpdate changes or clears them', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const made = await s.client.tasks.create({ listName, subject: 'Plan', repoURL: 'https://github.com/acme/shop', parentID: 'T-root' });
    expect(made).toMatchObject({ repoURL: 'https://github.com/acme/shop', parentID: 'T-root' });
    const updated = await s.client.tasks.update({ listName, id: made.id, repoURL: 'https://github.com/acme/api', parentID: null });
    expect(updated.repoURL).toBe('https://github.com/acme/api');
    expect('parentID' in updated).toBe(false);
    expect((await s.client.tasks.history({ listName, id: made.id })).changes.map((c) => c.changes)).toEqual([
      expect.objectContaining({ repoURL: { from: null, to: 'https://github.com/acme/shop' }, parentID: { from: null, to: 'T-root' } }),
      expect.objectContaining({
        repoURL: { from: 'https://github.com/acme/shop', to: 'https://github.com/acme/api' },
        parentID: { from: 'T-root', to: null },
      }),
    ]);
    const dispatch = createDispatcher(agentTools(s.client));
    const viaKit = await dispatch({ name: 'TaskCreate', arguments: { listName, subject: 'Kit', repoURL: 'r', parentID: made.id } });
    const kitId = /^Created (T-\S+) /.exec(viaKit)?.[1] as string;
    expect(await s.client.tasks.get({ listName, id: kitId })).toMatchObject({ repoURL: 'r', parentID: made.id });

    const mcp = new Client({ name: 'omo-tests', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${s.token}` } } }),
    );
    try {
      const answer = await mcp.callTool({ name: 'TaskCreate', arguments: { listName, subject: 'Mcp', repoURL: 'm', parentID: 'T-x' } });
      const text = (answer.content as { text: string }[])[0]?.text ?? '';
      expect(answer.isError).not.toBe(true);
      const mcpId = /^Created (T-\S+) /.exec(text)?.[1] as string;
      expect(await s.client.tasks.get({ listName, id: mcpId })).toMatchObject({ repoURL: 'm', parentID: 'T-x' });
    } finally {
      await mcp.close();
    }
    const before = await countRows(server, 'Task');
    expect(await refused(s.client.tasks.create({ listName, subject: 'Too long', repoURL: 'x'.repeat(2001) }))).toMatchObject({
      message: 'Error: invalid task: `repoURL` must be at most 2000 characters (got 2001).',
    });
    expect(await countRows(server, 'Task')).toBe(before);
  });

  it('TaskList({ status: "pending" }) is accepted over tRPC, the tool kit and MCP; a bad one is refused with its text', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const a = await s.client.tasks.create({ listName, subject: 'Waiting' });
    const b = await s.client.tasks.create({ listName, subject: 'Started' });
    await s.client.tasks.update({ listName, id: b.id, status: 'in_progress' });
    expect((await s.client.tasks.list({ listName, status: 'pending' })).tasks.map((t) => t.id)).toEqual([a.id]);
    expect((await s.client.tasks.list({ listName, status: ['in_progress'] })).tasks.map((t) => t.id)).toEqual([b.id]);

    const dispatch = createDispatcher(agentTools(s.client));
    expect(await dispatch({ name: 'TaskList', arguments: { listName, status: 'pending' } })).toMatch(
      /^#1 \[pending\] Waiting +blockedBy: \[\]$/,
    );
    const mcp = new Client({ name: 'omo-tests', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${s.token}` } } }),
    );
    try {
      const answer = await mcp.callTool({ name: 'TaskList', arguments: { listName, status: 'in_progress' } });
      expect(answer.isError).not.toBe(true);
      expect((answer.content as { text: string }[])[0]?.text).toMatch(/^#2 \[in_progress\] Started +blockedBy: \[\]$/);
    } finally {
      await mcp.close();
    }
    const text = 'Error: invalid input: `status` must be one of pending, in_progress, completed, deleted, or a list of them (got "done").';
    expect(await refused(s.client.tasks.list({ listName, status: 'done' as 'pending' }))).toMatchObject({ message: text });
    expect(await dispatch({ name: 'TaskList', arguments: { listName, status: 'done' } })).toBe(text);
  });
});

/** A home folder with oh-my-opencode's configs: `~/.omo/omo.jsonc` and a project under it with its own `.omo`. */
function homeWithConfigs(user: string | null, project: string | null) {
  const home = tempDir();
  const cwd = path.join(home, 'code', 'shop');
  mkdirSync(cwd, { recursive: true });
  if (user !== null) {
    mkdirSync(path.join(home, '.omo'));
    writeFileSync(path.join(home, '.omo', 'omo.jsonc'), user);
  }
  if (project !== null) {
    mkdirSync(path.join(cwd, '.omo'));
    writeFileSync(path.join(cwd, '.omo', 'omo.json'), project);
  }
  return { home, cwd };
}

describe("oh-my-opencode's task folder, found as it finds it", () => {
  it('<opencode config>/tasks/<list id>: ULTRAWORK_TASK_LIST_ID, then CLAUDE_CODE_TASK_LIST_ID, then task_list_id, then the folder name', () => {
    const { home, cwd } = homeWithConfigs(
      '{\n  // user settings\n  "sisyphus": { "tasks": { "task_list_id": "team board", }, },\n}\n',
      null,
    );
    const config = path.join(home, '.config', 'opencode');
    const env = { HOME: home };
    expect(opencodeTaskFolder({ env, cwd })).toBe(path.join(config, 'tasks', 'team-board'));
    expect(opencodeTaskFolder({ env: { ...env, CLAUDE_CODE_TASK_LIST_ID: 'team.alpha' }, cwd })).toBe(
      path.join(config, 'tasks', 'team-alpha'),
    );
    expect(opencodeTaskFolder({ env: { ...env, CLAUDE_CODE_TASK_LIST_ID: 'cc', ULTRAWORK_TASK_LIST_ID: ' ulw ' }, cwd })).toBe(
      path.join(config, 'tasks', 'ulw'),
    );
    const bare = homeWithConfigs(null, null);
    expect(opencodeTaskFolder({ env: { HOME: bare.home }, cwd: bare.cwd })).toBe(
      path.join(bare.home, '.config', 'opencode', 'tasks', 'shop'),
    );
    // The opencode config folder: OPENCODE_CONFIG_DIR, else XDG_CONFIG_HOME/opencode.
    const xdg = tempDir();
    expect(opencodeTaskFolder({ env: { HOME: bare.home, XDG_CONFIG_HOME: xdg }, cwd: bare.cwd })).toBe(
      path.join(xdg, 'opencode', 'tasks', 'shop'),
    );
    const custom = tempDir();
    expect(opencodeTaskFolder({ env: { HOME: bare.home, XDG_CONFIG_HOME: xdg, OPENCODE_CONFIG_DIR: custom }, cwd: bare.cwd })).toBe(
      path.join(custom, 'tasks', 'shop'),
    );
  });

  it('the nearest project config wins over the user one; .sisyphus/tasks only through storage_path', () => {
    const { home, cwd } = homeWithConfigs(
      '{ "sisyphus": { "tasks": { "task_list_id": "user-list" } } }',
      '{ "sisyphus": { "tasks": { "storage_path": ".sisyphus/tasks" } } }',
    );
    expect(opencodeTaskFolder({ env: { HOME: home }, cwd })).toBe(path.join(cwd, '.sisyphus', 'tasks'));
    const absolute = homeWithConfigs(null, '{ "[opencode]": { "sisyphus": { "tasks": { "storage_path": "/srv/tasks" } } } }');
    expect(opencodeTaskFolder({ env: { HOME: absolute.home }, cwd: absolute.cwd })).toBe('/srv/tasks');
    const listOnly = homeWithConfigs(
      '{ "sisyphus": { "tasks": { "storage_path": "ignored" } } }',
      '{ "sisyphus": { "tasks": { "task_list_id": "p" } } }',
    );
    // A section replaces the one before it whole, as oh-my-opencode merges its configs.
    expect(opencodeTaskFolder({ env: { HOME: listOnly.home }, cwd: listOnly.cwd })).toBe(
      path.join(listOnly.home, '.config', 'opencode', 'tasks', 'p'),
    );
  });

  it('`tasks import` and `tasks mirror` without --dir use that folder', async () => {
    const s = await sessionClient(server);
    const { home, cwd } = homeWithConfigs(null, null);
    const env = { HOME: home, ULTRAWORK_TASK_LIST_ID: 'release-train', AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: s.token };
    const folder = path.join(home, '.config', 'opencode', 'tasks', 'release-train');
    cpSync(fixture, folder, { recursive: true });
    const listName = freshList();
    const out: string[] = [];
    const code = await runTasksCli(['import', '--format', 'sisyphus', '--list', listName], { env, cwd, stdout: (l) => out.push(l) });
    expect([code, out]).toEqual([0, [`Imported 3 tasks into list "${listName}" from ${folder}.`]]);

    const mirrored = path.join(home, '.config', 'opencode', 'tasks', 'mirror-list');
    const child = spawn(
      process.execPath,
      [...sourceNodeArgs, path.join(repoRoot, 'packages/sdk/bin/agent-tasks-files.js'), 'mirror', '--list', listName],
      {
        cwd,
        env: { ...process.env, OPENCODE_CONFIG_DIR: '', XDG_CONFIG_HOME: '', ...env, ULTRAWORK_TASK_LIST_ID: 'mirror-list' },
        stdio: 'ignore',
      },
    );
    started.push(child);
    const names = fixtureFiles()
      .map((f) => f.name)
      .join();
    await waitFor(
      'the mirror to write the tasks',
      async () => existsSync(mirrored) && readdirSync(mirrored).sort().join() === names,
      30_000,
      50,
    );
  });
});
