// Unit tests of workspace administration: first-run bootstrap, API keys by role, revocation rules, settings and new workspaces.
import { beforeEach, describe, expect, it } from 'vitest';
import { keyWeakness, resolveActor, todos, keys, workspaces } from '../src/index.ts';
import { type World, expectRefused, item, makeWorld } from './fixtures.ts';
import { makeDeps } from './memory-store.ts';

describe('bootstrap', () => {
  it('on an empty store creates one workspace and a generated admin key, returned once', async () => {
    const { deps, store, clock } = makeDeps();
    clock.set('2025-06-01T00:00:00.000Z');
    const boot = await workspaces.bootstrap(deps);
    expect(boot).toEqual({ workspaceId: 'ws_1', adminKey: 'atk_secret_1', generated: true });

    const state = store.snapshot();
    expect([...state.workspaces.values()]).toEqual([
      { id: 'ws_1', name: 'default', oneActiveRule: true, createdAt: new Date('2025-06-01T00:00:00.000Z') },
    ]);
    expect([...state.keys.values()]).toEqual([
      {
        id: 'key_1',
        workspaceId: 'ws_1',
        role: 'admin',
        name: 'first admin key',
        tokenHash: 'h:atk_secret_1',
        createdAt: new Date('2025-06-01T00:00:00.000Z'),
        revokedAt: null,
      },
    ]);
    expect(await resolveActor(deps, boot!.adminKey)).toEqual({
      workspaceId: 'ws_1',
      role: 'admin',
      keyId: 'key_1',
      sessionId: null,
      agentName: null,
    });
  });

  it('returns null on the second call and creates nothing more', async () => {
    const { deps, store } = makeDeps();
    await workspaces.bootstrap(deps);
    const snapshot = store.snapshot();
    expect(await workspaces.bootstrap(deps)).toBeNull();
    expect(await workspaces.bootstrap(deps, 'y7Rq2mKx9vLp4TzW8nB3cF6h')).toBeNull();
    expect(store.snapshot()).toEqual(snapshot);
    expect(store.snapshot().workspaces.size).toBe(1);
    expect(store.snapshot().keys.size).toBe(1);
  });

  it('honours a given admin key (stored as its hash), and says it was not generated', async () => {
    const { deps, store } = makeDeps();
    const given = 'my-admin-key-4f9c2e7a1d6b';
    const boot = await workspaces.bootstrap(deps, given);
    expect(boot).toEqual({ workspaceId: 'ws_1', adminKey: given, generated: false });
    expect([...store.snapshot().keys.values()][0]!.tokenHash).toBe(`h:${given}`);
    expect(await resolveActor(deps, given)).toMatchObject({ role: 'admin', workspaceId: 'ws_1' });
  });

  it('accepts a given key of exactly the minimum length', async () => {
    expect(workspaces.MIN_ADMIN_KEY_LENGTH).toBe(24);
    const { deps } = makeDeps();
    await expect(workspaces.bootstrap(deps, 'Zq7mP2vL9xR4tK8wB3nF6yHd')).resolves.toMatchObject({ generated: false });
  });

  it('refuses a weak given key — one character, a run of consecutive ones, little entropy — even when not the first start', async () => {
    const advice = 'use at least 24 random characters (for example `openssl rand -hex 24`).';
    const cases: [string, string][] = [
      ['a'.repeat(24), 'it uses only 1 distinct character'],
      ['abababababababababababab', 'it uses only 2 distinct characters'],
      ['abcdefghijklmnopqrstuvwx', 'it contains a run of 24 consecutive characters'],
      ['key-0123456789-for-admin', 'it contains a run of 10 consecutive characters'],
      ['aaaaaaaaaaaaaaaaaaaaa1b2c3d4', 'its characters repeat too much (about 42 bits of entropy, 64 needed)'],
    ];
    for (const [key, why] of cases) {
      const { deps, store } = makeDeps();
      await expectRefused(workspaces.bootstrap(deps, key), 'INVALID_INPUT', `Error: AGENT_TASKS_ADMIN_KEY is too weak: ${why}; ${advice}`);
      expect(store.snapshot().workspaces.size).toBe(0);
    }
    const { deps } = makeDeps();
    await workspaces.bootstrap(deps);
    await expectRefused(
      workspaces.bootstrap(deps, 'a'.repeat(30)),
      'INVALID_INPUT',
      `Error: AGENT_TASKS_ADMIN_KEY is too weak: it uses only 1 distinct character; ${advice}`,
    );
    // A key generated the way the server makes them (32 random bytes, base64url) passes.
    expect(keyWeakness('atk_5FmMtice_70Pultb3f_y1d1l-l_MZy2-NKUkVYgm7s0')).toBeNull();
  });

  it('refuses a too-short given key and creates nothing', async () => {
    const { deps, store } = makeDeps();
    await expectRefused(
      workspaces.bootstrap(deps, 'k'.repeat(23)),
      'INVALID_INPUT',
      'Error: AGENT_TASKS_ADMIN_KEY must be at least 24 characters.',
    );
    await expectRefused(workspaces.bootstrap(deps, ''), 'INVALID_INPUT', 'Error: AGENT_TASKS_ADMIN_KEY must be at least 24 characters.');
    expect(store.snapshot().workspaces.size).toBe(0);
    expect(store.snapshot().keys.size).toBe(0);
  });

  it('is all or nothing: a failure creating the key leaves no workspace behind', async () => {
    const { deps, store } = makeDeps();
    store.once('keys.create', () => {
      throw new Error('disk full');
    });
    await expect(workspaces.bootstrap(deps)).rejects.toThrow('disk full');
    expect(store.snapshot().workspaces.size).toBe(0);
    expect(store.snapshot().keys.size).toBe(0);
    // and a retry then succeeds on the still-empty store
    await expect(workspaces.bootstrap(deps)).resolves.toMatchObject({ generated: true });
  });

  it('two concurrent bootstraps create one workspace', async () => {
    const { deps, store } = makeDeps();
    const results = await Promise.all([workspaces.bootstrap(deps), workspaces.bootstrap(deps)]);
    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(store.snapshot().workspaces.size).toBe(1);
  });
});

describe('API keys', () => {
  let w: World;
  beforeEach(async () => {
    w = await makeWorld();
  });

  it('an admin creates keys of every role; the token is returned once and stored as a hash', async () => {
    w.clock.set('2025-07-01T00:00:00.000Z');
    for (const role of ['admin', 'agent', 'viewer'] as const) {
      const created = await keys.create(w.deps, w.admin, { name: `${role} key`, role });
      expect(created.key).toEqual({
        id: created.key.id,
        name: `${role} key`,
        role,
        createdAt: '2025-07-01T00:00:00.000Z',
        revokedAt: null,
      });
      expect(w.store.snapshot().keys.get(created.key.id)!.tokenHash).toBe(`h:${created.token}`);
      expect(await resolveActor(w.deps, created.token)).toEqual({
        workspaceId: w.workspaceId,
        role,
        keyId: created.key.id,
        sessionId: null,
        agentName: null,
      });
    }
  });

  it('an agent cannot create keys (nor can a session token or a viewer), and nothing is created', async () => {
    const snapshot = w.store.snapshot();
    for (const actor of [w.agent, w.session]) {
      await expectRefused(
        keys.create(w.deps, actor, { name: 'x', role: 'viewer' }),
        'FORBIDDEN',
        'Error: forbidden: this call needs an admin key (this key is agent).',
      );
    }
    await expectRefused(
      keys.create(w.deps, w.viewer, { name: 'x', role: 'viewer' }),
      'FORBIDDEN',
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
    expect(w.store.snapshot()).toEqual(snapshot);
  });

  it('lists keys without their tokens or hashes, admins only', async () => {
    const listed = await keys.list(w.deps, w.admin);
    expect(listed.keys.map((k) => [k.name, k.role])).toEqual([
      ['first admin key', 'admin'],
      ['agent', 'agent'],
      ['viewer', 'viewer'],
    ]);
    for (const k of listed.keys) expect(Object.keys(k).sort()).toEqual(['createdAt', 'id', 'name', 'revokedAt', 'role']);
    await expectRefused(keys.list(w.deps, w.agent), 'FORBIDDEN', 'Error: forbidden: this call needs an admin key (this key is agent).');
  });

  it('an admin revokes a key: it is stamped with the time and shows as revoked', async () => {
    w.clock.set('2025-08-01T12:00:00.000Z');
    const out = await keys.revoke(w.deps, w.admin, { id: w.agent.keyId });
    expect(out.key).toMatchObject({ id: w.agent.keyId, revokedAt: '2025-08-01T12:00:00.000Z' });
    const listed = (await keys.list(w.deps, w.admin)).keys.find((k) => k.id === w.agent.keyId);
    expect(listed!.revokedAt).toBe('2025-08-01T12:00:00.000Z');
  });

  it('a revoked key cannot be revoked again', async () => {
    await keys.revoke(w.deps, w.admin, { id: w.viewer.keyId });
    await expectRefused(
      keys.revoke(w.deps, w.admin, { id: w.viewer.keyId }),
      'CONFLICT',
      `Error: API key ${w.viewer.keyId} is already revoked.`,
    );
  });

  it('an unknown key is not found', async () => {
    await expectRefused(keys.revoke(w.deps, w.admin, { id: 'key_404' }), 'NOT_FOUND', 'Error: API key key_404 not found.');
  });

  it('an agent cannot revoke keys', async () => {
    await expectRefused(
      keys.revoke(w.deps, w.agent, { id: w.viewer.keyId }),
      'FORBIDDEN',
      'Error: forbidden: this call needs an admin key (this key is agent).',
    );
  });

  it('cannot revoke the last admin key, and nothing changes', async () => {
    const snapshot = w.store.snapshot();
    await expectRefused(
      keys.revoke(w.deps, w.admin, { id: w.admin.keyId }),
      'CONFLICT',
      'Error: cannot revoke the last admin key of a workspace; create another admin key first.',
    );
    expect(w.store.snapshot()).toEqual(snapshot);
    await expect(resolveActor(w.deps, w.adminKey)).resolves.toMatchObject({ role: 'admin' });
  });

  it('with a second admin, one admin can be revoked, and then the other is the last', async () => {
    const second = await keys.create(w.deps, w.admin, { name: 'second admin', role: 'admin' });
    const secondAdmin = await resolveActor(w.deps, second.token);
    await keys.revoke(w.deps, secondAdmin, { id: w.admin.keyId });
    await expectRefused(resolveActor(w.deps, w.adminKey), 'UNAUTHENTICATED', 'Error: unauthorized: this API key has been revoked.');
    await expectRefused(
      keys.revoke(w.deps, secondAdmin, { id: secondAdmin.keyId }),
      'CONFLICT',
      'Error: cannot revoke the last admin key of a workspace; create another admin key first.',
    );
  });

  it('the last-admin count is per workspace', async () => {
    const other = await workspaces.createWorkspace(w.deps, w.admin, { name: 'other' });
    const otherAdmin = await resolveActor(w.deps, other.adminKey);
    await expectRefused(
      keys.revoke(w.deps, w.admin, { id: w.admin.keyId }),
      'CONFLICT',
      'Error: cannot revoke the last admin key of a workspace; create another admin key first.',
    );
    await expectRefused(
      keys.revoke(w.deps, otherAdmin, { id: otherAdmin.keyId }),
      'CONFLICT',
      'Error: cannot revoke the last admin key of a workspace; create another admin key first.',
    );
  });
});

describe('settings, whoami and new workspaces', () => {
  let w: World;
  beforeEach(async () => {
    w = await makeWorld();
  });

  it('the one-active rule is on by default; any role reads it, only admins change it', async () => {
    for (const actor of [w.admin, w.agent, w.viewer, w.session]) {
      expect(await workspaces.getSettings(w.deps, actor)).toEqual({ oneActiveRule: true });
    }
    await expectRefused(
      workspaces.updateSettings(w.deps, w.agent, { oneActiveRule: false }),
      'FORBIDDEN',
      'Error: forbidden: this call needs an admin key (this key is agent).',
    );
    expect(await workspaces.updateSettings(w.deps, w.admin, { oneActiveRule: false })).toEqual({ oneActiveRule: false });
    expect(await workspaces.getSettings(w.deps, w.viewer)).toEqual({ oneActiveRule: false });
  });

  it('an empty settings patch changes nothing', async () => {
    await workspaces.updateSettings(w.deps, w.admin, { oneActiveRule: false });
    expect(await workspaces.updateSettings(w.deps, w.admin, {})).toEqual({ oneActiveRule: false });
    expect(await workspaces.updateSettings(w.deps, w.admin, { oneActiveRule: undefined })).toEqual({ oneActiveRule: false });
  });

  it('whoami tells the workspace, role, key and session', async () => {
    w.clock.set('2030-01-01T00:00:00.000Z');
    expect(await workspaces.whoami(w.deps, w.session)).toEqual({
      workspace: { id: w.workspaceId, name: 'default', createdAt: '2025-01-01T00:00:00.000Z' },
      role: 'agent',
      keyId: w.agent.keyId,
      sessionId: w.sessionId,
    });
    expect(await workspaces.whoami(w.deps, w.viewer)).toMatchObject({ role: 'viewer', keyId: w.viewer.keyId, sessionId: null });
  });

  it('an admin creates a separate workspace with its own first admin key; agents cannot', async () => {
    const created = await workspaces.createWorkspace(w.deps, w.admin, { name: 'team b' });
    expect(created.workspace).toMatchObject({ name: 'team b' });
    expect(created.workspace.id).not.toBe(w.workspaceId);
    const otherAdmin = await resolveActor(w.deps, created.adminKey);
    expect(otherAdmin).toMatchObject({ workspaceId: created.workspace.id, role: 'admin' });
    expect(await workspaces.getSettings(w.deps, otherAdmin)).toEqual({ oneActiveRule: true });
    // the creator has no access to it through its own key
    expect((await workspaces.whoami(w.deps, w.admin)).workspace.id).toBe(w.workspaceId);

    const snapshot = w.store.snapshot();
    await expectRefused(
      workspaces.createWorkspace(w.deps, w.agent, { name: 'nope' }),
      'FORBIDDEN',
      'Error: forbidden: this call needs an admin key (this key is agent).',
    );
    expect(w.store.snapshot()).toEqual(snapshot);
  });

  it('a refused settings change leaves the todo rule as it was', async () => {
    await expect(workspaces.updateSettings(w.deps, w.viewer, { oneActiveRule: false })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(todos.write(w.deps, w.session, { todos: [item('A', 'in_progress'), item('B', 'in_progress')] })).rejects.toMatchObject({
      code: 'INVALID_TODOS',
    });
  });
});
