// Stream tickets: a client that cannot send headers with its EventSource trades its bearer token (sent as a header) for
// a ticket that opens one live stream: single use, valid for a short time, kept only as a hash, bound to the token's
// hash so the stream acts as that token's caller (and stops working once that token is revoked).
import { randomBytes } from 'node:crypto';
import { type TokenHasher } from '@agent-tasks/core';
import type { Db } from '../db/client.ts';
import { withStoreErrors } from '../repositories/store-errors.ts';

export const STREAM_TICKET_PREFIX = 'stk_';

export interface StreamTickets {
  /** A new ticket for the token with this hash, and when it expires. */
  issue(tokenHash: string, sessionToken: boolean): Promise<{ ticket: string; expiresAt: Date }>;
  /** The token hash behind a ticket, once: a used, expired or unknown ticket answers null. */
  redeem(ticket: string): Promise<{ tokenHash: string; sessionToken: boolean } | null>;
}

export function streamTickets(db: Db, hasher: TokenHasher, ttlMs: number, now: () => Date = () => new Date()): StreamTickets {
  // Driver errors leave as port-level ones (StoreUnavailable), as from the Store.
  return withStoreErrors({
    async issue(tokenHash, sessionToken) {
      const ticket = `${STREAM_TICKET_PREFIX}${randomBytes(24).toString('base64url')}`;
      const at = now();
      const expiresAt = new Date(at.getTime() + ttlMs);
      await db.streamTicket.deleteMany({ where: { expiresAt: { lt: at } } });
      await db.streamTicket.create({ data: { id: hasher.hash(ticket), tokenHash, sessionToken, expiresAt }, select: { id: true } });
      return { ticket, expiresAt };
    },
    async redeem(ticket) {
      const id = hasher.hash(ticket);
      const row = await db.streamTicket.findUnique({ where: { id }, select: { tokenHash: true, sessionToken: true, expiresAt: true } });
      if (!row) return null;
      // Whoever deletes the row uses the ticket: two streams racing on one ticket get one winner.
      const { count } = await db.streamTicket.deleteMany({ where: { id } });
      return count === 1 && row.expiresAt.getTime() > now().getTime() ? { tokenHash: row.tokenHash, sessionToken: row.sessionToken } : null;
    },
  });
}
