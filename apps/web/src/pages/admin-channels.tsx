// Admin → notification channels (add in a kind, send a test message, delete) and the outbox: each message's delivery
// state and its last error, with a retry for a message not delivered (dead ones included).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/error-message.tsx';
import { TimeAgo } from '../components/time-ago.tsx';
import { useTRPC } from '../lib/api.ts';
import { GridTable } from '../components/grid-table.tsx';

const kinds = { checklist_ready: 'Checklist ready', all_tasks_done: 'All tasks done' } as const;
const channelKinds = { webhook: 'Webhook (JSON)', slack: 'Slack', discord: 'Discord', teams: 'Microsoft Teams' } as const;
type ChannelKind = keyof typeof channelKinds;

export function AdminChannels() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.channels.list.queryOptions());
  const outbox = useQuery({ ...trpc.dashboard.outbox.queryOptions({ limit: 50 }), refetchInterval: 5_000 });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.channels.list.queryKey() });
  const create = useMutation(trpc.channels.create.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.channels.delete.mutationOptions({ onSuccess: refresh }));
  const sendTest = useMutation(trpc.channels.sendTest.mutationOptions());
  const retry = useMutation(
    trpc.channels.retryDelivery.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.outbox.queryKey() }),
    }),
  );
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ChannelKind>('webhook');
  const [url, setUrl] = useState('');
  const channelName = new Map(channels.data?.channels.map((c) => [c.id, c.name]));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name, kind, url }, { onSuccess: () => (setName(''), setUrl('')) });
  };

  return (
    <>
      <section aria-labelledby="channels-title" className="panel">
        <h2 id="channels-title">Notification channels</h2>
        <p className="hint">
          Each channel receives "Checklist ready" and "All tasks done" of every run: a webhook as our JSON, Slack, Discord and Teams as
          their incoming-webhook messages.
        </p>
        <form className="inline-form" onSubmit={submit}>
          <label>
            Name <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
          </label>
          <label>
            Kind{' '}
            <select value={kind} onChange={(e) => setKind(e.target.value as ChannelKind)}>
              {Object.entries(channelKinds).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Webhook URL <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://…" />
          </label>
          <button type="submit" disabled={create.isPending}>
            Add channel
          </button>
        </form>
        <ErrorMessage error={create.error ?? remove.error ?? sendTest.error ?? channels.error} />
        {sendTest.data ? (
          <p role="status" className={sendTest.data.delivered ? 'test-sent' : 'test-failed'}>
            Test message to {channelName.get(sendTest.data.channelId) ?? sendTest.data.channelId}:{' '}
            {sendTest.data.delivered ? 'delivered' : `not delivered (${sendTest.data.error ?? 'unknown error'})`}
          </p>
        ) : null}
        {channels.data?.channels.length === 0 ? (
          <p className="none">No channel: runs are refused unless started with skipNotificationCheck.</p>
        ) : null}
        <ul className="channels">
          {channels.data?.channels.map((c) => (
            <li key={c.id}>
              <strong>{c.name}</strong> <span className="kind">{channelKinds[c.kind]}</span> <code>{c.url}</code>{' '}
              <button
                type="button"
                aria-label={`Send a test message to ${c.name}`}
                disabled={sendTest.isPending}
                onClick={() => sendTest.mutate({ id: c.id })}
              >
                Send test message
              </button>{' '}
              <button
                type="button"
                aria-label={`Delete channel ${c.name}`}
                onClick={() => {
                  if (window.confirm(`Delete the channel "${c.name}"? Its undelivered messages are dropped.`)) remove.mutate({ id: c.id });
                }}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="outbox-title" className="panel">
        <h2 id="outbox-title">Deliveries</h2>
        <p className="hint">
          A failed delivery is retried with growing delays; one still failing after the maximum age is <strong>dead</strong> and waits for a
          retry here.
        </p>
        <ErrorMessage error={outbox.error ?? retry.error} />
        {outbox.data?.messages.length === 0 ? <p className="none">No notification sent yet.</p> : null}
        {outbox.data && outbox.data.messages.length > 0 ? (
          <div className="table-wrap">
            <GridTable caption="Outbox messages, newest first" columns={['Message', 'Channel', 'State', 'Attempts', 'Last error']}>
              {outbox.data.messages.map((m) => (
                <tr key={m.id}>
                  <th scope="row">
                    {kinds[m.kind]} · <a href={`/runs/${m.runId}`}>run</a> · <TimeAgo iso={m.createdAt} />
                  </th>
                  <td>{channelName.get(m.channelId) ?? m.url}</td>
                  <td>
                    <span className={`delivery delivery-${m.state}`}>{m.state}</span>
                    {m.nextAttemptAt && m.state !== 'delivered' ? (
                      <>
                        {' '}
                        · next <TimeAgo iso={m.nextAttemptAt} />
                      </>
                    ) : null}
                    {m.state === 'dead' || m.state === 'retrying' ? (
                      <>
                        {' '}
                        <button
                          type="button"
                          aria-label={`Retry the ${kinds[m.kind]} message to ${channelName.get(m.channelId) ?? m.url} now`}
                          disabled={retry.isPending}
                          onClick={() => retry.mutate({ id: m.id })}
                        >
                          Retry now
                        </button>
                      </>
                    ) : null}
                  </td>
                  <td>{m.attempts}</td>
                  <td className="full">{m.lastError ?? '—'}</td>
                </tr>
              ))}
            </GridTable>
          </div>
        ) : null}
      </section>
    </>
  );
}
