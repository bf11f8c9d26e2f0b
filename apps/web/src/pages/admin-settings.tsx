// Admin → workspace settings: the one-active rule (at most one todo item in progress at a time).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../components/error-message.tsx';
import { useTRPC } from '../lib/api.ts';

export function AdminSettings() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.workspaces.settings.queryOptions());
  const update = useMutation(
    trpc.workspaces.updateSettings.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.workspaces.settings.queryKey(), data),
    }),
  );
  return (
    <section aria-labelledby="settings-title" className="panel">
      <h2 id="settings-title">Workspace settings</h2>
      <ErrorMessage error={settings.error ?? update.error} />
      {settings.data ? (
        <label className="switch">
          <input
            type="checkbox"
            checked={settings.data.oneActiveRule}
            disabled={update.isPending}
            onChange={(e) => update.mutate({ oneActiveRule: e.target.checked })}
          />{' '}
          One-active rule: a todo update that marks more than one item in progress is refused
        </label>
      ) : null}
    </section>
  );
}
