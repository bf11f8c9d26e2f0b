// Todo router: todo_write (and the mirror of another tool's list), the current list, its update cards (also rendered as
// text), and a resumable live feed of updates.
import { sessions, todoCardOf, todoTopic, todos } from '@agent-tasks/core';
import {
  type TodoCard,
  sessionRef,
  todoCard,
  todoCardInput,
  todoCardView,
  todoHistoryInput,
  todoHistoryOutput,
  todoListView,
  todoMirrorInput,
  todoWatchInput,
  todoWriteInput,
  todoWriteOutput,
} from '@agent-tasks/schema';
import { feedStart, resumableFeed } from '../adapters/resumable-feed.ts';
import { authedProcedure, presented, router, streamOf } from '../trpc.ts';

export const todoRouter = router({
  write: authedProcedure
    .input(todoWriteInput)
    .output(presented(todoWriteOutput))
    .mutation(({ ctx, input }) => todos.write(ctx.deps, ctx.actor, input)),
  /** Records a list kept by another agent tool (Claude Code's TodoWrite) as that tool holds it, keeping `activeForm`. */
  mirror: authedProcedure
    .input(todoMirrorInput)
    .output(presented(todoWriteOutput))
    .mutation(({ ctx, input }) => todos.mirror(ctx.deps, ctx.actor, input)),
  get: authedProcedure
    .input(sessionRef)
    .output(presented(todoListView))
    .query(({ ctx, input }) => todos.get(ctx.deps, ctx.actor, input)),
  history: authedProcedure
    .input(todoHistoryInput)
    .output(todoHistoryOutput)
    .query(({ ctx, input }) => todos.history(ctx.deps, ctx.actor, input)),
  /** The "Update to-do list" card of the latest (or a given) update, as text and as the groups it shows. */
  card: authedProcedure
    .input(todoCardInput)
    .output(todoCardView)
    .query(({ ctx, input }) => todoCardOf(ctx.deps, ctx.actor, input)),
  watch: authedProcedure
    .input(todoWatchInput)
    .output(streamOf(todoCard))
    .subscription(async ({ ctx, input }) => {
      // Validates access now, so a refusal is an error response rather than a broken stream.
      const { id: sessionId } = await sessions.targetSession(ctx.deps.store, ctx.actor, input.sessionId);
      return resumableFeed<TodoCard>({
        live: ctx.live,
        topic: todoTopic(sessionId),
        signal: ctx.stream,
        after: feedStart(input, async () => (await todos.get(ctx.deps, ctx.actor, { sessionId })).revision),
        replay: async (after) => {
          const page = await todos.cardsAfter(ctx.deps, ctx.actor, { sessionId, afterRevision: after });
          return { items: page.cards, more: page.more };
        },
        position: (card) => card.revision,
      });
    }),
});
