// A brake on bad credentials (rate-limiter-flexible), on three counts of failed authentications: per token prefix (a
// failing credential and its near neighbours: refused with 429 before they are looked up), per client address group
// (IPv6 by /64: that group's failures are answered 429, but a valid credential from it still passes, so one client
// behind a NAT or proxy cannot lock out the others there), and in all per second (past it, tokens not known to work
// are refused without a lookup until the second is over). With several workers the counts are kept by the primary
// (rate-limiter-flexible's cluster limiter), so a guesser spread across workers by the port's balancing is counted once.
import { DomainError, type TokenHasher } from '@agent-tasks/core';
import cluster from 'node:cluster';
import { RateLimiterCluster, RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { addressGroup } from '../http/client-address.ts';

export interface AuthGuardLimits {
  /** Failed authentications one client address group may make per window before its failures are answered 429. */
  perAddress: number;
  /** Failed authentications with tokens sharing their first PREFIX_LENGTH characters, per window. */
  perKeyPrefix: number;
  /** The window, and how long an address group or prefix stays braked once past its limit. */
  windowSeconds: number;
  /** Failed authentications per second on the whole server (those of address groups already braked not counted). */
  perSecond: number;
  /** Leading bits of an IPv4 / IPv6 address that name its group (32 / 64). */
  ipv4Bits: number;
  ipv6Bits: number;
}

/** Characters of a token that name its bucket: enough to tell keys apart, never enough to matter if logged. */
export const PREFIX_LENGTH = 16;
/** Token hashes remembered as recently working (oldest forgotten first). */
const KNOWN_GOOD_MAX = 10_000;

export interface AuthGuard {
  /** Refuses (RATE_LIMITED) a token not known to work when its prefix is braked or the server-wide ceiling is reached. */
  admit(address: string | undefined, token: string): Promise<void>;
  /** Counts a failed authentication; answers the refusal to give instead of 401 when the address group is braked. */
  failed(address: string | undefined, token: string): Promise<DomainError | null>;
  /** Remembers a token that authenticated. */
  succeeded(token: string): void;
  /** Whether a token is worth looking up before admission (known to work, or neither it nor its address is braked). */
  promising(address: string | undefined, token: string): Promise<boolean>;
}

const rateLimited = (message: string, wait: number) =>
  new DomainError('RATE_LIMITED', `Error: too many failed authentications ${message}; try again in ${wait} s.`, {
    retryAfterSeconds: wait,
  });

export function authGuard(limits: AuthGuardLimits, hasher: TokenHasher): AuthGuard {
  // A worker of `serve --workers N` asks the primary's counters; a single process keeps its own.
  const Limiter = cluster.isWorker ? RateLimiterCluster : RateLimiterMemory;
  const braking = (keyPrefix: string, points: number, seconds: number) =>
    new Limiter({ keyPrefix, points, duration: seconds, blockDuration: seconds });
  const byAddress = braking('auth-address', limits.perAddress, limits.windowSeconds);
  const byPrefix = braking('auth-prefix', limits.perKeyPrefix, limits.windowSeconds);
  const inAll = braking('auth-all', limits.perSecond, 1);
  /** Tokens that authenticated: this process's own memory, and (with workers) the primary's, asked once per token. */
  const knownGood = new Set<string>();
  const sharedGood = cluster.isWorker ? new RateLimiterCluster({ keyPrefix: 'auth-good', points: 1_000_000_000, duration: 86_400 }) : null;
  const remember = (hash: string) => {
    if (knownGood.size >= KNOWN_GOOD_MAX) knownGood.delete(knownGood.values().next().value as string);
    knownGood.add(hash);
  };
  const prefixOf = (token: string) => token.slice(0, PREFIX_LENGTH);
  const groupOf = (address: string | undefined) => addressGroup(address, limits.ipv4Bits, limits.ipv6Bits);

  const over = (res: RateLimiterRes | null, points: number) => (res !== null && res.consumedPoints >= points ? res : null);
  const seconds = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  /** A limiter past its points rejects the consume with its state: that is the count we want, not an error. */
  const consume = (limiter: RateLimiterMemory | RateLimiterCluster, key: string) =>
    limiter.consume(key).catch((rejected: unknown) => (rejected instanceof Error ? null : (rejected as RateLimiterRes)));

  /** Known to work here or, with workers, through another worker. */
  async function good(hash: string) {
    if (knownGood.has(hash)) return true;
    if (sharedGood && ((await sharedGood.get(hash))?.consumedPoints ?? 0) > 0) {
      remember(hash);
      return true;
    }
    return false;
  }

  return {
    async admit(_address, token) {
      // A token that worked always passes: checked first, so a working client costs no count lookup.
      const hash = hasher.hash(token);
      if (knownGood.has(hash)) return;
      const [p, all] = await Promise.all([byPrefix.get(prefixOf(token)), inAll.get('all')]);
      const overPrefix = over(p, limits.perKeyPrefix);
      const overAll = over(all, limits.perSecond);
      if (!overPrefix && !overAll) return;
      if (await good(hash)) return;
      if (overPrefix) throw rateLimited('with tokens starting like this one', seconds(overPrefix));
      throw rateLimited('on this server right now', seconds(overAll as RateLimiterRes));
    },
    async failed(address, token) {
      const [a] = await Promise.all([consume(byAddress, groupOf(address)), consume(byPrefix, prefixOf(token))]);
      // The address group's failures past its limit are answered 429 (and not counted in all: one client braked
      // already must not bring the server-wide ceiling down on everyone else).
      if (a && a.consumedPoints > limits.perAddress) return rateLimited('from this address', seconds(a));
      await consume(inAll, 'all');
      return null;
    },
    succeeded(token) {
      const hash = hasher.hash(token);
      if (knownGood.has(hash)) return;
      remember(hash);
      // Told to the primary once per token and worker, so the other workers let it through too.
      void sharedGood?.consume(hash).catch(() => undefined);
    },
    async promising(address, token) {
      const hash = hasher.hash(token);
      if (knownGood.has(hash)) return true;
      const [a, p, all] = await Promise.all([byAddress.get(groupOf(address)), byPrefix.get(prefixOf(token)), inAll.get('all')]);
      if (!over(a, limits.perAddress) && !over(p, limits.perKeyPrefix) && !over(all, limits.perSecond)) return true;
      return good(hash);
    },
  };
}
