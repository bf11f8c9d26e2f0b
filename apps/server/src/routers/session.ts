// Session router: open a session or subagent session, list them, run turns, read a session's view.
import { sessions } from '@agent-tasks/core';
import {
  noInput,
  sessionListOutput,
  sessionOpenInput,
  sessionOpenOutput,
  sessionRef,
  sessionTurnOutput,
  sessionView,
} from '@agent-tasks/schema';
import { authedProcedure, router } from '../trpc.ts';

export const sessionRouter = router({
  open: authedProcedure
    .input(sessionOpenInput)
    .output(sessionOpenOutput)
    .mutation(({ ctx, input }) => sessions.open(ctx.deps, ctx.actor, input)),
  list: authedProcedure
    .input(noInput)
    .output(sessionListOutput)
    .query(({ ctx }) => sessions.list(ctx.deps, ctx.actor)),
  get: authedProcedure
    .input(sessionRef)
    .output(sessionView)
    .query(({ ctx, input }) => sessions.get(ctx.deps, ctx.actor, input)),
  startTurn: authedProcedure
    .input(noInput)
    .output(sessionTurnOutput)
    .mutation(({ ctx }) => sessions.startTurn(ctx.deps, ctx.actor)),
  endTurn: authedProcedure
    .input(noInput)
    .output(sessionTurnOutput)
    .mutation(({ ctx }) => sessions.endTurn(ctx.deps, ctx.actor)),
});
