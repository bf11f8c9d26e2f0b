// Who is calling, for every transport: a bearer token from the Authorization header, or a stream ticket for a live
// stream; tokens in URLs refused; failed attempts braked per token prefix, address group and in all; weak API keys refused.
import {
  type Actor,
  DomainError,
  SESSION_TOKEN_PREFIX,
  isDomainError,
  keyWeakness,
  resolveActor,
  resolveActorByHash,
} from '@agent-tasks/core';
import type { StreamToken } from '../adapters/live-streams.ts';
import type { Services } from '../context.ts';

/** What a request offers to prove who it is. */
export interface Credentials {
  /** From the Authorization header. */
  token: string | null;
  /** From a live stream's connection params (the URL). */
  ticket?: string | undefined;
  /** Set when the URL carried a token: refused, whatever else came along. */
  tokenInUrl?: boolean;
  /** Whether the call is a live stream (tickets open nothing else). */
  stream?: boolean;
}

const unauthorized = (message: string) => new DomainError('UNAUTHENTICATED', `Error: unauthorized: ${message}`);

export async function authenticate(services: Services, address: string | undefined, credentials: Credentials): Promise<Actor> {
  if (credentials.tokenInUrl) {
    throw unauthorized(
      'a token in the URL is not accepted (URLs end up in logs); send it as `Authorization: Bearer <token>`, or open a live stream with a ticket from auth.streamTicket as connectionParams.ticket.',
    );
  }
  const { guard } = services;
  if (!credentials.token && credentials.ticket !== undefined) {
    const ticket = credentials.ticket;
    if (!credentials.stream)
      throw unauthorized('a stream ticket opens a live stream only; send other calls with `Authorization: Bearer <token>`.');
    await guard.admit(address, ticket);
    const redeemed = await services.tickets.redeem(ticket);
    if (!redeemed) {
      const braked = await guard.failed(address, ticket);
      if (braked) throw braked;
      throw unauthorized('this stream ticket is unknown, used or expired; get a new one from auth.streamTicket.');
    }
    return withToken(await resolveActorByHash(services.deps, redeemed.tokenHash, redeemed.sessionToken), {
      hash: redeemed.tokenHash,
      session: redeemed.sessionToken,
    });
  }
  const token = credentials.token;
  if (!token) return resolveActor(services.deps, token); // the "send a token" refusal; not a guess, not counted
  await guard.admit(address, token);
  let actor: Actor;
  try {
    actor = await services.actors.resolve(token);
  } catch (error) {
    // A failure from an address group past its limit is answered 429 (a valid token from there still passed above).
    const braked = isDomainError(error) && error.code === 'UNAUTHENTICATED' ? await guard.failed(address, token) : null;
    throw braked ?? error;
  }
  // Keys an operator chose before weak ones were refused are refused now (generated keys always pass).
  if (!token.startsWith(SESSION_TOKEN_PREFIX)) {
    const weakness = keyWeakness(token);
    if (weakness) throw unauthorized(`this API key is too weak to be accepted: ${weakness}; ask an admin for a new key.`);
  }
  guard.succeeded(token);
  if (credentials.stream) withToken(actor, { hash: services.deps.hasher.hash(token), session: token.startsWith(SESSION_TOKEN_PREFIX) });
  return actor;
}

/** The token each authenticated caller came with (a cached caller stands for exactly one token): a live stream lasts as
 * long as that token works. */
const tokens = new WeakMap<Actor, StreamToken>();
const withToken = (actor: Actor, token: StreamToken) => (tokens.set(actor, token), actor);
export const tokenOf = (actor: Actor): StreamToken | undefined => tokens.get(actor);
