// Admin → API keys: create one (its token shown once), list them, revoke one.
import type { Role } from '@agent-tasks/schema';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/error-message.tsx';
import { TimeAgo } from '../components/time-ago.tsx';
import { useTRPC } from '../lib/api.ts';
import { GridTable } from '../components/grid-table.tsx';

export function AdminKeys() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.keys.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
  const create = useMutation(trpc.keys.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.keys.revoke.mutationOptions({ onSuccess: refresh }));
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    revoke.reset();
    create.mutate({ name, role }, { onSuccess: () => setName('') });
  };

  return (
    <section aria-labelledby="keys-title" className="panel">
      <h2 id="keys-title">API keys</h2>
      <form className="inline-form" onSubmit={submit}>
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
        </label>
        <label>
          Role{' '}
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            <option value="viewer">viewer (reads)</option>
            <option value="member">member (a person: reads, writes tasks)</option>
            <option value="agent">agent (opens sessions)</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      <ErrorMessage error={create.error} />
      {create.data ? (
        <div className="token" role="status">
          <p>
            Key <strong>{create.data.key.name}</strong> created. Copy its token now: it is shown only once and stored only as a hash.
          </p>
          <p>
            <code data-testid="new-token">{create.data.token}</code>{' '}
            <button type="button" onClick={() => void navigator.clipboard?.writeText(create.data.token)}>
              Copy
            </button>{' '}
            <button type="button" onClick={() => create.reset()}>
              Done
            </button>
          </p>
        </div>
      ) : null}
      <ErrorMessage error={keys.error ?? revoke.error} />
      <GridTable caption="API keys" columns={['Name', 'Role', 'Created', 'State']}>
        {keys.data?.keys.map((k) => (
          <tr key={k.id} data-key={k.id}>
            <th scope="row">{k.name}</th>
            <td>{k.role}</td>
            <td>
              <TimeAgo iso={k.createdAt} />
            </td>
            <td>
              {k.revokedAt ? (
                <>
                  revoked <TimeAgo iso={k.revokedAt} />
                </>
              ) : (
                <button
                  type="button"
                  onClick={() => {
                    if (window.confirm(`Revoke the key "${k.name}"? Anything using it stops working.`)) revoke.mutate({ id: k.id });
                  }}
                  aria-label={`Revoke ${k.name}`}
                >
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </GridTable>
    </section>
  );
}
