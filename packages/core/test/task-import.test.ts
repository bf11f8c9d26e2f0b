// Unit tests of task-file import against the in-memory store: rows staged in a hidden list over several short
// transactions, invisible until one last transaction makes them the list's; all or nothing when any step fails.
import { beforeEach, describe, expect, it } from 'vitest';
import { type Actor, type StagedRows, taskFiles, tasks } from '../src/index.ts';
import type { Hook } from './memory-store.ts';
import { type World, makeWorld } from './fixtures.ts';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});

/** `n` Claude Code files numbered from `from`, each (but every tenth) blocked by the one before. */
const files = (n: number, prefix = 'task', from = 1) =>
  Array.from({ length: n }, (_, i) => ({
    name: `${from + i}.json`,
    content: JSON.stringify({
      id: String(from + i),
      subject: `${prefix} ${i + 1}`,
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: i > 0 && i % 10 !== 0 ? [String(from + i - 1)] : [],
    }),
  }));
const importInto = (listName: string, n: number, actor: Actor = w.session, from = 1) =>
  taskFiles.importTasks(w.deps, actor, { listName, format: 'claude', files: files(n, listName, from) });
/** The same tasks as sisyphus files (ids T-<prefix>-n). */
const sisyphusInto = (listName: string, n: number) =>
  taskFiles.importTasks(w.deps, w.session, {
    listName,
    format: 'sisyphus',
    files: files(n, listName).map(({ content }) => {
      const task = JSON.parse(content) as { id: string; blockedBy: string[] };
      const id = (n: string) => `T-${listName}-${n}`;
      return { name: `${id(task.id)}.json`, content: JSON.stringify({ ...task, id: id(task.id), blockedBy: task.blockedBy.map(id) }) };
    }),
  });
/** Runs `hook` just before the next staging write of change records (the last rows an import stages). */
const onStagedChanges = (hook: () => void | Promise<void>) => {
  const wait: Hook = async (_repos, args) => {
    if ((args[2] as StagedRows).changes) await hook();
    else w.store.once('tasks.stageImport', wait);
  };
  w.store.once('tasks.stageImport', wait);
};
const stagingLists = () => [...w.store.snapshot().taskLists.values()].filter((l) => l.staging);
const listed = (listName: string) => tasks.list(w.deps, w.viewer, { listName, status: ['pending'], limit: 1000 });

describe('a large import', () => {
  it('writes in several short transactions into a hidden list; nothing shows until the last one', async () => {
    const seen: { lists: string[]; staging: number }[] = [];
    for (let i = 0; i < 3; i++) {
      onStagedChanges(async () => {
        seen.push({ lists: await w.store.tasks.listNames(w.workspaceId), staging: stagingLists().length });
      });
    }
    const commitsBefore = w.store.commits;
    const result = await importInto('big', 450);

    expect(result.imported).toBe(450);
    // Tasks, edges, order, readiness counts and changes, a few hundred rows per transaction, then the move.
    expect(w.store.commits - commitsBefore).toBeGreaterThanOrEqual(12);
    expect(seen).toEqual([
      { lists: [], staging: 1 },
      { lists: [], staging: 1 },
      { lists: [], staging: 1 },
    ]);
    expect(stagingLists()).toEqual([]);
    const page = await listed('big');
    expect(page.tasks.map((t) => t.ref)).toEqual(Array.from({ length: 450 }, (_, i) => `#${i + 1}`));
    expect(page.tasks.filter((t) => t.ready).length).toBe(45);
    const changes = await tasks.changesAfter(w.deps, w.viewer, { listName: 'big', after: 0, limit: 1000 });
    expect(changes.events.map((e) => e.seq)).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
    expect(changes.events[449]?.task).toMatchObject({ ref: '#450', listName: 'big', blockedBy: [page.tasks[448]?.id] });
    const published = w.events.published.filter((e) => e.topic.endsWith(':big'));
    expect(published.map((e) => e.id)).toEqual(changes.events.map((e) => String(e.seq)));
  });

  it('is all or nothing: a failure after some transactions leaves no task, edge, change or list, new or existing', async () => {
    await importInto('kept', 3);
    for (const listName of ['lost', 'kept']) {
      const before = w.store.snapshot();
      const published = w.events.published.length;
      let calls = 0;
      const failSecond = async () => {
        if (++calls === 2) throw new Error('disk full');
        onStagedChanges(failSecond);
      };
      onStagedChanges(failSecond);
      await expect(importInto(listName, 450, w.session, 4)).rejects.toThrow('disk full');
      expect(w.store.snapshot()).toEqual(before);
      expect(w.events.published.length).toBe(published);
    }
  });

  it("Claude Code numbers are the import's from its start: a task created in the list meanwhile is numbered after them", async () => {
    await importInto('numbered', 2);
    let meanwhile: Promise<{ ref?: string | undefined }> = Promise.resolve({});
    onStagedChanges(() => {
      meanwhile = tasks.create(w.deps, w.session, { listName: 'numbered', subject: 'meanwhile', description: '' });
    });
    await importInto('numbered', 250, w.session, 3);
    expect((await meanwhile).ref).toBe('#253');
    const page = await listed('numbered');
    expect(page.tasks.map((t) => t.ref)).toEqual(Array.from({ length: 253 }, (_, i) => `#${i + 1}`));
    expect(page.tasks.slice(2, 4).map((t) => t.subject)).toEqual(['numbered 1', 'numbered 2']);
    expect(stagingLists()).toEqual([]);
  });

  it('tasks created in the list meanwhile come first; a sisyphus import takes the next numbers, its records naming them', async () => {
    await sisyphusInto('shared', 2);
    let meanwhile: Promise<unknown> = Promise.resolve();
    onStagedChanges(() => {
      // Queued behind the import's current transaction, so it commits between two of the import's.
      meanwhile = tasks.create(w.deps, w.session, { listName: 'shared', subject: 'meanwhile', description: '' });
    });
    await taskFiles.importTasks(w.deps, w.session, {
      listName: 'shared',
      format: 'sisyphus',
      files: files(250, 'shared').map(({ content }) => {
        const task = JSON.parse(content) as { id: string; blockedBy: string[] };
        const id = (n: string) => `T-again-${n}`;
        return { name: `${id(task.id)}.json`, content: JSON.stringify({ ...task, id: id(task.id), blockedBy: task.blockedBy.map(id) }) };
      }),
    });
    await meanwhile;

    const page = await listed('shared');
    expect(page.tasks.map((t) => t.subject).slice(0, 4)).toEqual(['shared 1', 'shared 2', 'meanwhile', 'shared 1']);
    expect(page.tasks.map((t) => t.ref)).toEqual(Array.from({ length: 253 }, (_, i) => `#${i + 1}`));
    const changes = await tasks.changesAfter(w.deps, w.viewer, { listName: 'shared', after: 0, limit: 1000 });
    expect(changes.events.map((e) => e.seq)).toEqual(Array.from({ length: 253 }, (_, i) => i + 1));
    expect(changes.events.slice(3).map((e) => e.task.ref)).toEqual(page.tasks.slice(3).map((t) => t.ref));
    expect(stagingLists()).toEqual([]);
  });

  it('the next import of the workspace removes staging lists left by a process that died mid-import', async () => {
    const at = (minutesAgo: number) => new Date(w.clock.now().getTime() - minutesAgo * 60_000);
    await w.store.transaction(async (repos) => {
      await repos.tasks.stageImport({ id: 'tl_dead', workspaceId: w.workspaceId, name: ':import:dead', createdAt: at(11) }, at(11), {});
    });
    await importInto('after', 2);
    expect(stagingLists()).toEqual([]);
    expect(await w.store.tasks.listNames(w.workspaceId)).toEqual(['after']);
  });

  it('a long import keeps its staging list alive: every staging write is a heartbeat', async () => {
    // Between two staging writes the clock moves on longer than an abandoned import's limit; seen from outside (as
    // committed), the staging list was last written by the transaction before the current one each time.
    const started = w.clock.now().getTime();
    const lastWritten: number[] = [];
    for (let i = 0; i < 3; i++) {
      onStagedChanges(async () => {
        lastWritten.push(stagingLists()[0]!.createdAt.getTime() - started);
        w.clock.advance(3 * 60_000);
      });
    }
    await importInto('slow', 450);
    expect(lastWritten).toEqual([0, 0, 3 * 60_000]);
    expect(await w.store.tasks.listNames(w.workspaceId)).toEqual(['slow']);
  });

  it('staging written 5 s ago is alive however old it is; one not written for the lease (10 s) is dead', async () => {
    const at = (secondsAgo: number) => new Date(w.clock.now().getTime() - secondsAgo * 1_000);
    await w.store.transaction(async (repos) => {
      const long = { id: 'tl_long', workspaceId: w.workspaceId, name: ':import:long', createdAt: at(30 * 60) };
      await repos.tasks.stageImport(long, long.createdAt, {});
      await repos.tasks.stageImport(long, at(5), {});
    });
    const busy = await importInto('after', 2).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(taskFiles.ImportInProgress);
    // The heartbeat the waiting import is told: when the staging list was last written.
    expect((busy as InstanceType<typeof taskFiles.ImportInProgress>).heartbeat).toEqual(at(5));
    expect(stagingLists().map((l) => l.id)).toEqual(['tl_long']);
    w.clock.advance(taskFiles.IMPORT_LEASE_MS - 5_000 + 1);
    await importInto('after', 2);
    expect(stagingLists()).toEqual([]);
    expect(await w.store.tasks.listNames(w.workspaceId)).toEqual(['after']);
  });

  it("the lease is the caller's to set", async () => {
    await w.store.transaction(async (repos) => {
      const createdAt = new Date(w.clock.now().getTime() - 20_000);
      await repos.tasks.stageImport({ id: 'tl_slow', workspaceId: w.workspaceId, name: ':import:slow', createdAt }, createdAt, {});
    });
    const input = { listName: 'after', format: 'claude' as const, files: files(2, 'after') };
    await expect(taskFiles.importTasks(w.deps, w.session, input, { leaseMs: 30_000 })).rejects.toBeInstanceOf(taskFiles.ImportInProgress);
    await taskFiles.importTasks(w.deps, w.session, input, { leaseMs: 15_000 });
    expect(stagingLists()).toEqual([]);
  });

  it('a waiting import that gave up is answered 409 with the seconds to wait, as Retry-After reads them', () => {
    const busy = taskFiles.importBusy(7);
    expect(busy).toMatchObject({
      code: 'CONFLICT',
      message: 'Error: another import into this workspace is in progress; try again in 7 s.',
      details: { retryAfterSeconds: 7 },
    });
  });

  it('waits while another process imports into the workspace (its staging list is recent): nothing written', async () => {
    const at = (secondsAgo: number) => new Date(w.clock.now().getTime() - secondsAgo * 1_000);
    await w.store.transaction(async (repos) => {
      await repos.tasks.stageImport({ id: 'tl_running', workspaceId: w.workspaceId, name: ':import:running', createdAt: at(5) }, at(5), {});
    });
    await expect(importInto('after', 2)).rejects.toBeInstanceOf(taskFiles.ImportInProgress);
    expect(stagingLists().map((l) => l.id)).toEqual(['tl_running']);
    expect(await w.store.tasks.listNames(w.workspaceId)).toEqual([]);
    // Once it is done, the import runs.
    await w.store.transaction((repos) => repos.tasks.abandonImport('tl_running'));
    await importInto('after', 2);
    expect(await w.store.tasks.listNames(w.workspaceId)).toEqual(['after']);
  });
});
