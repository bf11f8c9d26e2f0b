// Unit tests of what each key role may do: the permissions table, person keys, and the refusal texts.
import { describe, expect, it } from 'vitest';
import { type Actor, ROLE_PERMISSIONS, can, isPersonKey, requirePermission, requireRole } from '../src/index.ts';
import { expectThrows } from './fixtures.ts';

const actor = (role: Actor['role'], sessionId: string | null = null): Actor => ({
  workspaceId: 'ws_1',
  role,
  keyId: 'key_1',
  sessionId,
  agentName: null,
});

describe('permissions', () => {
  it('grants a member reading and writing tasks, and nothing an agent or admin alone does', () => {
    expect(ROLE_PERMISSIONS).toEqual({
      viewer: ['read'],
      member: ['read', 'writeTasks'],
      agent: ['read', 'writeTasks', 'openSessions'],
      admin: ['read', 'writeTasks', 'openSessions', 'administer'],
    });
    expect(can(actor('member'), 'writeTasks')).toBe(true);
    expect(can(actor('viewer'), 'writeTasks')).toBe(false);
    expect(can(actor('member'), 'openSessions')).toBe(false);
    expect(can(actor('member'), 'administer')).toBe(false);
  });

  it('takes member and admin keys for people, agent keys and sessions for agents', () => {
    expect(isPersonKey(actor('member'))).toBe(true);
    expect(isPersonKey(actor('admin'))).toBe(true);
    expect(isPersonKey(actor('agent'))).toBe(false);
    expect(isPersonKey(actor('viewer'))).toBe(false);
    expect(isPersonKey(actor('agent', 'ses_1'))).toBe(false);
  });

  it('refuses with texts naming the role: a viewer is read-only, a member needs an agent or admin key', () => {
    expectThrows(
      () => requirePermission(actor('viewer'), 'writeTasks'),
      'FORBIDDEN',
      'Error: forbidden: viewer keys are read-only (this key is viewer).',
    );
    expectThrows(
      () => requirePermission(actor('member'), 'openSessions'),
      'FORBIDDEN',
      'Error: forbidden: this call needs an agent key (this key is member).',
    );
    expectThrows(
      () => requirePermission(actor('member'), 'administer'),
      'FORBIDDEN',
      'Error: forbidden: this call needs an admin key (this key is member).',
    );
    // The role ranks agree: a member sits above a viewer and below an agent.
    expect(() => requireRole(actor('member'), 'viewer')).not.toThrow();
    expectThrows(
      () => requireRole(actor('member'), 'agent'),
      'FORBIDDEN',
      'Error: forbidden: this call needs an agent key (this key is member).',
    );
  });
});
