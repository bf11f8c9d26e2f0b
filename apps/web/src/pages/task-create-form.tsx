// Inline task creation for a person's key: a subject (and a description), created in this list as TaskCreate does.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/error-message.tsx';
import { useTRPC } from '../lib/api.ts';

export function TaskCreateForm({ listName }: { listName: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.tasks.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.taskGraph.queryKey({ listName }) }),
    }),
  );
  const [subject, setSubject] = useState('');
  const [description, setDescription] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { listName, subject, ...(description ? { description } : {}) },
      {
        onSuccess: () => {
          setSubject('');
          setDescription('');
        },
      },
    );
  };
  return (
    <form className="inline-form task-create" aria-label="Create a task" onSubmit={submit}>
      <label>
        New task <input value={subject} onChange={(e) => setSubject(e.target.value)} placeholder="Subject" />
      </label>
      <label>
        Description <input value={description} onChange={(e) => setDescription(e.target.value)} placeholder="optional" />
      </label>
      <button type="submit" disabled={create.isPending}>
        Add task
      </button>
      <ErrorMessage error={create.error} />
      {create.data ? (
        <output className="created" aria-live="polite">
          Created {create.data.ref ?? create.data.id} “{create.data.subject}”.
        </output>
      ) : null}
    </form>
  );
}
