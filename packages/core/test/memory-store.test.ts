// Tests of what only the in-memory test doubles have (counters, hooks, the fake clock, ids, hasher, events, sender);
// the store's behaviour shared with the Prisma store is one contract suite in apps/server/test/store-contract.test.ts.
import { describe, expect, it } from 'vitest';
import { CounterIds, FakeClock, FakeSender, PUBLIC_URL, RecordingEvents, makeDeps, prefixHasher } from './memory-store.ts';
import { sessionRecord as ses, workspaceRecord as ws } from './record-builders.ts';

describe('MemoryStore as a test double (its shared contract with the Prisma store: apps/server/test/store-contract.test.ts)', () => {
  it('counts the transactions that committed and those that rolled back', async () => {
    const { store } = makeDeps();
    await store.transaction(async (repos) => {
      await repos.workspaces.create(ws('ws_1'));
      await repos.sessions.create(ses('ses_1'));
    });
    await expect(
      store.transaction(async (repos) => {
        await repos.workspaces.create(ws('ws_2'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(store.commits).toBe(1);
    expect(store.rollbacks).toBe(1);
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

  it('task methods can be hooked', async () => {
    const { store } = makeDeps();
    let calls = 0;
    store.once('tasks.firstReady', () => {
      calls++;
    });
    await store.tasks.firstReady('tl_1', 'a');
    await store.tasks.firstReady('tl_1', 'a');
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

  it('the fake deps carry the address of run pages', () => {
    expect(makeDeps().deps.runPage('run_1')).toBe(`${PUBLIC_URL}/runs/run_1`);
  });

  it('the fake sender answers as scripted, then with its fallback, and records every call', async () => {
    const sender = new FakeSender().answer('HTTP 500', true);
    expect(await sender.send('u', { a: 1 }, 'k1')).toEqual({ ok: false, error: 'HTTP 500' });
    expect(await sender.send('u', { a: 2 }, 'k2')).toEqual({ ok: true });
    sender.fallback = { ok: false, error: 'down' };
    expect(await sender.send('u', {}, 'k3')).toEqual({ ok: false, error: 'down' });
    expect(sender.calls.map((c) => c.idempotencyKey)).toEqual(['k1', 'k2', 'k3']);
  });

  it('uuids are deterministic, well-formed v4, and count on their own', () => {
    const ids = new CounterIds();
    ids.id('ses');
    expect([ids.uuid(), ids.uuid()]).toEqual(['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']);
    expect(ids.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(`T-${ids.uuid()}`).toMatch(/^T-[A-Za-z0-9-]{1,64}$/);
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
