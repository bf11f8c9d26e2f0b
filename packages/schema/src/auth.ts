// Contracts of authentication helpers: the stream ticket that opens a live stream without a token in its URL.
import { z } from 'zod';
import { isoDate } from './common.ts';

export const streamTicketOutput = z.object({
  ticket: z.string().describe('Pass as connectionParams.ticket when opening one live stream; single use'),
  expiresAt: isoDate.describe('Unused after this, the ticket is refused'),
});
export type StreamTicket = z.infer<typeof streamTicketOutput>;
