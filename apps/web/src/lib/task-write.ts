// A person's task writes from the dashboard: every change sent with the version the person read (`expectedVersion`);
// when someone changed the task meanwhile, the refusal's current task is kept as a conflict for the person to settle.
import type { AppRouter } from '@agent-tasks/server/router';
import type { Task, TaskUpdateInput } from '@agent-tasks/schema';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { useRef, useState } from 'react';
import { useTRPC } from './api.ts';

/** What a person changes: a task update without its list, id and version (those come from the task read). */
export type TaskEdit = Omit<TaskUpdateInput, 'listName' | 'id' | 'expectedVersion'>;

/** A change refused as stale: the task as the person read it, the change, and the task as it is now. */
export interface Conflict {
  base: Task;
  edit: TaskEdit;
  current: Task;
}

/** The current task a stale-version refusal carries, or null for any other failure. */
function staleCurrent(error: unknown): Task | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data = (error as TRPCClientError<AppRouter>).data as { appCode?: string; details?: { current?: Task } } | undefined;
  return data?.appCode === 'STALE_VERSION' && data.details?.current ? data.details.current : null;
}

/** The fields (of those a person edits) whose values differ between two states of a task. */
export const EDITED_FIELDS = [
  'subject',
  'description',
  'status',
  'owner',
  'priority',
  'labels',
  'blockedBy',
  'blocks',
  'metadata',
] as const;
export function changedFields(a: Task, b: Task) {
  return EDITED_FIELDS.filter((f) => JSON.stringify(a[f] ?? null) !== JSON.stringify(b[f] ?? null));
}

export function useTaskWrite(listName: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const update = useMutation(trpc.tasks.update.mutationOptions());
  const [conflict, setConflict] = useState<Conflict | null>(null);
  // The person's own writes, by task: the version each moved from → to. The page's copy of a task may lag behind
  // the person's last write for a moment; a change made on that copy is sent as of the person's own newer version
  // (never past anyone else's).
  const own = useRef(new Map<string, Map<number, number>>());
  const versionOf = (task: Task) => {
    let version = task.version;
    for (let next = own.current.get(task.id)?.get(version); next !== undefined; next = own.current.get(task.id)?.get(version)) {
      version = next;
    }
    return version;
  };

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.dashboard.taskGraph.queryKey({ listName }) }),
      queryClient.invalidateQueries({ queryKey: trpc.tasks.history.queryKey() }),
    ]);

  /** Sends `edit` as of `base` (its version); answers whether it was recorded. A stale read becomes the conflict. */
  async function send(base: Task, edit: TaskEdit): Promise<boolean> {
    const expectedVersion = versionOf(base);
    try {
      const saved = await update.mutateAsync({ listName, id: base.id, expectedVersion, ...edit });
      const versions = own.current.get(base.id) ?? new Map<number, number>();
      own.current.set(base.id, versions.set(expectedVersion, saved.version));
      await refresh();
      setConflict(null);
      return true;
    } catch (error) {
      const current = staleCurrent(error);
      if (current) update.reset();
      // A conflict stays until the person's choice is settled; any other refusal replaces it with its text.
      setConflict(current ? { base, edit, current } : null);
      if (current) await refresh();
      return false;
    }
  }

  return {
    send,
    pending: update.isPending,
    error: update.error,
    clearError: () => update.reset(),
    conflict,
    /** The person's change again, now as of the task as it is (their other changes stay). */
    keepMine: (c: Conflict) => send(c.current, c.edit),
    /** The person's change dropped: the task stays as the other writer left it. */
    takeTheirs: () => {
      setConflict(null);
      return refresh();
    },
  };
}

export type TaskWriter = ReturnType<typeof useTaskWrite>;
