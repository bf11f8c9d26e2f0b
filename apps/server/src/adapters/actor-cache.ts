// Resolved callers by token hash, so an authenticated call costs no query. A revocation clears every entry: at once in
// the process that revoked (and, told by it, in the other workers), and within one poll (100 ms) of the revocation stamp in
// any process (a key revoked by `agent-tasks keys revoke` on the file, or by another worker).
import { type Actor, type Deps, resolveActor } from '@agent-tasks/core';

export interface ActorCache {
  /** The caller behind a bearer token (refusals as `resolveActor`). */
  resolve(token: string | null | undefined): Promise<Actor>;
  /** Drops these tokens' callers (session tokens dropped), or every cached caller (a key was revoked). */
  forget(tokenHashes?: string[]): void;
  stop(): void;
}

export interface ActorCacheOptions {
  /** A value that changes whenever any key is revoked (count and latest time of revocations). */
  revocationStamp(): Promise<string>;
  pollMs?: number;
  capacity?: number;
  /** Called when the poll saw a revocation this process had not been told of. */
  onError?(error: unknown): void;
  /** Told of every `forget`, whoever asked (this process, another worker, the poll): the live streams end with it. */
  onForget?(tokenHashes?: string[]): void;
}

export function actorCache(deps: Deps, options: ActorCacheOptions): ActorCache {
  const capacity = options.capacity ?? 10_000;
  const entries = new Map<string, Actor>();
  // A lookup that began before a revocation must not store what it read.
  let generation = 0;
  let stamp: string | undefined;
  const forget = (tokenHashes?: string[]) => {
    generation += 1;
    if (!tokenHashes) entries.clear();
    else for (const hash of tokenHashes) entries.delete(hash);
    options.onForget?.(tokenHashes);
  };

  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    void options
      .revocationStamp()
      .then(
        (next) => {
          if (stamp !== undefined && next !== stamp) forget();
          stamp = next;
        },
        (error: unknown) => options.onError?.(error),
      )
      .finally(() => (polling = false));
  }, options.pollMs ?? 100);
  timer.unref();

  return {
    async resolve(token) {
      if (!token) return resolveActor(deps, token);
      const hash = deps.hasher.hash(token);
      const hit = entries.get(hash);
      if (hit) return hit;
      const started = generation;
      const actor = Object.freeze(await resolveActor(deps, token));
      if (started === generation) {
        if (entries.size >= capacity) entries.delete(entries.keys().next().value as string);
        entries.set(hash, actor);
      }
      return actor;
    },
    forget,
    stop: () => clearInterval(timer),
  };
}
