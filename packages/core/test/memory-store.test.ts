// Tests of the in-memory test doubles themselves: transaction commit/rollback, isolation, constraints and the fakes.
import { describe, expect, it } from 'vitest';
import type { SessionRecord, WorkspaceRecord } from '../src/index.ts';
import { CounterIds, FakeClock, RecordingEvents, makeDeps, prefixHasher } from './memory-store.ts';

const ws = (id: string): WorkspaceRecord => ({ id, name: id, oneActiveRule: true, createdAt: new Date('2025-01-01T00:00:00Z') });
const ses = (id: string, workspaceId = 'ws_1'): SessionRecord => ({
  id,
  workspaceId,
  parentId: null,
  title: null,
  agentName: null,
  tokenHash: `h:${id}`,
  openedByKey: 'key_1',
  externalId: null,
  turnNumber: 0,
  turnState: 'none',
  todoRevision: 0,
  createdAt: new Date('2025-01-01T00:00:00Z'),
});

describe('MemoryStore transactions', () => {
  it('commits the writes of work that resolves, and returns its result', async () => {
    const { store } = makeDeps();
    const result = await store.transaction(async (repos) => {
      await repos.workspaces.create(ws('ws_1'));
      await repos.sessions.create(ses('ses_1'));
      return 'done';
    });
    expect(result).toBe('done');
    expect(await store.workspaces.count()).toBe(1);
    expect(await store.sessions.get('ws_1', 'ses_1')).toMatchObject({ id: 'ses_1' });
    expect(store.commits).toBe(1);
  });

  it('leaves nothing changed when work throws, and rethrows', async () => {
    const { store } = makeDeps();
    await store.transaction((repos) => repos.workspaces.create(ws('ws_1')));
    const before = store.snapshot();
    await expect(
      store.transaction(async (repos) => {
        await repos.workspaces.update('ws_1', { oneActiveRule: false });
        await repos.sessions.create(ses('ses_1'));
        await repos.workspaces.create(ws('ws_2'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(store.snapshot()).toEqual(before);
    expect((await store.workspaces.get('ws_1'))!.oneActiveRule).toBe(true);
    expect(store.rollbacks).toBe(1);
  });

  it('work sees its own writes; the outside sees them only after commit', async () => {
    const { store } = makeDeps();
    await store.transaction(async (repos) => {
      await repos.workspaces.create(ws('ws_1'));
      expect(await repos.workspaces.count()).toBe(1);
      expect(await store.workspaces.count()).toBe(0);
    });
    expect(await store.workspaces.count()).toBe(1);
  });

  it('runs transactions one at a time, so a compare-and-set sees the previous commit', async () => {
    const { store } = makeDeps();
    await store.transaction(async (repos) => {
      await repos.workspaces.create(ws('ws_1'));
      await repos.sessions.create(ses('ses_1'));
    });
    const bump = () =>
      store.transaction(async (repos) => {
        const s = await repos.sessions.get('ws_1', 'ses_1');
        for (let i = 0; i < 10; i++) await Promise.resolve(); // let rival work interleave if it could
        return (await repos.sessions.advanceTodoRevision('ws_1', 'ses_1', s!.todoRevision)) !== null;
      });
    expect(await Promise.all([bump(), bump(), bump()])).toEqual([true, true, true]);
    expect((await store.sessions.get('ws_1', 'ses_1'))!.todoRevision).toBe(3);
  });

  it('a failed transaction does not block the next', async () => {
    const { store } = makeDeps();
    const failed = store.transaction(async () => {
      throw new Error('x');
    });
    const next = store.transaction((repos) => repos.workspaces.create(ws('ws_1')));
    await expect(failed).rejects.toThrow('x');
    await next;
    expect(await store.workspaces.count()).toBe(1);
  });

  it('refuses use of a finished transaction repositories', async () => {
    const { store } = makeDeps();
    let leaked: Parameters<Parameters<typeof store.transaction>[0]>[0] | undefined;
    await store.transaction(async (repos) => {
      leaked = repos;
    });
    await expect(leaked!.workspaces.count()).rejects.toThrow('finished transaction');
  });

  it('returns copies: mutating a read record does not change the store', async () => {
    const { store } = makeDeps();
    await store.transaction((repos) => repos.workspaces.create(ws('ws_1')));
    const read = (await store.workspaces.get('ws_1'))!;
    read.oneActiveRule = false;
    expect((await store.workspaces.get('ws_1'))!.oneActiveRule).toBe(true);
  });

  it('enforces the database constraints the real store has', async () => {
    const { store } = makeDeps();
    await store.transaction((repos) => repos.workspaces.create(ws('ws_1')));
    await expect(store.transaction((repos) => repos.workspaces.create(ws('ws_1')))).rejects.toThrow('already exists');
    await expect(store.transaction((repos) => repos.sessions.create(ses('ses_1', 'ws_404')))).rejects.toThrow('missing workspace');
    await store.transaction((repos) => repos.sessions.create(ses('ses_1')));
    await expect(store.transaction((repos) => repos.sessions.create({ ...ses('ses_2'), tokenHash: 'h:ses_1' }))).rejects.toThrow(
      'tokenHash must be unique',
    );
    const update = {
      id: 'tdu_1',
      sessionId: 'ses_1',
      revision: 1,
      turnNumber: 0,
      items: [],
      changes: { added: [], removed: [], statusChanged: [] },
      counts: { pending: 0, inProgress: 0, completed: 0 },
      createdAt: new Date(),
    };
    await store.transaction((repos) => repos.todos.insert(update));
    await expect(store.transaction((repos) => repos.todos.insert({ ...update, id: 'tdu_2' }))).rejects.toThrow('already exists');
  });

  it('scopes get by workspace', async () => {
    const { store } = makeDeps();
    await store.transaction(async (repos) => {
      await repos.workspaces.create(ws('ws_1'));
      await repos.sessions.create(ses('ses_1'));
    });
    expect(await store.sessions.get('ws_2', 'ses_1')).toBeNull();
  });

  it('runs a one-shot hook before the next call of a method only', async () => {
    const { store } = makeDeps();
    let calls = 0;
    store.once('workspaces.count', () => {
      calls++;
    });
    await store.workspaces.count();
    await store.workspaces.count();
    expect(calls).toBe(1);
  });
});

describe('fakes', () => {
  it('the clock stands still until set or advanced, and hands out copies', () => {
    const clock = new FakeClock('2025-01-01T00:00:00.000Z');
    const a = clock.now();
    a.setFullYear(1999);
    expect(clock.now().toISOString()).toBe('2025-01-01T00:00:00.000Z');
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe('2025-01-01T00:00:01.500Z');
    clock.set('2026-02-02T00:00:00.000Z');
    expect(clock.now().toISOString()).toBe('2026-02-02T00:00:00.000Z');
  });

  it('ids count per prefix; secrets count separately', () => {
    const ids = new CounterIds();
    expect([ids.id('ses'), ids.id('ses'), ids.id('key'), ids.secret('ats'), ids.secret('ats'), ids.secret('atk')]).toEqual([
      'ses_1',
      'ses_2',
      'key_1',
      'ats_secret_1',
      'ats_secret_2',
      'atk_secret_1',
    ]);
  });

  it('the hasher prefixes h:, and the event recorder keeps events in order', () => {
    expect(prefixHasher.hash('tok')).toBe('h:tok');
    const events = new RecordingEvents();
    events.publish({ topic: 't', id: '1', data: { a: 1 } });
    events.publish({ topic: 't', id: '2', data: null });
    expect(events.published.map((e) => e.id)).toEqual(['1', '2']);
  });
});
