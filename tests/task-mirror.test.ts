// Black-box tests of the live file mirror (`pnpm tasks mirror --dir .sisyphus/tasks --list <name>`): the CLI as a child
// process keeps a folder of one-JSON-file-per-task (seed 001's schema) in step with the list through the live feed;
// and exports of the same graph are byte-identical whatever order its edges were added in.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer, agentTasksBin } from './support/server.ts';
import { waitFor } from './support/webhook-receiver.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const repoRoot = path.resolve(import.meta.dirname, '..');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startMirror(token: string, dir: string, listName: string) {
  // The command as shipped: `agent-tasks tasks mirror`.
  const child = spawn(process.execPath, [agentTasksBin, 'tasks', 'mirror', '--dir', dir, '--list', listName], {
    cwd: repoRoot,
    env: { ...process.env, AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

const filesIn = (dir: string) => readdirSync(dir).sort();
const read = (dir: string, name: string) => readFileSync(path.join(dir, name), 'utf8');

describe('tasks mirror', () => {
  it('keeps one JSON file per task in the seed schema in step with the list: created, changed, deleted', async () => {
    const s = await sessionClient(server);
    const listName = 'mirrored';
    const a = await s.client.tasks.create({ listName, subject: 'Build frontend' });
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-mirror-')), '.sisyphus', 'tasks');
    const mirror = startMirror(s.token, dir, listName);
    await waitFor('the first sync', () => mirror.output().includes(`Mirrored list "${listName}"`), 20_000);
    expect(filesIn(dir)).toEqual([`${a.id}.json`]);
    writeFileSync(path.join(dir, 'notes.txt'), 'not a task file');

    const b = await s.client.tasks.create({ listName, subject: 'Build backend' });
    const c = await s.client.tasks.create({ listName, subject: 'Run integration tests', blockedBy: [a.id, b.id] });
    await waitFor('three task files', () => filesIn(dir).filter((f) => f.endsWith('.json')).length === 3);
    await waitFor('the edges in the files', () => (JSON.parse(read(dir, `${a.id}.json`)) as { blocks: string[] }).blocks.length === 1);
    const third = JSON.parse(read(dir, `${c.id}.json`));
    expect(Object.keys(third)).toEqual(['id', 'subject', 'description', 'status', 'blocks', 'blockedBy', 'threadID']);
    expect(third).toEqual({
      id: c.id,
      subject: 'Run integration tests',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [a.id, b.id],
      threadID: s.session.id,
    });

    await s.client.tasks.update({ listName, id: a.id, status: 'completed', owner: 'ana' });
    await waitFor('the change in the file', () => JSON.parse(read(dir, `${a.id}.json`)).status === 'completed');
    await s.client.tasks.update({ listName, id: b.id, status: 'deleted' });
    await waitFor('the deleted task gone', () => !filesIn(dir).includes(`${b.id}.json`));
    await waitFor('its edge gone', () => JSON.parse(read(dir, `${c.id}.json`)).blockedBy.length === 1);

    // What the folder holds is exactly the export, byte for byte; nothing else was touched or left behind.
    const exported = (await s.client.tasks.export({ listName, format: 'sisyphus' })).files.filter(
      (f) => JSON.parse(f.content).status !== 'deleted',
    );
    expect(filesIn(dir)).toEqual([...exported.map((f) => f.name), 'notes.txt'].sort());
    for (const f of exported) expect(read(dir, f.name)).toBe(f.content);
    expect(read(dir, 'notes.txt')).toBe('not a task file');
    expect(filesIn(dir).some((f) => f.endsWith('.tmp'))).toBe(false);

    mirror.child.kill('SIGTERM');
    await new Promise((resolve) => mirror.child.once('exit', resolve));
    expect(mirror.output()).toContain('Mirror stopped.');
  });

  it('two exports of the same graph are byte-identical, whatever order the edges and metadata keys came in', async () => {
    const s = await sessionClient(server);
    const build = async (listName: string, order: 'forward' | 'backward') => {
      const ids: string[] = [];
      for (const subject of ['A', 'B', 'C', 'D']) ids.push((await s.client.tasks.create({ listName, subject })).id);
      const [a, b, c, d] = ids as [string, string, string, string];
      const edges: [string, string][] = [
        [a, d],
        [b, d],
        [c, d],
        [a, c],
      ];
      for (const [blocker, blocked] of order === 'forward' ? edges : [...edges].reverse()) {
        await s.client.tasks.update({ listName, id: blocked, addBlockedBy: [blocker] });
      }
      await s.client.tasks.update({ listName, id: a, metadata: order === 'forward' ? { x: 1, y: 2 } : { y: 2, x: 1 } });
      return ids;
    };
    const one = await build('export-one', 'forward');
    const two = await build('export-two', 'backward');
    // Claude Code's files list edges in the order they were added, as Claude Code writes them: the same files and
    // edges, D's blockers in each list's own order.
    const claude = async (listName: string) => (await s.client.tasks.export({ listName, format: 'claude' })).files;
    const edgesOf = (files: { content: string }[]) =>
      files
        .map((f) => JSON.parse(f.content) as { blocks: string[]; blockedBy: string[] })
        .map((t) => [[...t.blocks].sort(), [...t.blockedBy].sort()]);
    const [first, second] = [await claude('export-one'), await claude('export-two')];
    expect(first.map((f) => f.name)).toEqual(second.map((f) => f.name));
    expect(edgesOf(first)).toEqual(edgesOf(second));
    expect([first, second].map((files) => JSON.parse(files[3]?.content ?? '').blockedBy)).toEqual([
      ['1', '2', '3'],
      ['3', '2', '1'],
    ]);
    // sisyphus files keep the ids; with each graph's ids put in the same places, the bytes are the same too
    const sisyphus = async (listName: string, ids: string[]) =>
      (await s.client.tasks.export({ listName, format: 'sisyphus' })).files.map((f) =>
        ids.reduce((text, id, i) => text.replaceAll(id, `T-${i + 1}`), f.content).replace(/"threadID": "[^"]+"/, ''),
      );
    expect(await sisyphus('export-one', one)).toEqual(await sisyphus('export-two', two));
    expect((await s.client.tasks.export({ listName: 'export-one', format: 'sisyphus' })).files).toEqual(
      (await s.client.tasks.export({ listName: 'export-one', format: 'sisyphus' })).files,
    );
  });
});
