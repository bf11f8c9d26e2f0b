// Unit tests of who is calling: token resolution (keys, sessions, revocation), role checks, and workspace isolation of reads.
import { beforeEach, describe, expect, it } from 'vitest';
import { type Actor, requireRole, resolveActor, sessions, todos, keys, workspaces } from '../src/index.ts';
import { type World, expectRefused, expectThrows, item, makeWorld } from './fixtures.ts';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});

const actor = (role: Actor['role']): Actor => ({ workspaceId: 'ws_1', role, keyId: 'key_1', sessionId: null, agentName: null });

describe('requireRole', () => {
  it('lets a role through for its own level and below', () => {
    expect(() => requireRole(actor('admin'), 'admin')).not.toThrow();
    expect(() => requireRole(actor('admin'), 'agent')).not.toThrow();
    expect(() => requireRole(actor('admin'), 'viewer')).not.toThrow();
    expect(() => requireRole(actor('agent'), 'agent')).not.toThrow();
    expect(() => requireRole(actor('agent'), 'viewer')).not.toThrow();
    expect(() => requireRole(actor('viewer'), 'viewer')).not.toThrow();
  });

  it('refuses a viewer any write with the read-only text', () => {
    expectThrows(
      () => requireRole(actor('viewer'), 'agent'),
      'FORBIDDEN',
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
    expectThrows(
      () => requireRole(actor('viewer'), 'admin'),
      'FORBIDDEN',
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
  });

  it('refuses an agent an admin call, naming the role needed', () => {
    expectThrows(
      () => requireRole(actor('agent'), 'admin'),
      'FORBIDDEN',
      'Error: forbidden: this call needs an admin key (this key is agent).',
    );
  });
});

describe('resolveActor', () => {
  it('resolves each key to its workspace, role and id, with no session', async () => {
    const listed = (await keys.list(w.deps, w.admin)).keys;
    const byName = Object.fromEntries(listed.map((k) => [k.name, k.id]));
    expect(await resolveActor(w.deps, w.adminKey)).toEqual({
      workspaceId: w.workspaceId,
      role: 'admin',
      keyId: byName['first admin key'],
      sessionId: null,
      agentName: null,
    });
    expect(await resolveActor(w.deps, w.agentKey)).toEqual({
      workspaceId: w.workspaceId,
      role: 'agent',
      keyId: byName['agent'],
      sessionId: null,
      agentName: null,
    });
    expect(await resolveActor(w.deps, w.viewerKey)).toEqual({
      workspaceId: w.workspaceId,
      role: 'viewer',
      keyId: byName['viewer'],
      sessionId: null,
      agentName: null,
    });
  });

  it('resolves a session token to an agent acting as that session, under the key that opened it', async () => {
    expect(await resolveActor(w.deps, w.sessionToken)).toEqual({
      workspaceId: w.workspaceId,
      role: 'agent',
      keyId: w.agent.keyId,
      sessionId: w.sessionId,
      agentName: w.sessionId,
    });
  });

  it('a session opened with an admin key acts as an agent, not an admin', async () => {
    const opened = await sessions.open(w.deps, w.admin, {});
    const asSession = await resolveActor(w.deps, opened.token);
    expect(asSession.role).toBe('agent');
    await expectRefused(
      keys.create(w.deps, asSession, { name: 'x', role: 'admin' }),
      'FORBIDDEN',
      'Error: forbidden: this call needs an admin key (this key is agent).',
    );
  });

  it.each([undefined, null, ''])('refuses a missing token (%j)', async (token) => {
    await expectRefused(
      resolveActor(w.deps, token),
      'UNAUTHENTICATED',
      'Error: unauthorized: send an API key or session token as `Authorization: Bearer <token>`.',
    );
  });

  it('refuses an unknown token, and a stored hash sent as the token', async () => {
    await expectRefused(resolveActor(w.deps, 'atk_nope'), 'UNAUTHENTICATED', 'Error: unauthorized: unknown API key or session token.');
    await expectRefused(
      resolveActor(w.deps, `h:${w.agentKey}`),
      'UNAUTHENTICATED',
      'Error: unauthorized: unknown API key or session token.',
    );
  });

  it('refuses a revoked key', async () => {
    await keys.revoke(w.deps, w.admin, { id: w.agent.keyId });
    await expectRefused(resolveActor(w.deps, w.agentKey), 'UNAUTHENTICATED', 'Error: unauthorized: this API key has been revoked.');
  });

  it('refuses the sessions (and subagent sessions) of a revoked key', async () => {
    const sub = await sessions.open(w.deps, w.session, {});
    await keys.revoke(w.deps, w.admin, { id: w.agent.keyId });
    for (const token of [w.sessionToken, sub.token]) {
      await expectRefused(
        resolveActor(w.deps, token),
        'UNAUTHENTICATED',
        'Error: unauthorized: the API key that opened this session has been revoked.',
      );
    }
  });

  it('revoking one key leaves sessions opened by other keys working', async () => {
    const other = await keys.create(w.deps, w.admin, { name: 'other agent', role: 'agent' });
    const opened = await sessions.open(w.deps, await resolveActor(w.deps, other.token), {});
    await keys.revoke(w.deps, w.admin, { id: w.agent.keyId });
    await expect(resolveActor(w.deps, opened.token)).resolves.toMatchObject({ sessionId: opened.session.id });
  });
});

describe('workspace isolation', () => {
  let outsider: Actor;
  let outsiderSession: Actor;
  beforeEach(async () => {
    const created = await workspaces.createWorkspace(w.deps, w.admin, { name: 'other' });
    outsider = await resolveActor(w.deps, created.adminKey);
    const opened = await sessions.open(w.deps, outsider, {});
    outsiderSession = await resolveActor(w.deps, opened.token);
    await todos.write(w.deps, w.session, { todos: [item('Secret step')] });
  });

  it('reads of another workspace session are not found, for keys and session tokens alike', async () => {
    const text = `Error: session ${w.sessionId} not found.`;
    for (const reader of [outsider, outsiderSession]) {
      await expectRefused(todos.get(w.deps, reader, { sessionId: w.sessionId }), 'NOT_FOUND', text);
      await expectRefused(todos.history(w.deps, reader, { sessionId: w.sessionId, limit: 10 }), 'NOT_FOUND', text);
      await expectRefused(todos.cardsAfter(w.deps, reader, { sessionId: w.sessionId, afterRevision: 0 }), 'NOT_FOUND', text);
      await expectRefused(sessions.get(w.deps, reader, { sessionId: w.sessionId }), 'NOT_FOUND', text);
    }
  });

  it('session lists and key lists show only the caller workspace', async () => {
    expect((await sessions.list(w.deps, outsider)).sessions.map((s) => s.id)).toEqual([outsiderSession.sessionId]);
    expect((await sessions.list(w.deps, w.viewer)).sessions.map((s) => s.id)).toEqual([w.sessionId]);
    expect((await keys.list(w.deps, outsider)).keys.map((k) => k.id)).toEqual([outsider.keyId]);
  });

  it('another workspace key cannot be revoked from outside: not found, and nothing changes', async () => {
    const snapshot = w.store.snapshot();
    await expectRefused(keys.revoke(w.deps, outsider, { id: w.agent.keyId }), 'NOT_FOUND', `Error: API key ${w.agent.keyId} not found.`);
    expect(w.store.snapshot()).toEqual(snapshot);
  });

  it('a workspace settings do not leak into another', async () => {
    await workspaces.updateSettings(w.deps, outsider, { oneActiveRule: false });
    expect(await workspaces.getSettings(w.deps, w.admin)).toEqual({ oneActiveRule: true });
    await todos.write(w.deps, outsiderSession, { todos: [item('A', 'in_progress'), item('B', 'in_progress')] });
    await expectRefused(
      todos.write(w.deps, w.session, { todos: [item('A', 'in_progress'), item('B', 'in_progress')] }),
      'INVALID_TODOS',
      'Error: invalid todos: at most one task may be in_progress (got 2)',
    );
  });
});
