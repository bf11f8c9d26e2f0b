// What each key role may do, by permission: the one place a use case asks "may this caller write tasks?".
import type { Role } from '@agent-tasks/schema';
import type { Actor } from './actor.ts';
import { DomainError } from './errors.ts';

/**
 * - `read`: everything a workspace shows (sessions, lists, tasks, runs, the dashboard's views).
 * - `writeTasks`: a person's writes on the task graph (create, update, delete, edges) — and the comments and run notes
 *   people leave; a member key has it, as do agents and admins.
 * - `openSessions`: an agent's own records (sessions, todo lists, claims, runs, task files, mirrors).
 * - `administer`: keys, notification channels, workspace settings, run links.
 */
export type Permission = 'read' | 'writeTasks' | 'openSessions' | 'administer';

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  viewer: ['read'],
  member: ['read', 'writeTasks'],
  agent: ['read', 'writeTasks', 'openSessions'],
  admin: ['read', 'writeTasks', 'openSessions', 'administer'],
};

export const can = (actor: Pick<Actor, 'role'>, permission: Permission) => ROLE_PERMISSIONS[actor.role].includes(permission);

/** Whether a key's role is a person's at the dashboard (member, admin) rather than an agent's or a reader's. */
export const isPersonKey = (actor: Pick<Actor, 'role' | 'sessionId'>) =>
  actor.sessionId === null && (actor.role === 'member' || actor.role === 'admin');

const refusal: Record<Permission, string> = {
  read: 'this key cannot read the workspace',
  writeTasks: 'viewer keys are read-only',
  openSessions: 'this call needs an agent key',
  administer: 'this call needs an admin key',
};

/** Refuses a caller whose role lacks the permission, naming its role (a viewer's write: "viewer keys are read-only"). */
export function requirePermission(actor: Actor, permission: Permission): void {
  if (can(actor, permission)) return;
  const what = actor.role === 'viewer' ? 'viewer keys are read-only' : refusal[permission];
  throw new DomainError('FORBIDDEN', `Error: forbidden: ${what} (this key is ${actor.role}).`);
}
