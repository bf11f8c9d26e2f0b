// Admin (admin key only): API keys, notification channels with their outbox, and workspace settings.
import { useWhoami } from '../lib/auth.ts';
import { AdminChannels } from './admin-channels.tsx';
import { AdminKeys } from './admin-keys.tsx';
import { AdminSettings } from './admin-settings.tsx';

export default function AdminPage() {
  const whoami = useWhoami();
  if (!whoami.data) return <p aria-busy="true">Loading…</p>;
  if (whoami.data.role !== 'admin') {
    return (
      <>
        <h1>Admin</h1>
        <p className="empty-inline">
          Administration needs an admin key; this key is {whoami.data.role}. Sign in with an admin key to manage keys, channels and
          settings.
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Admin</h1>
      <AdminKeys />
      <AdminChannels />
      <AdminSettings />
    </>
  );
}
