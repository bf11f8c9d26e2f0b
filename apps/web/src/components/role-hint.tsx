// What the signed-in key may do on a page that is still empty, by its role: a person's key (member, admin) is told what
// it can do here; a read-only key is told why the controls are missing and how a person gets a member key.
import type { Role } from '@agent-tasks/schema';
import { writesTasks } from '../lib/permissions.ts';

export type HintPlace = 'sessions' | 'runs';

const DOES: Record<HintPlace, string> = {
  sessions:
    'Sessions are opened by agents, not from here. What you can do: plan in Tasks — create tasks, change their status, owner, priority, labels and blockers, comment — and leave notes on a run’s current task.',
  runs: 'Agents start runs; what you can do is open a run and leave a note on its current task — the agent reads it with its next directive.',
};

const READS: Record<HintPlace, string> = {
  sessions: 'you see every session and its todo list live',
  runs: 'you follow runs as agents walk them',
};

export function RoleHint({ role, place }: { role: Role | undefined; place: HintPlace }) {
  if (!role) return null;
  if (writesTasks(role)) {
    return (
      <p className="role-note" data-testid="role-hint" data-role={role}>
        Signed in with {role === 'admin' ? 'an admin' : 'a member'} key. {DOES[place]}
      </p>
    );
  }
  return (
    <p className="role-note" data-testid="role-hint" data-role={role}>
      Signed in with {role === 'agent' ? 'an agent' : 'a viewer'} key: {READS[place]}, and no control here changes anything. To create and
      change tasks, comment and leave notes on runs, sign in with a <strong>member</strong> key — an admin makes one under Admin → API keys
      (or <code>agent-tasks keys create --role member</code>).
    </p>
  );
}
