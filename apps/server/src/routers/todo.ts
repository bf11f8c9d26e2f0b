// Todo router: todo_write, the current list, its update cards, and a resumable live feed of updates.
import { sessions, todoTopic, todos } from '@agent-tasks/core';
import {
  type TodoCard,
  sessionRef,
  todoCard,
  todoHistoryInput,
  todoHistoryOutput,
  todoListView,
  todoWatchInput,
  todoWriteInput,
  todoWriteOutput,
} from '@agent-tasks/schema';
import { tracked } from '@trpc/server';
import { authedProcedure, router, streamOf } from '../trpc.ts';

export const todoRouter = router({
  write: authedProcedure
    .input(todoWriteInput)
    .output(todoWriteOutput)
    .mutation(({ ctx, input }) => todos.writeTodos(ctx.deps, ctx.actor, input)),
  get: authedProcedure
    .input(sessionRef)
    .output(todoListView)
    .query(({ ctx, input }) => todos.getTodoList(ctx.deps, ctx.actor, input)),
  history: authedProcedure
    .input(todoHistoryInput)
    .output(todoHistoryOutput)
    .query(({ ctx, input }) => todos.todoHistory(ctx.deps, ctx.actor, input)),
  watch: authedProcedure
    .input(todoWatchInput)
    .output(streamOf(todoCard))
    .subscription(async ({ ctx, input, signal }) => {
      const after = Number(input.lastEventId ?? 0) || 0;
      // Validates access now, so a refusal is an error response rather than a broken stream.
      const { id: sessionId } = await sessions.targetSession(ctx.deps.store, ctx.actor, input.sessionId);
      const { deps, actor, live } = ctx;
      return (async function* () {
        const incoming = live.listen(todoTopic(sessionId), signal)[Symbol.asyncIterator]();
        const pending = incoming.next(); // subscribe before the replay read, so nothing falls between them
        let last = after;
        const { cards } = await todos.todoCardsAfter(deps, actor, { sessionId, afterRevision: after });
        for (const card of cards) {
          last = card.revision;
          yield tracked(String(card.revision), card);
        }
        for (let next = await pending; !next.done; next = await incoming.next()) {
          const card = next.value.data as TodoCard;
          if (card.revision <= last) continue;
          last = card.revision;
          yield tracked(String(card.revision), card);
        }
      })();
    }),
});
