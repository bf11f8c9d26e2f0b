// What the signed-in key may do in the dashboard, by its role (the server decides; this only shapes the page).
import type { Role } from '@agent-tasks/schema';
import { useWhoami } from './auth.ts';

/** A person's key: member (reads, writes tasks) or admin (that, and keys, channels, settings). */
export const writesTasks = (role: Role | undefined) => role === 'member' || role === 'admin';

export function useRole() {
  return useWhoami().data?.role;
}
