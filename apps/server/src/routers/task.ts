// Task graph router (seed 001): create, get, list, update, claim, plan, history, import/export of task files and a resumable feed per task list.
import { type Deps, taskComments, taskFiles, taskMirror, taskSearch, tasks, taskTopic, trust } from '@agent-tasks/core';
import {
  type TaskCommentEvent,
  type TaskEvent,
  task,
  taskCommentEvent,
  taskNotesOutput,
  taskComment,
  taskCommentInput,
  taskComments as taskCommentsOutput,
  taskCommentsInput,
  taskCommentsWatchInput,
  taskDetail,
  taskNotesInput,
  taskSearchInput,
  taskSearchOutput,
  taskClaimInput,
  taskClaimOutput,
  taskCompletionCheckInput,
  taskCompletionCheckOutput,
  taskHeartbeatInput,
  taskHeartbeatOutput,
  taskHookEvidenceInput,
  taskHookEvidenceOutput,
  taskListSettings,
  taskListSettingsInput,
  taskListSettingsQuery,
  taskCreateInput,
  taskEvent,
  taskExportInput,
  taskExportOutput,
  taskGetInput,
  taskHistoryInput,
  taskHistoryOutput,
  taskImportInput,
  taskImportOutput,
  taskListInput,
  taskListOutput,
  taskMirrorInput,
  taskMirrorOutput,
  taskPlanInput,
  taskPlanOutput,
  taskUpdateInput,
  taskWatchInput,
} from '@agent-tasks/schema';
import { feedStart, resumableFeed } from '../adapters/resumable-feed.ts';
import { authedProcedure, presented, router, streamOf } from '../trpc.ts';

/** Per workspace, the end of its line of imports in this process. */
const importing = new Map<string, Promise<void>>();

interface ImportLimits {
  /** A staging list unwritten for this long is a dead import's (the next try removes it). */
  leaseMs: number;
  /** When (Date.now()) a waiting import stops waiting and answers 409 with Retry-After. */
  deadline: number;
}

/** Seconds until a staging list last written at `heartbeat` is free to be taken for dead, at least 1. */
function secondsUntilFree(deps: Deps, heartbeat: Date | null, leaseMs: number, fallbackMs: number) {
  const left = heartbeat ? heartbeat.getTime() + leaseMs - deps.clock.now().getTime() : fallbackMs;
  return Math.max(1, Math.ceil(left / 1_000));
}

/**
 * Runs `work` once no other process or replica is importing into the workspace. While one is, it looks every 100 ms
 * (a cheap read; the files are not parsed again) and tries `work` again once it is gone or its lease ran out — each
 * try removes staging left by a process that died, so a crashed import holds the next one up for one lease at most.
 * Past the deadline it answers 409 with Retry-After (when the blocking import's lease runs out) instead of waiting on.
 * A request whose client went away stops waiting.
 */
async function importWhenFree<T>(
  deps: Deps,
  workspaceId: string,
  limits: ImportLimits,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  for (;;) {
    let heartbeat: Date | null;
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof taskFiles.ImportInProgress)) throw error;
      heartbeat = error.heartbeat;
    }
    for (;;) {
      if (Date.now() >= limits.deadline) throw taskFiles.importBusy(secondsUntilFree(deps, heartbeat, limits.leaseMs, 1_000));
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(1, limits.deadline - Date.now()))));
      heartbeat = await deps.store.tasks.importInProgress(workspaceId);
      // Gone, or dead (its lease ran out): try again, which removes a dead one's staging.
      if (!heartbeat || heartbeat.getTime() + limits.leaseMs < deps.clock.now().getTime()) break;
    }
    signal?.throwIfAborted();
  }
}

export const taskRouter = router({
  create: authedProcedure
    .input(taskCreateInput)
    .output(presented(task))
    .mutation(({ ctx, input }) => tasks.create(ctx.deps, ctx.actor, input)),
  get: authedProcedure
    .input(taskGetInput)
    .output(taskDetail)
    .query(({ ctx, input }) => tasks.getTaskDetail(ctx.deps, ctx.actor, input)),
  list: authedProcedure
    .input(taskListInput)
    .output(presented(taskListOutput))
    .query(({ ctx, input }) => tasks.list(ctx.deps, ctx.actor, input)),
  update: authedProcedure
    .input(taskUpdateInput)
    .output(presented(task))
    .mutation(({ ctx, input }) => tasks.update(ctx.deps, ctx.actor, input)),
  /** Records a change another runtime's task tools made (Claude Code's TaskCreate/TaskUpdate) as that runtime made it. */
  mirror: authedProcedure
    .input(taskMirrorInput)
    .output(taskMirrorOutput)
    .mutation(({ ctx, input }) => taskMirror.mirrorTask(ctx.deps, ctx.actor, input)),
  claim: authedProcedure
    .input(taskClaimInput)
    .output(taskClaimOutput)
    .mutation(({ ctx, input }) => tasks.claim(ctx.deps, ctx.actor, input)),
  /** The owner renews its claim's lease. */
  heartbeat: authedProcedure
    .input(taskHeartbeatInput)
    .output(taskHeartbeatOutput)
    .mutation(({ ctx, input }) => trust.heartbeat(ctx.deps, ctx.actor, input)),
  /** A list's trust settings: evidence required on completion, the default claim lease. */
  settings: authedProcedure
    .input(taskListSettingsQuery)
    .output(taskListSettings)
    .query(({ ctx, input }) => trust.listSettings(ctx.deps, ctx.actor, input)),
  setSettings: authedProcedure
    .input(taskListSettingsInput)
    .output(taskListSettings)
    .mutation(({ ctx, input }) => trust.setListSettings(ctx.deps, ctx.actor, input)),
  /** Evidence a runtime hook saw run, for the caller's in-progress tasks (provenance `hook`). */
  hookEvidence: authedProcedure
    .input(taskHookEvidenceInput)
    .output(taskHookEvidenceOutput)
    .mutation(({ ctx, input }) => trust.recordHookEvidence(ctx.deps, ctx.actor, input)),
  /** Whether the task may be completed now under its list's settings. */
  completionCheck: authedProcedure
    .input(taskCompletionCheckInput)
    .output(taskCompletionCheckOutput)
    .query(({ ctx, input }) => trust.completionCheck(ctx.deps, ctx.actor, input)),
  plan: authedProcedure
    .input(taskPlanInput)
    .output(taskPlanOutput)
    .query(({ ctx, input }) => tasks.plan(ctx.deps, ctx.actor, input)),
  history: authedProcedure
    .input(taskHistoryInput)
    .output(taskHistoryOutput)
    .query(({ ctx, input }) => tasks.history(ctx.deps, ctx.actor, input)),
  import: authedProcedure
    .input(taskImportInput)
    .output(taskImportOutput)
    .mutation(async ({ ctx, input, signal }) => {
      // One import per workspace at a time: a second one waits for the first (hooks import one task each, in
      // parallel), for `waitMs` at most; then it is answered 409 with Retry-After rather than held open.
      const workspace = ctx.actor.workspaceId;
      const { leaseMs, waitMs } = ctx.imports;
      const limits = { leaseMs, deadline: Date.now() + waitMs };
      const before = importing.get(workspace) ?? Promise.resolve();
      let gaveUp = false;
      const mine = before.then(() =>
        gaveUp
          ? null
          : importWhenFree(ctx.deps, workspace, limits, signal, () => taskFiles.importTasks(ctx.deps, ctx.actor, input, { leaseMs })),
      );
      const tail = mine.then(
        () => undefined,
        () => undefined,
      );
      importing.set(workspace, tail);
      void tail.then(() => {
        if (importing.get(workspace) === tail) importing.delete(workspace);
      });
      // The turn in this process's line, or the deadline, whichever comes first (a timer runs after the line's
      // reactions, so a turn that came in time is always taken).
      const turn = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(
          () => {
            gaveUp = true;
            resolve(false);
          },
          Math.max(0, limits.deadline - Date.now()),
        );
        void before.then(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!turn) {
        throw taskFiles.importBusy(secondsUntilFree(ctx.deps, await ctx.deps.store.tasks.importInProgress(workspace), leaseMs, waitMs));
      }
      const result = await mine;
      if (!result) throw new Error('an import that took its turn has no result');
      return result;
    }),
  export: authedProcedure
    .input(taskExportInput)
    .output(taskExportOutput)
    .query(({ ctx, input }) => taskFiles.exportTasks(ctx.deps, ctx.actor, input)),
  /** A comment on a task by the caller: a person (API key) or an agent (session); live on `watchComments`. */
  comment: authedProcedure
    .input(taskCommentInput)
    .output(taskComment)
    .mutation(({ ctx, input }) => taskComments.commentOnTask(ctx.deps, ctx.actor, input)),
  comments: authedProcedure
    .input(taskCommentsInput)
    .output(taskCommentsOutput)
    .query(({ ctx, input }) => taskComments.commentsOf(ctx.deps, ctx.actor, input)),
  /** Full-text search over the list's subjects, descriptions and comments: ranked, matches marked. */
  search: authedProcedure
    .input(taskSearchInput)
    .output(taskSearchOutput)
    .query(({ ctx, input }) => taskSearch.searchTasks(ctx.deps, ctx.actor, input)),
  /** A session's hooks at its start: people's comments on the list since it last took them, now marked read. */
  takeNotes: authedProcedure
    .input(taskNotesInput)
    .output(taskNotesOutput)
    .mutation(({ ctx, input }) => taskComments.takeNotes(ctx.deps, ctx.actor, input)),
  watchComments: authedProcedure
    .input(taskCommentsWatchInput)
    .output(streamOf(taskCommentEvent))
    .subscription(({ ctx, input }) =>
      resumableFeed<TaskCommentEvent>({
        live: ctx.live,
        topic: taskComments.commentTopic(ctx.actor.workspaceId, input.listName ?? tasks.DEFAULT_LIST),
        signal: ctx.stream,
        after: feedStart(input, () => taskComments.commentFeedPosition(ctx.deps, ctx.actor, input)),
        replay: (after) => taskComments.commentsAfter(ctx.deps, ctx.actor, { listName: input.listName, after }),
        position: (event) => event.id,
      }),
    ),
  watch: authedProcedure
    .input(taskWatchInput)
    .output(streamOf(taskEvent))
    .subscription(({ ctx, input }) =>
      resumableFeed<TaskEvent>({
        live: ctx.live,
        topic: taskTopic(ctx.actor.workspaceId, input.listName ?? tasks.DEFAULT_LIST),
        signal: ctx.stream,
        after: feedStart(input, () => tasks.feedPosition(ctx.deps, ctx.actor, input)),
        replay: async (after) => {
          const page = await tasks.changesAfter(ctx.deps, ctx.actor, { listName: input.listName, after });
          return { items: page.events, more: page.more };
        },
        position: (event) => event.seq,
      }),
    ),
});
