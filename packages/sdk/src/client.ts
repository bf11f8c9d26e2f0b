// The typed client for agent runtimes and dashboards: createClient({ url, token }) with one method per call.
import type { AppRouter, RouterInputs } from './router-types.ts';
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { EventSource } from 'eventsource';
import type { RunEvent, TaskEvent, TodoCard } from '@agent-tasks/schema';

export interface ClientOptions {
  /** Base URL of the server, e.g. http://127.0.0.1:3000 */
  url: string;
  /** An API key (atk_…) or a session token (ats_…). */
  token: string;
  /**
   * How live streams (SSE) authenticate. `header` (the default): the `eventsource` package sends the token as an
   * Authorization header. `ticket`: for an EventSource that cannot send headers (a browser's own), each stream first
   * trades the token (sent as a header) for a single-use ticket from `auth.streamTicket` and opens with that; a token
   * never travels in a URL either way.
   */
  streams?: 'header' | 'ticket';
  /** The EventSource used with `streams: 'ticket'` (default: the global one, else the `eventsource` package's). */
  EventSource?: typeof globalThis.EventSource;
}

export interface Subscription {
  unsubscribe(): void;
}

export interface WatchHandlers<T> {
  onData(event: { id: string; data: T }): void;
  onError?(error: unknown): void;
  onStarted?(): void;
  /** The server ended the stream (its key was revoked, its session ended, or its run link was revoked). */
  onComplete?(): void;
}

export function createClient({ url, token, streams = 'header', ...options }: ClientOptions) {
  const base = `${url.replace(/\/+$/, '')}/trpc`;
  const authorization = `Bearer ${token}`;
  const calls = httpLink({ url: base, headers: () => ({ authorization }) });
  const tickets = createTRPCClient<AppRouter>({ links: [calls] });
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true:
          streams === 'ticket'
            ? httpSubscriptionLink({
                url: base,
                EventSource: options.EventSource ?? globalThis.EventSource ?? EventSource,
                // Asked again for every (re)connection: a ticket opens one stream.
                connectionParams: async () => ({ ticket: (await tickets.auth.streamTicket.mutate()).ticket }),
              })
            : httpSubscriptionLink({
                url: base,
                EventSource,
                // EventSource sends no headers of its own; this one's fetch adds the bearer token.
                eventSourceOptions: () => ({
                  fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization } }),
                }),
              }),
        false: calls,
      }),
    ],
  });

  /** The caller's handlers as a tRPC subscription's callbacks (all but onData optional). */
  const relay = <T>(handlers: WatchHandlers<T>) => ({
    onData: (event: { id: string; data: T }) => handlers.onData(event),
    onError: (error: unknown) => handlers.onError?.(error),
    onStarted: () => handlers.onStarted?.(),
    onComplete: () => handlers.onComplete?.(),
  });
  const watchTodo = (input: RouterInputs['todo']['watch'], handlers: WatchHandlers<TodoCard>): Subscription =>
    trpc.todo.watch.subscribe(input, relay(handlers));
  const watchTasks = (input: RouterInputs['task']['watch'], handlers: WatchHandlers<TaskEvent>): Subscription =>
    trpc.task.watch.subscribe(input, relay(handlers));
  const watchRun = (input: RouterInputs['run']['watch'], handlers: WatchHandlers<RunEvent>): Subscription =>
    trpc.run.watch.subscribe(input, relay(handlers));

  return {
    url,
    /** How this client's live streams authenticate (kept by the session clients it opens). */
    streams,
    trpc,
    whoami: () => trpc.workspace.whoami.query(),
    workspaces: {
      create: (input: RouterInputs['workspace']['create']) => trpc.workspace.create.mutate(input),
      settings: () => trpc.workspace.settings.query(),
      updateSettings: (input: RouterInputs['workspace']['updateSettings']) => trpc.workspace.updateSettings.mutate(input),
    },
    keys: {
      create: (input: RouterInputs['keys']['create']) => trpc.keys.create.mutate(input),
      list: () => trpc.keys.list.query(),
      revoke: (input: RouterInputs['keys']['revoke']) => trpc.keys.revoke.mutate(input),
    },
    sessions: {
      /** Opens a session (a subagent session when this client holds a session token). */
      open: (input: RouterInputs['session']['open'] = {}) => trpc.session.open.mutate(input),
      list: () => trpc.session.list.query(),
      get: (input: RouterInputs['session']['get'] = {}) => trpc.session.get.query(input),
      startTurn: () => trpc.session.startTurn.mutate(),
      endTurn: () => trpc.session.endTurn.mutate(),
    },
    todo: {
      write: (input: RouterInputs['todo']['write']) => trpc.todo.write.mutate(input),
      get: (input: RouterInputs['todo']['get'] = {}) => trpc.todo.get.query(input),
      history: (input: RouterInputs['todo']['history'] = {}) => trpc.todo.history.query(input),
      /** The "Update to-do list" card as text (Pending / In progress / Completed, what changed) and as data. */
      card: (input: RouterInputs['todo']['card'] = {}) => trpc.todo.card.query(input),
      watch: watchTodo,
    },
    tasks: {
      create: (input: RouterInputs['task']['create']) => trpc.task.create.mutate(input),
      get: (input: RouterInputs['task']['get']) => trpc.task.get.query(input),
      list: (input: RouterInputs['task']['list'] = {}) => trpc.task.list.query(input),
      update: (input: RouterInputs['task']['update']) => trpc.task.update.mutate(input),
      /** Claims a named task, or (without `id`) the oldest ready one; `task` is null when none is ready. */
      claim: (input: RouterInputs['task']['claim'] = {}) => trpc.task.claim.mutate(input),
      plan: (input: RouterInputs['task']['plan'] = {}) => trpc.task.plan.query(input),
      history: (input: RouterInputs['task']['history']) => trpc.task.history.query(input),
      /** Imports a batch of sisyphus or Claude Code task files into a list, all or nothing. */
      import: (input: RouterInputs['task']['import']) => trpc.task.import.mutate(input),
      /** The list's tasks (deleted included) as sisyphus or Claude Code task files. */
      export: (input: RouterInputs['task']['export']) => trpc.task.export.query(input),
      watch: watchTasks,
    },
    runs: {
      /** Phase one of a start: returns a start attempt id (refused without a notification channel unless skipped). */
      prepare: (input: RouterInputs['run']['prepare']) => trpc.run.prepare.mutate(input),
      /** Phase two: starts the run from the attempt, once. */
      execute: (input: RouterInputs['run']['execute']) => trpc.run.execute.mutate(input),
      /** The naming call: before intake (required), or within an open revision. */
      name: (input: RouterInputs['run']['name']) => trpc.run.name.mutate(input),
      intake: (input: RouterInputs['run']['intake']) => trpc.run.intake.mutate(input),
      step: (input: RouterInputs['run']['step']) => trpc.run.step.mutate(input),
      /** The jump to the revision node (`teleportTo: "teleport-revise-tasks"`). */
      teleport: (input: RouterInputs['run']['teleport']) => trpc.run.teleport.mutate(input),
      revise: (input: RouterInputs['run']['revise']) => trpc.run.revise.mutate(input),
      reportBlocker: (input: RouterInputs['run']['reportBlocker']) => trpc.run.reportBlocker.mutate(input),
      get: (input: RouterInputs['run']['get']) => trpc.run.get.query(input),
      list: (input: RouterInputs['run']['list'] = {}) => trpc.run.list.query(input),
      history: (input: RouterInputs['run']['history']) => trpc.run.history.query(input),
      /** The run's card as a self-contained SVG image (Checklist → Prepare → Work): `{ svg }`. */
      card: (input: RouterInputs['run']['card']) => trpc.run.card.query(input),
      notifications: (input: RouterInputs['run']['notifications']) => trpc.run.notifications.query(input),
      watch: watchRun,
    },
    channels: {
      create: (input: RouterInputs['channel']['create']) => trpc.channel.create.mutate(input),
      list: () => trpc.channel.list.query(),
      delete: (input: RouterInputs['channel']['delete']) => trpc.channel.delete.mutate(input),
    },
  };
}

export type AgentTasksClient = ReturnType<typeof createClient>;

/** Opens a session with this client's key and returns a client acting as that session. */
export async function openSessionClient(client: AgentTasksClient, input: RouterInputs['session']['open'] = {}) {
  const opened = await client.sessions.open(input);
  return { ...opened, client: createClient({ url: client.url, token: opened.token, streams: client.streams }) };
}
