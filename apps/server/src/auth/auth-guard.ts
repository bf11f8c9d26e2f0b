// A brake on bad credentials (rate-limiter-flexible): failed authentications are counted per client address and per
// token prefix; past the limit, that address or prefix is refused with 429 + Retry-After for the window, except tokens
// that authenticated recently (so a guesser is stopped without locking out the clients already working from there).
// With several workers the counts are kept by the primary (rate-limiter-flexible's cluster limiter), so a guesser
// spread across workers by the port's balancing is counted once.
import { DomainError, type TokenHasher } from '@agent-tasks/core';
import cluster from 'node:cluster';
import { RateLimiterCluster, RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';

export interface AuthGuardLimits {
  /** Failed authentications one client address may make per window. */
  perAddress: number;
  /** Failed authentications with tokens sharing their first PREFIX_LENGTH characters, per window. */
  perKeyPrefix: number;
  /** The window, and how long an address or prefix stays refused once past its limit. */
  windowSeconds: number;
}

/** Characters of a token that name its bucket: enough to tell keys apart, never enough to matter if logged. */
export const PREFIX_LENGTH = 16;
/** Token hashes remembered as recently working (oldest forgotten first). */
const KNOWN_GOOD_MAX = 10_000;

export interface AuthGuard {
  /** Refuses (RATE_LIMITED) when the address or the token's prefix is past its limit and the token is not known good. */
  admit(address: string | undefined, token: string): Promise<void>;
  /** Counts a failed authentication against the address and the token's prefix. */
  failed(address: string | undefined, token: string): Promise<void>;
  /** Remembers a token that authenticated. */
  succeeded(token: string): void;
}

export function authGuard(limits: AuthGuardLimits, hasher: TokenHasher): AuthGuard {
  // A worker of `serve --workers N` asks the primary's counters; a single process keeps its own.
  const Limiter = cluster.isWorker ? RateLimiterCluster : RateLimiterMemory;
  const byAddress = new Limiter({
    keyPrefix: 'auth-address',
    points: limits.perAddress,
    duration: limits.windowSeconds,
    blockDuration: limits.windowSeconds,
  });
  const byPrefix = new Limiter({
    keyPrefix: 'auth-prefix',
    points: limits.perKeyPrefix,
    duration: limits.windowSeconds,
    blockDuration: limits.windowSeconds,
  });
  /** Tokens that authenticated: this process's own memory, and (with workers) the primary's, asked once per token. */
  const knownGood = new Set<string>();
  const sharedGood = cluster.isWorker ? new RateLimiterCluster({ keyPrefix: 'auth-good', points: 1_000_000_000, duration: 86_400 }) : null;
  const remember = (hash: string) => {
    if (knownGood.size >= KNOWN_GOOD_MAX) knownGood.delete(knownGood.values().next().value as string);
    knownGood.add(hash);
  };
  const prefixOf = (token: string) => token.slice(0, PREFIX_LENGTH);
  const addressOf = (address: string | undefined) => address ?? 'unknown';

  const exhausted = (res: RateLimiterRes | null, points: number) => (res !== null && res.consumedPoints >= points ? res : null);
  const seconds = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

  return {
    async admit(address, token) {
      // A token that worked always passes: checked first, so a working client costs no count lookup.
      const hash = hasher.hash(token);
      if (knownGood.has(hash)) return;
      const [a, p] = await Promise.all([byAddress.get(addressOf(address)), byPrefix.get(prefixOf(token))]);
      const overAddress = exhausted(a, limits.perAddress);
      const overPrefix = exhausted(p, limits.perKeyPrefix);
      if (!overAddress && !overPrefix) return;
      // It may have worked through another worker.
      if (sharedGood && ((await sharedGood.get(hash))?.consumedPoints ?? 0) > 0) return remember(hash);
      const wait = Math.max(overAddress ? seconds(overAddress) : 0, overPrefix ? seconds(overPrefix) : 0);
      const from = overAddress ? 'from this address' : 'with tokens starting like this one';
      throw new DomainError('RATE_LIMITED', `Error: too many failed authentications ${from}; try again in ${wait} s.`, {
        retryAfterSeconds: wait,
      });
    },
    async failed(address, token) {
      // A limiter past its points rejects the consume: that is the count we want, not an error.
      await Promise.all([
        byAddress.consume(addressOf(address)).catch(() => undefined),
        byPrefix.consume(prefixOf(token)).catch(() => undefined),
      ]);
    },
    succeeded(token) {
      const hash = hasher.hash(token);
      if (knownGood.has(hash)) return;
      remember(hash);
      // Told to the primary once per token and worker, so the other workers let it through too.
      void sharedGood?.consume(hash).catch(() => undefined);
    },
  };
}
