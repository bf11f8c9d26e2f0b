// Checklist run router (seed 002): prepare/execute, naming, intake, step, the revision jump and revision, blockers, the view, its card and its feed.
import { channels, runLinks, runs, runTopic } from '@agent-tasks/core';
import {
  type RunEvent,
  runBlockerInput,
  runNoteInput,
  runCardOutput,
  runEvent,
  runExecuteInput,
  runHistoryOutput,
  runIntakeInput,
  runListInput,
  runListOutput,
  runNameInput,
  runNotificationsOutput,
  runPrepareInput,
  runPrepareOutput,
  runLinkStateOutput,
  runRef,
  runReviseInput,
  runStepInput,
  runTeleportInput,
  runView,
  runWatchInput,
} from '@agent-tasks/schema';
import { renderRunCard } from '../cards/run-card-svg.ts';
import { feedStart, resumableFeed } from '../adapters/resumable-feed.ts';
import { authedProcedure, presented, router, streamOf } from '../trpc.ts';

export const runRouter = router({
  prepare: authedProcedure
    .input(runPrepareInput)
    .output(runPrepareOutput)
    .mutation(({ ctx, input }) => runs.prepareStart(ctx.deps, ctx.actor, input)),
  execute: authedProcedure
    .input(runExecuteInput)
    .output(presented(runView))
    .mutation(({ ctx, input }) => runs.executeStart(ctx.deps, ctx.actor, input)),
  name: authedProcedure
    .input(runNameInput)
    .output(presented(runView))
    .mutation(({ ctx, input }) => runs.name(ctx.deps, ctx.actor, input)),
  intake: authedProcedure
    .input(runIntakeInput)
    .output(presented(runView))
    .mutation(({ ctx, input }) => runs.intake(ctx.deps, ctx.actor, input)),
  step: authedProcedure
    .input(runStepInput)
    .output(presented(runView))
    .mutation(({ ctx, input }) => runs.step(ctx.deps, ctx.actor, input)),
  teleport: authedProcedure
    .input(runTeleportInput)
    .output(presented(runView))
    .mutation(({ ctx, input }) => runs.teleport(ctx.deps, ctx.actor, input)),
  revise: authedProcedure
    .input(runReviseInput)
    .output(presented(runView))
    .mutation(({ ctx, input }) => runs.revise(ctx.deps, ctx.actor, input)),
  reportBlocker: authedProcedure
    .input(runBlockerInput)
    .output(presented(runView))
    .mutation(({ ctx, input }) => runs.reportBlocker(ctx.deps, ctx.actor, input)),
  /** A person's note on the run's current task, carried by the agent's next directive. */
  note: authedProcedure
    .input(runNoteInput)
    .output(presented(runView))
    .mutation(({ ctx, input }) => runs.note(ctx.deps, ctx.actor, input)),
  get: authedProcedure
    .input(runRef)
    .output(presented(runView))
    .query(({ ctx, input }) => runs.get(ctx.deps, ctx.actor, input)),
  list: authedProcedure
    .input(runListInput)
    .output(runListOutput)
    .query(({ ctx, input }) => runs.list(ctx.deps, ctx.actor, input)),
  card: authedProcedure
    .input(runRef)
    .output(runCardOutput)
    .query(async ({ ctx, input }) => ({ svg: renderRunCard(await runs.get(ctx.deps, ctx.actor, input)) })),
  history: authedProcedure
    .input(runRef)
    .output(runHistoryOutput)
    .query(({ ctx, input }) => runs.history(ctx.deps, ctx.actor, input)),
  notifications: authedProcedure
    .input(runRef)
    .output(runNotificationsOutput)
    .query(({ ctx, input }) => channels.runNotifications(ctx.deps, ctx.actor, input)),
  /** Turns off the run's keyless link (page, card, live view) (admin). */
  revokeLink: authedProcedure
    .input(runRef)
    .output(runLinkStateOutput)
    .mutation(({ ctx, input }) => runLinks.revokeRunLink(ctx.deps, ctx.actor, input)),
  /** Turns a revoked link back on (admin). */
  restoreLink: authedProcedure
    .input(runRef)
    .output(runLinkStateOutput)
    .mutation(({ ctx, input }) => runLinks.restoreRunLink(ctx.deps, ctx.actor, input)),
  watch: authedProcedure
    .input(runWatchInput)
    .output(streamOf(runEvent))
    .subscription(async ({ ctx, input }) => {
      await runs.get(ctx.deps, ctx.actor, input); // a refusal is an error response, not a broken stream
      return resumableFeed<RunEvent>({
        live: ctx.live,
        topic: runTopic(input.runId),
        signal: ctx.stream,
        after: feedStart(input, async () => (await runs.get(ctx.deps, ctx.actor, input)).version),
        // The run's latest state stands for every version missed: one event brings a reconnecting viewer up to date.
        replay: async (after) => {
          const run = await runs.get(ctx.deps, ctx.actor, input);
          return { items: run.version > after ? [{ version: run.version, run }] : [], more: false };
        },
        position: (event) => event.version,
      });
    }),
});
