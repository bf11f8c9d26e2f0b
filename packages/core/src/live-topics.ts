// Every live-event topic, built in one place: the write path publishes on them, the streams (and the dashboard) listen.
import type { SessionActivity } from '@agent-tasks/schema';
import type { EventPublisher } from './ports.ts';

/** A session's todo cards (id = revision). */
export const todoTopic = (sessionId: string) => `todo:${sessionId}`;

/** A task list's changes, by workspace and list name. */
export const taskTopic = (workspaceId: string, listName: string) => `tasks:${workspaceId}:${listName}`;

/** The live topic of a list's comments (one event per comment, its id the feed position). */
export const commentTopic = (workspaceId: string, listName: string) => `task-comments:${workspaceId}:${listName}`;

/** A checklist run's changes (id = the run's version). */
export const runTopic = (runId: string) => `run:${runId}`;

/** The topics whose events the store records (a card, a list's change, a comment, a run's version): a feed reads them
 * again from there, so what another replica needs to hear is that one came, not its data. */
const RECORDED_TOPICS = ['todo:', 'tasks:', 'task-comments:', 'run:'];

/** Whether `topic`'s events are recorded in the store (else they are signals, whose data is all there is). */
export const isRecordedTopic = (topic: string) => RECORDED_TOPICS.some((prefix) => topic.startsWith(prefix));

/** Topic told when a run's link is revoked: the live views opened through it end. */
export const runLinkTopic = (runId: string) => `run-link:${runId}`;

/** Topic told when a key of the workspace is revoked: the live streams opened with it (or its sessions) end. */
export const revocationsTopic = (workspaceId: string) => `revocations:${workspaceId}`;

/** The workspace's session activity (opened, a turn, a todo update), read by the dashboard's session tree. */
export const sessionsTopic = (workspaceId: string) => `sessions:${workspaceId}`;

/** Tells the workspace's readers that one of its sessions changed (opened, a turn, a todo update). */
export function publishSessionActivity(
  events: EventPublisher,
  session: { id: string; workspaceId: string },
  kind: SessionActivity['kind'],
  at: Date,
) {
  const data: SessionActivity = { sessionId: session.id, kind, at: at.toISOString() };
  events.publish({ topic: sessionsTopic(session.workspaceId), id: String(at.getTime()), data });
}
