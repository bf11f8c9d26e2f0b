// Dashboard router: the session tree and its live signal, task lists and graphs, the outbox (admin), a run link's live view.
import { dashboard, runLinkTopic, runs, runTopic, sessionReadable, sessionsTopic } from '@agent-tasks/core';
import {
  type RunEvent,
  type SessionActivity,
  noInput,
  outboxListInput,
  outboxListOutput,
  runEvent,
  runLinkWatchInput,
  sessionActivity,
  sessionTreeOutput,
  sessionWatchTreeInput,
  taskGraphInput,
  taskGraphOutput,
  taskListsOutput,
} from '@agent-tasks/schema';
import { TRPCError, tracked } from '@trpc/server';
import { openListener } from '../adapters/live-events.ts';
import { whileOpen } from '../adapters/live-streams.ts';
import { resumableFeed } from '../adapters/resumable-feed.ts';
import { endOnEvent } from '../adapters/stream-end.ts';
import { authedProcedure, publicProcedure, router, streamOf } from '../trpc.ts';

const runNotFound = (runId: string) => new TRPCError({ code: 'NOT_FOUND', message: `Error: run ${runId} not found.` });

export const dashboardRouter = router({
  sessionTree: authedProcedure
    .input(noInput)
    .output(sessionTreeOutput)
    .query(({ ctx }) => dashboard.sessionTree(ctx.deps, ctx.actor)),
  /** Signals only (no replay): a reader refetches the tree when one arrives and whenever it reconnects. */
  watchSessions: authedProcedure
    .input(sessionWatchTreeInput)
    .output(streamOf(sessionActivity))
    .subscription(async ({ ctx }) => {
      // Listening before the stream says it started: a reader that refetches the tree then misses no signal after it.
      const listener = await openListener(ctx.live, sessionsTopic(ctx.actor.workspaceId), ctx.stream);
      // Signals of sessions the caller may not read are not told (a session sees itself and its subagents).
      const readable = new Map<string, boolean>();
      const mayRead = async (sessionId: string) => {
        if (!readable.has(sessionId)) readable.set(sessionId, await sessionReadable(ctx.deps, ctx.actor, sessionId));
        return readable.get(sessionId) as boolean;
      };
      return (async function* signals() {
        for await (const event of listener) {
          if (event.resync) continue; // activity is not recorded to read again: what was missed stays missed
          const data = event.data as SessionActivity;
          if (await mayRead(data.sessionId)) yield tracked(event.id, data);
        }
      })();
    }),
  taskLists: authedProcedure
    .input(noInput)
    .output(taskListsOutput)
    .query(({ ctx }) => dashboard.taskLists(ctx.deps, ctx.actor)),
  taskGraph: authedProcedure
    .input(taskGraphInput)
    .output(taskGraphOutput)
    .query(({ ctx, input }) => dashboard.taskGraph(ctx.deps, ctx.actor, input)),
  outbox: authedProcedure
    .input(outboxListInput)
    .output(outboxListOutput)
    .query(({ ctx, input }) => dashboard.outboxMessages(ctx.deps, ctx.actor, input)),
  /** A run's live view by its link: like `/runs/<id>`, the unguessable run id is the capability. */
  watchRunLink: publicProcedure
    .input(runLinkWatchInput)
    .output(streamOf(runEvent))
    .subscription(async ({ ctx, input, signal }) => {
      const linked = await ctx.deps.store.runs.getAnywhere(input.runId);
      if (!linked) throw runNotFound(input.runId);
      // A place under the caps (the run link counted like a key, in its run's workspace); given back when the stream ends.
      const admitted = ctx.admitted && 'opened' in ctx.admitted ? ctx.admitted.opened : undefined;
      const opened = admitted ?? (await ctx.streams.open({ runLink: input.runId, workspaceId: linked.workspaceId }, signal));
      // Listening for a revocation before the link is checked again, so one in between still ends the stream.
      const open = endOnEvent(ctx.live, [runLinkTopic(input.runId)], opened.signal);
      if (!(await runs.getByLink(ctx.deps, input.runId))) {
        opened.close();
        throw runNotFound(input.runId);
      }
      let feed;
      try {
        feed = await resumableFeed<RunEvent>({
          live: ctx.live,
          topic: runTopic(input.runId),
          signal: open,
          after: Number(input.lastEventId ?? 0) || 0,
          replay: async (after) => {
            const run = await runs.getByLink(ctx.deps, input.runId);
            return { items: run && run.version > after ? [{ version: run.version, run }] : [], more: false };
          },
          position: (event) => event.version,
        });
      } catch (error) {
        opened.close();
        throw error;
      }
      return whileOpen(opened, feed);
    }),
});
