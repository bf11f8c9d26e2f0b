// Black-box tests: a task folder as Claude Code writes it (tests/fixtures/claude-code/tasks/release-train) goes in and
// comes out byte for byte: its numbers kept (task n is the list's #n), `.highwatermark`, each file's field layout,
// no trailing newline; a task deleted here is a removed file with its number stripped from the others' edges; the same
// folder imported again updates its tasks in place.
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTasksCli } from '@agent-tasks/sdk/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

const fixture = path.resolve(import.meta.dirname, 'fixtures/claude-code/tasks/release-train');

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

let lists = 0;
const freshList = () => `claude-${++lists}`;
const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-claude-'));

/** A copy of the fixture folder (Claude Code's `.lock` included), to import from and export into. */
function copyOfFixture() {
  const dir = path.join(tempDir(), 'release-train');
  cpSync(fixture, dir, { recursive: true });
  return dir;
}

/** Every file of a folder by name, with its exact bytes. */
const folder = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]),
  );

async function cli(args: string[], token: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runTasksCli(args, {
    env: { AGENT_TASKS_URL: server.url, AGENT_TASKS_TOKEN: token },
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('a Claude Code task folder round-trips exactly', () => {
  it('imported and exported again, is byte-identical: numbers kept, .highwatermark, layout, no trailing newline', async () => {
    const s = await sessionClient(server);
    const source = copyOfFixture();
    const listName = freshList();
    expect(await cli(['import', '--format', 'claude', '--dir', source, '--list', listName], s.token)).toEqual({
      code: 0,
      stdout: `Imported 5 tasks into list "${listName}" from ${source}.`,
      stderr: '',
    });

    // Claude Code's task n is the list's #n, and its blockers keep the order Claude Code gave them.
    const { tasks } = await s.client.tasks.list({ listName, includeCompleted: true });
    expect(tasks.map((t) => `${t.ref} ${t.subject}`)).toEqual([
      '#1 Build frontend',
      '#2 Build backend',
      '#4 Run integration tests',
      '#5 Deploy to production',
      '#6 Tag the release',
    ]);
    const [one, two, four] = await Promise.all(['#1', '#2', '#4'].map((id) => s.client.tasks.get({ listName, id })));
    expect(four?.blockedBy).toEqual([two?.id, one?.id]);
    // Text as Claude Code had it: the description's newlines, trailing one included.
    expect((await s.client.tasks.get({ listName, id: '#5' })).description).toBe('Ship it.\nRoll back if the health check fails.\n');

    const target = path.join(tempDir(), 'out');
    expect(await cli(['export', '--format', 'claude', '--dir', target, '--list', listName], s.token)).toEqual({
      code: 0,
      stdout: `Exported 5 tasks from list "${listName}" to ${target}.`,
      stderr: '',
    });
    const { '.lock': lock, ...written } = folder(fixture);
    expect(lock).toBe('');
    expect(folder(target)).toEqual(written);
    // Exported over the folder it came from, the folder is as Claude Code left it (its .lock untouched).
    expect((await cli(['export', '--format', 'claude', '--dir', source, '--list', listName], s.token)).code).toBe(0);
    expect(folder(source)).toEqual(folder(fixture));
  });

  it('numbers are never reused: a task created after the import is #7, exported as 7.json, after the .highwatermark', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    await cli(['import', '--format', 'claude', '--dir', copyOfFixture(), '--list', listName], s.token);
    const created = await s.client.tasks.create({ listName, subject: 'Announce the release', blockedBy: ['#6'] });
    expect(created.ref).toBe('#7');
    const { files } = await s.client.tasks.export({ listName, format: 'claude' });
    expect(files.map((f) => f.name)).toEqual(['1.json', '2.json', '4.json', '5.json', '6.json', '7.json', '.highwatermark']);
    expect(files.find((f) => f.name === '7.json')?.content).toBe(
      JSON.stringify(
        { id: '7', subject: 'Announce the release', description: '', status: 'pending', blocks: [], blockedBy: ['6'] },
        null,
        2,
      ),
    );
    expect(JSON.parse(files.find((f) => f.name === '6.json')?.content ?? '').blocks).toEqual(['7']);
    expect(files.find((f) => f.name === '.highwatermark')?.content).toBe('3');
  });

  it('a task deleted here is a removed file, its number stripped from the others\' edges, never "deleted"', async () => {
    const s = await sessionClient(server);
    const source = copyOfFixture();
    const listName = freshList();
    await cli(['import', '--format', 'claude', '--dir', source, '--list', listName], s.token);
    await s.client.tasks.update({ listName, id: '#6', status: 'deleted' });
    expect((await cli(['export', '--format', 'claude', '--dir', source, '--list', listName], s.token)).code).toBe(0);

    const after = folder(source);
    expect(Object.keys(after)).toEqual(['.highwatermark', '.lock', '1.json', '2.json', '4.json', '5.json']);
    // As Claude Code deletes: the file removed, the number out of 5's blocks, .highwatermark raised to it.
    expect(after['.highwatermark']).toBe('6');
    expect(JSON.parse(after['5.json'] ?? '')).toMatchObject({ id: '5', blocks: [], blockedBy: ['4'] });
    expect(Object.values(after).some((content) => content.includes('"deleted"'))).toBe(false);
    // Every other file is as Claude Code wrote it.
    const untouched = (files: Record<string, string>) => ['.lock', '1.json', '2.json', '4.json'].map((name) => files[name]);
    expect(untouched(after)).toEqual(untouched(folder(fixture)));
  });

  it('importing the same folder twice updates the same tasks in place: no duplicates, nothing recorded when unchanged', async () => {
    const s = await sessionClient(server);
    const source = copyOfFixture();
    const listName = freshList();
    const first = await cli(['import', '--format', 'claude', '--dir', source, '--list', listName], s.token);
    expect(first.code).toBe(0);
    const ids = (await s.client.tasks.list({ listName, includeCompleted: true })).tasks.map((t) => t.id);
    const changes = await countRows(server, 'TaskChange');

    expect(await cli(['import', '--format', 'claude', '--dir', source, '--list', listName], s.token)).toEqual(first);
    expect((await s.client.tasks.list({ listName, includeCompleted: true })).tasks.map((t) => t.id)).toEqual(ids);
    expect(await countRows(server, 'TaskChange')).toBe(changes);

    // Claude Code moved on: 4 started (its file rewritten as its update writes it) and 7 was created.
    const four = JSON.parse(readFileSync(path.join(source, '4.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(source, '4.json'), JSON.stringify({ ...four, status: 'in_progress' }, null, 2));
    writeFileSync(
      path.join(source, '7.json'),
      JSON.stringify({ id: '7', subject: 'Announce', description: 'Post it', status: 'pending', blocks: [], blockedBy: [] }, null, 2),
    );
    expect((await cli(['import', '--format', 'claude', '--dir', source, '--list', listName], s.token)).code).toBe(0);
    const { tasks } = await s.client.tasks.list({ listName, includeCompleted: true });
    expect(tasks.map((t) => [t.ref, t.status])).toEqual([
      ['#1', 'completed'],
      ['#2', 'in_progress'],
      ['#4', 'in_progress'],
      ['#5', 'pending'],
      ['#6', 'pending'],
      ['#7', 'pending'],
    ]);
    expect(tasks.slice(0, 5).map((t) => t.id)).toEqual(ids);
    expect(tasks.find((t) => t.ref === '#4')?.version).toBe(2);
    const history = await s.client.tasks.history({ listName, id: '#4' });
    expect(history.changes.map((c) => [c.kind, Object.keys(c.changes)])).toEqual([
      ['imported', expect.arrayContaining(['subject', 'status'])],
      ['updated', ['status']],
    ]);
    // And back out: the folder as Claude Code has it now.
    const target = path.join(tempDir(), 'out');
    await cli(['export', '--format', 'claude', '--dir', target, '--list', listName], s.token);
    const { '.lock': lock, ...now } = folder(source);
    expect(lock).toBe('');
    expect(folder(target)).toEqual(now);
  });

  it('refuses a .highwatermark that is not a number, recording nothing', async () => {
    const s = await sessionClient(server);
    const before = await countRows(server, 'Task');
    const files = [
      { name: '1.json', content: readFileSync(path.join(fixture, '1.json'), 'utf8').replace('"blocks": [\n    "4"\n  ]', '"blocks": []') },
      { name: '.highwatermark', content: 'three' },
    ];
    expect(await refused(s.client.tasks.import({ listName: freshList(), format: 'claude', files }))).toMatchObject({
      message: 'Error: invalid import: .highwatermark: expected a whole number (got "three").',
    });
    expect(await countRows(server, 'Task')).toBe(before);
  });
});
