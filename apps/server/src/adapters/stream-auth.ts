// A live stream lives as long as its caller's right to it: it ends within moments of its key's revocation (or of the
// key that opened its session), or of its session's end, told on the workspace's revocations topic — through the live
// events, so every process serving streams hears it.
import { type Actor, type Deps, type Revocation, revocationsTopic } from '@agent-tasks/core';
import type { LiveEvents } from './live-events.ts';
import { endOnEvent } from './stream-end.ts';

export function streamSignal(deps: Deps, live: LiveEvents, actor: Actor, signal: AbortSignal | undefined): AbortSignal {
  const ended = new AbortController();
  const both = signal ? AbortSignal.any([signal, ended.signal]) : ended.signal;
  // A revocation missed while this replica's LISTEN connection was down is caught by looking at the key again.
  const check = () => {
    void (async () => {
      const key = await deps.store.keys.get(actor.workspaceId, actor.keyId);
      const session = actor.sessionId ? await deps.store.sessions.get(actor.workspaceId, actor.sessionId) : null;
      if (!key || key.revokedAt || (actor.sessionId && !session)) ended.abort();
    })().catch(() => undefined);
  };
  const stream = endOnEvent(
    live,
    [revocationsTopic(actor.workspaceId)],
    both,
    (event) => {
      const data = event.data as Revocation | undefined;
      // Told by another replica without its data (a large notice): look at the key instead.
      if (data === undefined) {
        check();
        return false;
      }
      return data.keyId === actor.keyId || (data.sessionId !== undefined && data.sessionId === actor.sessionId);
    },
    check,
  );
  // Listening now: a revocation between the caller's authentication and this point is caught by looking once more.
  check();
  return stream;
}
