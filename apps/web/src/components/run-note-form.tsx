// A person's note on a checklist run's current task (runs.note), for a key that writes tasks (member, admin): the agent's
// next directive carries it. A read-only key is told why there is no form; a refusal shows the server's text inline.
import type { RunView } from '@agent-tasks/schema';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTRPC } from '../lib/api.ts';
import { useRole, writesTasks } from '../lib/permissions.ts';
import { ErrorMessage } from './error-message.tsx';

export function RunNoteForm({ run, onNoted }: { run: RunView; onNoted: (run: RunView) => void }) {
  const trpc = useTRPC();
  const role = useRole();
  const note = useMutation(trpc.runs.note.mutationOptions());
  const [text, setText] = useState('');
  if (!role) return null;
  if (!writesTasks(role)) {
    return (
      <p className="none role-note" data-testid="run-note-read-only">
        Signed in with {role === 'agent' ? 'an agent' : 'a viewer'} key: you follow the run as the agent walks it. To leave the agent a note
        on its current task, sign in with a <strong>member</strong> key — an admin makes one under Admin → API keys.
      </p>
    );
  }
  if (!run.current) return <p className="none">No task is current: a note can be left once the agent works on one.</p>;
  const task = run.blocks.work.inProgress;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    note.mutate(
      { runId: run.id, text },
      {
        onSuccess: (saved) => {
          setText('');
          onNoted(saved);
        },
      },
    );
  };
  return (
    <form className="run-note" aria-label="Leave a note for the agent" onSubmit={submit}>
      <label>
        Note on task {task}: {run.current.action}
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={2} />
      </label>
      <p className="hint">The agent reads it with its next directive, while this task is current.</p>
      <button type="submit" disabled={note.isPending}>
        Leave note
      </button>
      <ErrorMessage error={note.error} />
      {note.data && !note.error ? (
        <output className="created" aria-live="polite">
          Note left on task {task}.
        </output>
      ) : null}
    </form>
  );
}
