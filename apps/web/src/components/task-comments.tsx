// The comments section of the task panel: the task's comments (newest first, live) and, for a key that writes, a form.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { type FormEvent, useState } from 'react';
import { useTRPC } from '../lib/api.ts';
import { useWhoami } from '../lib/auth.ts';
import { ErrorMessage } from './error-message.tsx';
import { TimeAgo } from './time-ago.tsx';

export function TaskComments({ listName, id }: { listName: string; id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const whoami = useWhoami();
  const query = trpc.tasks.comments.queryOptions({ listName, id });
  const comments = useQuery(query);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: query.queryKey });
  // Every comment on the list arrives live; this task's refresh the section.
  useSubscription(trpc.tasks.watchComments.subscriptionOptions({ listName }, { onData: (event) => event.data.taskId === id && refresh() }));
  const add = useMutation(trpc.tasks.comment.mutationOptions({ onSuccess: refresh }));
  const [body, setBody] = useState('');
  const writes = whoami.data ? whoami.data.role !== 'viewer' : false;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ listName, id, body }, { onSuccess: () => setBody('') });
  };

  return (
    <section className="task-comments" aria-labelledby="task-comments-title">
      <h3 id="task-comments-title">Comments{comments.data ? ` (${comments.data.count})` : ''}</h3>
      <ErrorMessage error={comments.error} />
      {comments.data && comments.data.count === 0 ? (
        <p className="none">
          No comments yet.
          {whoami.data && !writes ? ' A viewer key reads comments; a member key adds them.' : ''}
        </p>
      ) : null}
      <ol className="comments">
        {comments.data?.newest.map((c) => (
          <li key={c.id} data-by={c.by}>
            <p>
              <strong>{c.author}</strong> {c.by === 'agent' ? '(agent)' : ''} · <TimeAgo iso={c.at} />
            </p>
            <p className="comment-body">{c.body}</p>
          </li>
        ))}
      </ol>
      {writes ? (
        <form onSubmit={submit} aria-label="Add a comment">
          <label>
            Comment <textarea value={body} onChange={(e) => setBody(e.target.value)} rows={3} maxLength={4000} required />
          </label>
          <button type="submit" disabled={add.isPending}>
            Add comment
          </button>
          <ErrorMessage error={add.error} />
        </form>
      ) : null}
    </section>
  );
}
