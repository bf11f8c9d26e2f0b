// Black-box tests of keys, roles and workspace isolation: every refusal with its text, and nothing recorded.
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, keyClient, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const write = { todos: [{ content: 'A', status: 'pending' as const }] };

describe('authentication', () => {
  it('refuses calls without a key, with an unknown key, or with a malformed header', async () => {
    const before = await countRows(server, 'Session');
    const anonymous = await refused(createClient({ url: server.url, token: '' }).sessions.open());
    expect(anonymous.message).toBe('Error: unauthorized: send an API key or session token as `Authorization: Bearer <token>`.');
    expect(anonymous.httpStatus).toBe(401);
    const malformed = await fetch(`${server.url}/trpc/sessions.open`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Token ${server.adminKey}` },
      body: '{}',
    });
    expect(malformed.status).toBe(401);
    expect(((await malformed.json()) as { error: { message: string } }).error.message).toBe(
      'Error: unauthorized: send an API key or session token as `Authorization: Bearer <token>`.',
    );
    const unknown = await refused(createClient({ url: server.url, token: 'atk_nope' }).sessions.open());
    expect(unknown.message).toBe('Error: unauthorized: unknown API key or session token.');
    expect(unknown.code).toBe('UNAUTHENTICATED');
    expect(unknown.httpStatus).toBe(401);
    expect(await countRows(server, 'Session')).toBe(before);
  });

  it('stores keys only as hashes', async () => {
    const { token } = await adminClient(server).keys.create({ name: 'ci', role: 'agent' });
    expect(await countRows(server, 'ApiKey', '"tokenHash" = ?', token)).toBe(0);
    expect(await countRows(server, 'ApiKey', 'name = ?', 'ci')).toBe(1);
  });
});

describe('roles', () => {
  it('admin creates and revokes keys; a revoked key and its sessions stop working', async () => {
    const admin = adminClient(server);
    const created = await admin.keys.create({ name: 'temp agent', role: 'agent' });
    const agent = createClient({ url: server.url, token: created.token });
    const s = await openSessionClient(agent);
    await s.client.todos.write(write);

    const revoked = await admin.keys.revoke({ id: created.key.id });
    expect(revoked.key.revokedAt).not.toBeNull();
    expect((await refused(agent.sessions.open())).message).toBe('Error: unauthorized: this API key has been revoked.');
    expect((await refused(s.client.todos.write(write))).message).toBe(
      'Error: unauthorized: the API key that opened this session has been revoked.',
    );
    expect((await admin.todos.get({ sessionId: s.session.id })).revision).toBe(1);
    expect((await refused(admin.keys.revoke({ id: created.key.id }))).message).toBe(`Error: API key ${created.key.id} is already revoked.`);
  });

  it('refuses to revoke the last admin key', async () => {
    const admin = adminClient(server);
    const [first] = (await admin.keys.list()).keys;
    const refusal = await refused(admin.keys.revoke({ id: first?.id ?? '' }));
    expect(refusal.message).toBe('Error: cannot revoke the last admin key of a workspace; create another admin key first.');
    expect(await admin.workspaces.whoami()).toMatchObject({ role: 'admin' });
  });

  it('agents and viewers cannot manage keys; nothing is recorded', async () => {
    const before = await countRows(server, 'ApiKey');
    for (const role of ['agent', 'viewer'] as const) {
      const client = await keyClient(server, role);
      const refusal = await refused(client.keys.create({ name: 'sneaky', role: 'admin' }));
      expect(refusal.code).toBe('FORBIDDEN');
      expect(refusal.httpStatus).toBe(403);
    }
    expect(await countRows(server, 'ApiKey')).toBe(before + 2);
    expect(await countRows(server, 'ApiKey', 'name = ?', 'sneaky')).toBe(0);
  });

  it('refuses a bad role with a clear error', async () => {
    const refusal = await refused(adminClient(server).keys.create({ name: 'x', role: 'owner' as never }));
    expect(refusal.message).toBe('Error: invalid input: `role` must be one of admin, agent, member, viewer (got "owner").');
    expect(await countRows(server, 'ApiKey', 'name = ?', 'x')).toBe(0);
  });

  it('a viewer reads but never writes', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write(write);
    const viewer = await keyClient(server, 'viewer');
    expect((await viewer.todos.get({ sessionId: s.session.id })).items).toEqual(write.todos);
    const refusal = await refused(viewer.todos.write(write));
    expect(refusal.message).toBe('Error: forbidden: viewer keys are read-only (this key is viewer).');
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(1);
  });
});

describe('workspace isolation', () => {
  it('a caller never sees or touches another workspace', async () => {
    const mine = await sessionClient(server);
    await mine.client.todos.write(write);

    const { adminKey } = await adminClient(server).workspaces.create({ name: 'other team' });
    const otherAdmin = createClient({ url: server.url, token: adminKey });
    const { token } = await otherAdmin.keys.create({ name: 'agent', role: 'agent' });
    const other = await openSessionClient(createClient({ url: server.url, token }));

    const calls = [
      other.client.todos.get({ sessionId: mine.session.id }),
      other.client.todos.history({ sessionId: mine.session.id }),
      other.client.sessions.get({ sessionId: mine.session.id }),
      otherAdmin.todos.get({ sessionId: mine.session.id }),
    ];
    // All four are in flight at once: a refusal that comes before its turn is not an unhandled rejection.
    for (const call of calls) call.catch(() => undefined);
    for (const call of calls) {
      const refusal = await refused(call);
      expect(refusal.message).toBe(`Error: session ${mine.session.id} not found.`);
      expect(refusal.code).toBe('NOT_FOUND');
    }
    expect((await otherAdmin.sessions.list()).sessions.map((s) => s.id)).toEqual([other.session.id]);
    expect((await otherAdmin.keys.list()).keys.map((k) => k.name).sort()).toEqual(['agent', 'first admin key']);
    const [firstKey] = (await adminClient(server).keys.list()).keys;
    expect((await refused(otherAdmin.keys.revoke({ id: firstKey?.id ?? '' }))).message).toBe(`Error: API key ${firstKey?.id} not found.`);
    expect(await adminClient(server).workspaces.whoami()).toMatchObject({ role: 'admin' });
  });
});
