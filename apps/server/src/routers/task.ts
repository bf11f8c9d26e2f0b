// Task graph router (seed 001): create, get, list, update, claim, plan, history, import/export of task files and a resumable feed per task list.
import { type Deps, taskFiles, taskMirror, tasks, taskTopic } from '@agent-tasks/core';
import {
  type TaskEvent,
  task,
  taskClaimInput,
  taskClaimOutput,
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
import { authedProcedure, router, streamOf } from '../trpc.ts';

/** Per workspace, the end of its line of imports in this process. */
const importing = new Map<string, Promise<void>>();

/**
 * Runs `work` once no other process or replica is importing into the workspace. While one is, it looks every 100 ms
 * (a cheap read; the files are not parsed again) and tries `work` again once it is gone, or every 5 s anyway — each
 * try removes staging left by a process that died, so a crashed import (or a failed clean-up) holds the next one up for 2 minutes at most.
 * A request whose client went away stops waiting.
 */
async function importWhenFree<T>(deps: Deps, workspaceId: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof taskFiles.ImportInProgress)) throw error;
    }
    for (let waited = 0; waited < 5_000; waited += 100) {
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (!(await deps.store.tasks.importInProgress(workspaceId))) break;
    }
    signal?.throwIfAborted();
  }
}

export const taskRouter = router({
  create: authedProcedure
    .input(taskCreateInput)
    .output(task)
    .mutation(({ ctx, input }) => tasks.createTask(ctx.deps, ctx.actor, input)),
  get: authedProcedure
    .input(taskGetInput)
    .output(task)
    .query(({ ctx, input }) => tasks.getTask(ctx.deps, ctx.actor, input)),
  list: authedProcedure
    .input(taskListInput)
    .output(taskListOutput)
    .query(({ ctx, input }) => tasks.listTasks(ctx.deps, ctx.actor, input)),
  update: authedProcedure
    .input(taskUpdateInput)
    .output(task)
    .mutation(({ ctx, input }) => tasks.updateTask(ctx.deps, ctx.actor, input)),
  /** Records a change another runtime's task tools made (Claude Code's TaskCreate/TaskUpdate) as that runtime made it. */
  mirror: authedProcedure
    .input(taskMirrorInput)
    .output(taskMirrorOutput)
    .mutation(({ ctx, input }) => taskMirror.mirrorTask(ctx.deps, ctx.actor, input)),
  claim: authedProcedure
    .input(taskClaimInput)
    .output(taskClaimOutput)
    .mutation(({ ctx, input }) => tasks.claimTask(ctx.deps, ctx.actor, input)),
  plan: authedProcedure
    .input(taskPlanInput)
    .output(taskPlanOutput)
    .query(({ ctx, input }) => tasks.planTasks(ctx.deps, ctx.actor, input)),
  history: authedProcedure
    .input(taskHistoryInput)
    .output(taskHistoryOutput)
    .query(({ ctx, input }) => tasks.taskHistory(ctx.deps, ctx.actor, input)),
  import: authedProcedure
    .input(taskImportInput)
    .output(taskImportOutput)
    .mutation(async ({ ctx, input, signal }) => {
      // One import per workspace at a time: a second one waits for the first (hooks import one task each, in parallel).
      const workspace = ctx.actor.workspaceId;
      const mine = (importing.get(workspace) ?? Promise.resolve()).then(() =>
        importWhenFree(ctx.deps, workspace, signal, () => taskFiles.importTasks(ctx.deps, ctx.actor, input)),
      );
      const tail = mine.then(
        () => undefined,
        () => undefined,
      );
      importing.set(workspace, tail);
      try {
        return await mine;
      } finally {
        if (importing.get(workspace) === tail) importing.delete(workspace);
      }
    }),
  export: authedProcedure
    .input(taskExportInput)
    .output(taskExportOutput)
    .query(({ ctx, input }) => taskFiles.exportTasks(ctx.deps, ctx.actor, input)),
  watch: authedProcedure
    .input(taskWatchInput)
    .output(streamOf(taskEvent))
    .subscription(({ ctx, input }) =>
      resumableFeed<TaskEvent>({
        live: ctx.live,
        topic: taskTopic(ctx.actor.workspaceId, input.listName ?? tasks.DEFAULT_LIST),
        signal: ctx.stream,
        after: feedStart(input, () => tasks.taskFeedPosition(ctx.deps, ctx.actor, input)),
        replay: async (after) => {
          const page = await tasks.taskChangesAfter(ctx.deps, ctx.actor, { listName: input.listName, after });
          return { items: page.events, more: page.more };
        },
        position: (event) => event.seq,
      }),
    ),
});
