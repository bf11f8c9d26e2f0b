// Groups a todo list the way the seed's "Update to-do list" card reads it: Pending, In progress, Completed.
import type { TodoStatus } from '@agent-tasks/schema';

export const todoGroups: { status: TodoStatus; title: string }[] = [
  { status: 'pending', title: 'Pending' },
  { status: 'in_progress', title: 'In progress' },
  { status: 'completed', title: 'Completed' },
];

export const statusMark: Record<TodoStatus, string> = { pending: '○', in_progress: '▶', completed: '✓' };
export const statusText: Record<TodoStatus, string> = { pending: 'pending', in_progress: 'in progress', completed: 'completed' };

export function byStatus<T extends { status: TodoStatus }>(items: readonly T[], status: TodoStatus) {
  return items.filter((i) => i.status === status);
}
