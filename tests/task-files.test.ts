// Black-box tests of task-file import and export over HTTP and through the CLI: Claude Code and sisyphus folders, all or nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runTasksCli } from '@agent-tasks/sdk/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentTasksClient, countRows, keyClient, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { sourceNodeArgs } from './support/source-node.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

let lists = 0;
const freshList = () => `files-${++lists}`;
const rows = async () => ({
  tasks: await countRows(server, 'Task'),
  edges: await countRows(server, 'TaskEdge'),
  changes: await countRows(server, 'TaskChange'),
});
const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-files-'));

const claudeFile = (id: string, fields: Record<string, unknown> = {}) => ({
  name: `${id}.json`,
  content: `${JSON.stringify({ id, subject: `Task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...fields }, null, 2)}\n`,
});

/** The seed's example as a Claude Code folder: 3 waits on 1 and 2 (said once from each side), 4 waits on 3. */
const seedExample = () => [
  claudeFile('1', { subject: 'Build frontend', activeForm: 'Building frontend', blocks: ['3'], status: 'completed' }),
  claudeFile('2', { subject: 'Build backend', owner: 'backend-agent', status: 'in_progress' }),
  claudeFile('3', { subject: 'Run integration tests', description: 'all suites', blockedBy: ['1', '2'], metadata: { suite: 'e2e' } }),
  claudeFile('4', { subject: 'Deploy', blockedBy: ['3'] }),
];

/** What an export writes for the example's task 3: both sides of its edges, though the source said 3 → 4 only from 4's side. */
const exportedTask3 = {
  id: '3',
  subject: 'Run integration tests',
  description: 'all suites',
  status: 'pending',
  blocks: ['4'],
  blockedBy: ['1', '2'],
  metadata: { suite: 'e2e' },
};

/** Every task of a list (any status) with its edges, by subject. */
async function graphOf(client: AgentTasksClient, listName: string) {
  const { tasks } = await client.tasks.list({ listName, status: ['pending', 'in_progress', 'completed', 'deleted'] });
  const subjectOf = new Map(tasks.map((t) => [t.id, t.subject]));
  return Promise.all(
    tasks.map(async (summary) => {
      const t = await client.tasks.get({ listName, id: summary.id });
      return {
        subject: t.subject,
        status: t.status,
        blockedBy: t.blockedBy.map((id) => subjectOf.get(id)),
        blocks: t.blocks.map((id) => subjectOf.get(id)),
      };
    }),
  );
}

describe('import a Claude Code folder', () => {
  it('maps each numbered task to a new T-… id, keeps fields and edges, in number order, recorded as imported', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const result = await s.client.tasks.import({ listName, format: 'claude', files: seedExample().reverse() });
    expect(result).toMatchObject({ listName, imported: 4 });
    expect(Object.keys(result.ids).sort()).toEqual(['1', '2', '3', '4']);
    const id = (n: string) => result.ids[n] as string;
    for (const n of ['1', '2', '3', '4']) expect(id(n)).toMatch(/^T-[0-9a-f-]{36}$/);

    const tests = await s.client.tasks.get({ listName, id: id('3') });
    expect(tests).toMatchObject({
      subject: 'Run integration tests',
      description: 'all suites',
      status: 'pending',
      metadata: { suite: 'e2e' },
      blockedBy: [id('1'), id('2')],
      blocks: [id('4')],
      threadID: s.session.id,
      version: 1,
    });
    expect(await s.client.tasks.get({ listName, id: id('1') })).toMatchObject({
      activeForm: 'Building frontend',
      status: 'completed',
      blocks: [id('3')],
    });
    expect(await s.client.tasks.get({ listName, id: id('2') })).toMatchObject({ owner: 'backend-agent', status: 'in_progress' });

    const listed = await s.client.tasks.list({ listName, includeCompleted: true });
    expect(listed.tasks.map((t) => [t.id, t.blockedBy])).toEqual([
      [id('1'), []],
      [id('2'), []],
      [id('3'), [id('2')]],
      [id('4'), [id('3')]],
    ]);
    const history = await s.client.tasks.history({ listName, id: id('3') });
    expect(history.changes.map((c) => c.kind)).toEqual(['imported']);
    expect(history.changes[0]?.changes.blockedBy).toEqual({ from: [], to: [id('1'), id('2')] });
  });

  it('imports a batch of 600 chained tasks in one go: each recorded once, at version 1, edges across the batch intact', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const before = await rows();
    const files = Array.from({ length: 600 }, (_, i) => claudeFile(String(i + 1), { blockedBy: i ? [String(i)] : [] }));
    const { ids, imported } = await s.client.tasks.import({ listName, format: 'claude', files });
    expect(imported).toBe(600);
    expect(await rows()).toEqual({ tasks: before.tasks + 600, edges: before.edges + 599, changes: before.changes + 600 });
    for (const n of [1, 200, 201, 600]) {
      const t = await s.client.tasks.get({ listName, id: ids[String(n)] as string });
      expect(t).toMatchObject({
        subject: `Task ${n}`,
        version: 1,
        blockedBy: n > 1 ? [ids[String(n - 1)]] : [],
        blocks: n < 600 ? [ids[String(n + 1)]] : [],
      });
      const { changes } = await s.client.tasks.history({ listName, id: t.id });
      expect(changes.map((c) => [c.kind, c.changes.blocks?.to ?? [], c.changes.blockedBy?.to ?? []])).toEqual([
        ['imported', t.blocks, t.blockedBy],
      ]);
    }
  });

  it('called with an API key, records the thread as import:<keyId>', async () => {
    const agent = await keyClient(server, 'agent');
    const { keyId } = await agent.workspaces.whoami();
    const listName = freshList();
    const { ids } = await agent.tasks.import({ listName, format: 'claude', files: [claudeFile('1')] });
    expect((await agent.tasks.get({ listName, id: ids['1'] as string })).threadID).toBe(`import:${keyId}`);
  });

  it('a malformed file anywhere in the batch imports nothing', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const before = await rows();
    const files = [...seedExample(), { name: '5.json', content: '{"id": "5", "subject": ' }];
    const refusal = await refused(s.client.tasks.import({ listName, format: 'claude', files }));
    expect(refusal.message).toBe('Error: invalid import: 5.json: not valid JSON.');
    expect(refusal.code).toBe('INVALID_IMPORT');

    const empty = await refused(
      s.client.tasks.import({ listName, format: 'claude', files: [...seedExample(), claudeFile('5', { subject: ' ' })] }),
    );
    expect(empty.message).toBe('Error: invalid import: 5.json: `subject` must be a non-empty string.');
    const cycle = await refused(
      s.client.tasks.import({
        listName,
        format: 'claude',
        files: [...seedExample(), claudeFile('5', { blockedBy: ['4'], blocks: ['1'] })],
      }),
    );
    expect(cycle.message).toBe('Error: invalid import: 1.json: dependency cycle 1 → 3 → 4 → 5 → 1.');
    expect(await rows()).toEqual(before);
    // Nothing was recorded: not a task, not even the list.
    expect((await refused(s.client.tasks.list({ listName }))).message).toMatch(
      new RegExp(`^Error: task list "${listName}" does not exist; `),
    );
  });

  it('refuses a viewer key, and a format it does not know', async () => {
    const viewer = await keyClient(server, 'viewer');
    const before = await rows();
    const forbidden = await refused(viewer.tasks.import({ format: 'claude', files: seedExample() }));
    expect(forbidden.message).toBe('Error: forbidden: viewer keys are read-only (this key is viewer).');
    const s = await sessionClient(server);
    const format = await refused(s.client.tasks.import({ format: 'jira' as never, files: seedExample() }));
    expect(format.message).toBe('Error: invalid input: `format` must be "sisyphus" or "claude".');
    expect(await rows()).toEqual(before);
  });
});

describe('sisyphus files', () => {
  const sisyphusFile = (id: string, fields: Record<string, unknown> = {}) => ({
    name: `${id}.json`,
    content: JSON.stringify({ id, subject: `Task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...fields }),
  });

  it('keeps the T-… ids and the file threadID (the caller session when it has none); an id taken in the list refuses the whole batch', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const suffix = Math.random().toString(36).slice(2, 10);
    const [a, b] = [`T-a-${suffix}`, `T-b-${suffix}`];
    const result = await s.client.tasks.import({
      listName,
      format: 'sisyphus',
      files: [sisyphusFile(a, { threadID: 'ses_opencode_1' }), sisyphusFile(b, { blockedBy: [a] })],
    });
    expect(result.ids).toEqual({ [a]: a, [b]: b });
    expect(await s.client.tasks.get({ listName, id: a })).toMatchObject({ threadID: 'ses_opencode_1', blocks: [b] });
    expect(await s.client.tasks.get({ listName, id: b })).toMatchObject({ threadID: s.session.id, blockedBy: [a] });

    const before = await rows();
    const c = `T-c-${suffix}`;
    const taken = await refused(s.client.tasks.import({ listName, format: 'sisyphus', files: [sisyphusFile(c), sisyphusFile(b)] }));
    expect(taken.message).toBe(`Error: invalid import: task ${b} already exists.`);
    expect(taken.code).toBe('INVALID_IMPORT');
    expect(await rows()).toEqual(before);
  });

  it('exports a list as <T-id>.json files with threadID, deleted tasks included', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const first = await s.client.tasks.create({ listName, subject: 'Keep' });
    const gone = await s.client.tasks.create({ listName, subject: 'Drop', blockedBy: [first.id] });
    await s.client.tasks.update({ listName, id: gone.id, status: 'deleted' });
    const { files } = await s.client.tasks.export({ listName, format: 'sisyphus' });
    expect(files.map((f) => f.name)).toEqual([`${first.id}.json`, `${gone.id}.json`]);
    expect(JSON.parse(files[1]?.content ?? '')).toEqual({
      id: gone.id,
      subject: 'Drop',
      description: '',
      status: 'deleted',
      blocks: [],
      blockedBy: [],
      threadID: s.session.id,
    });
  });
});

describe('export', () => {
  it('export → import into another list keeps subjects, statuses and edges; a viewer may export', async () => {
    const s = await sessionClient(server);
    const from = freshList();
    await s.client.tasks.import({ listName: from, format: 'claude', files: seedExample() });
    const viewer = await keyClient(server, 'viewer');
    const exported = await viewer.tasks.export({ listName: from, format: 'claude' });
    expect(exported.listName).toBe(from);
    expect(exported.files.map((f) => f.name)).toEqual(['1.json', '2.json', '3.json', '4.json']);
    expect(JSON.parse(exported.files[2]?.content ?? '')).toEqual(exportedTask3);

    const to = freshList();
    await s.client.tasks.import({ listName: to, format: 'claude', files: exported.files });
    expect(await graphOf(s.client, to)).toEqual(await graphOf(s.client, from));
    expect(await graphOf(s.client, to)).toEqual([
      { subject: 'Build frontend', status: 'completed', blockedBy: [], blocks: ['Run integration tests'] },
      { subject: 'Build backend', status: 'in_progress', blockedBy: [], blocks: ['Run integration tests'] },
      { subject: 'Run integration tests', status: 'pending', blockedBy: ['Build frontend', 'Build backend'], blocks: ['Deploy'] },
      { subject: 'Deploy', status: 'pending', blockedBy: ['Run integration tests'], blocks: [] },
    ]);
  });

  it('answers no files for a list that does not exist, and creates nothing', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    expect(await s.client.tasks.export({ listName, format: 'claude' })).toEqual({ listName, files: [] });
  });
});

describe('the CLI', () => {
  const cli = (args: string[], env: Record<string, string>) =>
    run(process.execPath, [...sourceNodeArgs, 'packages/sdk/bin/agent-tasks-files.js', ...args], {
      cwd: repoRoot,
      env: { ...process.env, AGENT_TASKS_URL: '', AGENT_TASKS_TOKEN: '', ...env },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  it('imports a folder of Claude Code files and exports a list to a folder', async () => {
    const s = await sessionClient(server);
    const env = { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: s.token };
    const source = tempDir();
    for (const f of seedExample()) writeFileSync(path.join(source, f.name), f.content);
    writeFileSync(path.join(source, '.highwatermark'), '4');
    const listName = freshList();

    const imported = await cli(['import', '--format', 'claude', '--dir', source, '--list', listName], env);
    expect(imported).toEqual({ code: 0, stdout: `Imported 4 tasks into list "${listName}" from ${source}.\n`, stderr: '' });
    expect((await graphOf(s.client, listName)).map((t) => t.subject)).toEqual([
      'Build frontend',
      'Build backend',
      'Run integration tests',
      'Deploy',
    ]);

    const target = path.join(tempDir(), 'tasks');
    const exported = await cli(
      ['export', '--format', 'claude', '--dir', target, '--list', listName, '--url', server.url, '--token', s.token],
      {},
    );
    expect(exported).toEqual({ code: 0, stdout: `Exported 4 tasks from list "${listName}" to ${target}.\n`, stderr: '' });
    expect(readdirSync(target).sort()).toEqual(['1.json', '2.json', '3.json', '4.json']);
    // Both sides of every edge are written, though the source said 3 → 4 only from 4's side.
    expect(readFileSync(path.join(target, '3.json'), 'utf8')).toBe(JSON.stringify(exportedTask3, null, 2));
    expect(JSON.parse(readFileSync(path.join(target, '4.json'), 'utf8'))).toEqual(JSON.parse(seedExample()[3]?.content ?? ''));
  });

  it('prints a refusal to stderr and exits 1; writes nothing', async () => {
    const s = await sessionClient(server);
    const env = { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: s.token };
    const source = tempDir();
    writeFileSync(path.join(source, '1.json'), claudeFile('1').content);
    writeFileSync(path.join(source, '2.json'), JSON.stringify({ id: '2', subject: 'x', status: 'pending', blockedBy: ['7'] }));
    const before = await rows();
    const out = await cli(['import', '--format', 'claude', '--dir', source], env);
    expect(out).toEqual({ code: 1, stdout: '', stderr: 'Error: invalid import: 2.json: blockedBy names unknown task "7".\n' });
    expect(await rows()).toEqual(before);

    expect(await cli(['import', '--format', 'claude', '--dir', source], {})).toMatchObject({
      code: 1,
      stderr: 'Error: set AGENT_TASKS_URL and AGENT_TASKS_TOKEN (or pass --url and --token).\n',
    });
    expect(await cli(['import', '--format', 'trello', '--dir', source], env)).toMatchObject({
      code: 1,
      stderr: 'Error: `--format` must be "claude" or "sisyphus".\n',
    });
  });

  it('prints its usage for --help and refuses an unknown flag', async () => {
    const help = await cli(['import', '--help'], {});
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: agent-tasks-files import\|export --format claude\|sisyphus \[--dir <folder>\] /);
    expect(help.stdout).toContain('--list <name>     the task list; default "default"');
    expect(await cli(['export', '--dir', tempDir(), '--bogus'], {})).toEqual({
      code: 1,
      stdout: '',
      stderr: `Error: Unknown option '--bogus'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- "--bogus"\n`,
    });
  });

  it("runs in-process as runTasksCli(argv, options): the command name, environment and output are the caller's", async () => {
    const s = await sessionClient(server);
    const source = tempDir();
    for (const f of seedExample()) writeFileSync(path.join(source, f.name), f.content);
    const listName = freshList();
    const out: string[] = [];
    const err: string[] = [];
    const io = { command: 'agent-tasks tasks', stdout: (line: string) => out.push(line), stderr: (line: string) => err.push(line) };

    expect(
      await runTasksCli(['import', '--format', 'claude', '--dir', source, '--list', listName], {
        ...io,
        env: { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: s.token },
      }),
    ).toBe(0);
    expect(out).toEqual([`Imported 4 tasks into list "${listName}" from ${source}.`]);
    expect(await runTasksCli(['--help'], { ...io, env: {} })).toBe(0);
    expect(out[1]).toMatch(/^usage: agent-tasks tasks import\|export /);
    expect(await runTasksCli(['import', '--format', 'claude', '--dir', source], { ...io, env: {} })).toBe(1);
    expect(err).toEqual(['Error: set AGENT_TASKS_URL and AGENT_TASKS_TOKEN (or pass --url and --token).']);
  });
});
