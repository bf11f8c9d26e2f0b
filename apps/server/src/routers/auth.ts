// Auth router: a stream ticket, traded for the bearer token (sent as a header) by clients whose EventSource sends no headers.
import { SESSION_TOKEN_PREFIX } from '@agent-tasks/core';
import { noInput, streamTicketOutput } from '@agent-tasks/schema';
import { authedProcedure, router } from '../trpc.ts';

export const authRouter = router({
  streamTicket: authedProcedure
    .input(noInput)
    .output(streamTicketOutput)
    .mutation(async ({ ctx }) => {
      // authedProcedure accepted the header's token: the ticket stands for exactly that token.
      const token = ctx.token as string;
      const { ticket, expiresAt } = await ctx.tickets.issue(ctx.deps.hasher.hash(token), token.startsWith(SESSION_TOKEN_PREFIX));
      return { ticket, expiresAt: expiresAt.toISOString() };
    }),
});
