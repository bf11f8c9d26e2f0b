// The live streams this process serves: capped per key, per workspace and in all (429 past a cap), and each ended as
// soon as the token it was opened with stops working — its key revoked, its session ended, the token dropped (a session
// reopened by its external id keeps only its newest tokens) — told on the workspace's revocations topic (one listener
// per workspace, through the live events, so every process hears it) or by the caller cache (a revocation seen in the
// database, tokens dropped by another worker). With workers, the caps count every worker's streams (the primary keeps
// the counts: cluster/limit-bank.ts).
import {
  type Actor,
  type Deps,
  DomainError,
  type Revocation,
  isDomainError,
  resolveActorByHash,
  revocationsTopic,
} from '@agent-tasks/core';
import type { SharedCounts } from '../http/shared-limits.ts';
import type { Logger } from '../logger.ts';
import type { HeardEvent, LiveEvents } from './live-events.ts';

/** Open streams at most: per key (a session's count with the key that opened it), per workspace, in all (every worker's). */
export interface StreamCaps {
  perKey: number;
  perWorkspace: number;
  total: number;
}

/** The token a stream was opened with (by its hash): the stream lasts as long as it works. */
export interface StreamToken {
  hash: string;
  /** A session token (`ats_…`), else an API key. */
  session: boolean;
}

/** Who holds a stream: a caller (with the token it came with), or a run link's viewer (no key: the run is the capability). */
export type StreamOwner = { actor: Actor; token: StreamToken | undefined } | { runLink: string; workspaceId: string };

export interface OpenedStream {
  /** Aborts when the request does, when the owner's right to the stream ends, or at `close()`. */
  signal: AbortSignal;
  /** Ends the stream and gives its place back (idempotent). */
  close(): void;
}

/** The stream's events, its place given back when they end (or the client goes away). */
export async function* whileOpen<T>(opened: OpenedStream, events: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* events;
  } finally {
    opened.close();
  }
}

export interface LiveStreams {
  /** Counts a new stream against the caps — refused past one with RATE_LIMITED (429) — and gives the signal it runs under. */
  open(owner: StreamOwner, request: AbortSignal | undefined): Promise<OpenedStream>;
  /** Ends the streams opened with these tokens (dropped); without a list, checks every open stream's token again. */
  forget(tokenHashes?: string[]): void;
  /** Open streams: in all, and of one workspace. */
  count(workspaceId?: string): number;
  /** Ends every stream (shutdown). */
  close(): void;
  /** Whether `close()` was called: a stream ending now ends for the shutdown, and its client should come back. */
  readonly closed: boolean;
}

/** How long a refused client is told to wait before trying again. */
export const STREAM_RETRY_AFTER_SECONDS = 10;

interface Entry {
  workspaceId: string;
  /** What the per-key cap counts: the key, or the run link. */
  holder: string;
  actor: Actor | null;
  token: StreamToken | undefined;
  ended: AbortController;
  closed: boolean;
  /** Its keys in the counts shared by the workers (given back when it ends). */
  shared: string[] | null;
}

interface Workspace {
  entries: Set<Entry>;
  /** Ends this workspace's revocations listener once its last stream is gone. */
  listening: AbortController;
  ready: Promise<void>;
}

const refusal = (message: string, limit: string, count: number, cap?: number) =>
  new DomainError('RATE_LIMITED', message, {
    retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS,
    limit,
    count,
    ...(cap === undefined ? {} : { cap }),
  });

/** Lookups at once when checking many streams' tokens again. */
const CHECKS_AT_ONCE = 16;

/** The refusal past a cap: which cap (0 per key, 1 per workspace, 2 in all), and the count that reached it. */
function refusalPast(cap: number, count: number, caps: StreamCaps, runLink: boolean) {
  const what = runLink ? 'this run link' : 'this key';
  if (cap === 0)
    return refusal(
      `Error: too many open live streams for ${what} (${count}, at most ${caps.perKey}); close one before opening another.`,
      'streams per key',
      count,
      caps.perKey,
    );
  if (cap === 1)
    return refusal(
      `Error: too many open live streams for this workspace (${count}, at most ${caps.perWorkspace}); close one before opening another.`,
      'streams per workspace',
      count,
      caps.perWorkspace,
    );
  return refusal(`Error: the server has too many open live streams (${count}); try again shortly.`, 'streams', count);
}

export function liveStreams(deps: Deps, live: LiveEvents, caps: StreamCaps, log?: Logger, counts?: SharedCounts): LiveStreams {
  const byHolder = new Map<string, number>();
  const workspaces = new Map<string, Workspace>();
  let total = 0;
  let refused = 0;
  let closed = false;
  const refusedLog = setInterval(() => {
    if (refused > 0) log?.warn({ refused }, `live streams: refused ${refused} past a cap in the last interval`);
    refused = 0;
  }, 1_000);
  refusedLog.unref();

  function release(entry: Entry) {
    if (entry.closed) return;
    entry.closed = true;
    if (entry.shared) counts?.give(entry.shared);
    total -= 1;
    const left = (byHolder.get(entry.holder) ?? 1) - 1;
    if (left > 0) byHolder.set(entry.holder, left);
    else byHolder.delete(entry.holder);
    const ws = workspaces.get(entry.workspaceId);
    ws?.entries.delete(entry);
    if (ws && ws.entries.size === 0) {
      workspaces.delete(entry.workspaceId);
      ws.listening.abort();
    }
  }

  const end = (entry: Entry) => {
    release(entry);
    entry.ended.abort();
  };

  /** Whether the entry's caller may still stream: its token (or, without one, its key and session) still works. */
  async function stillValid(entry: Entry): Promise<boolean> {
    const actor = entry.actor;
    if (!actor) return true; // a run link's stream ends on the link's own topic
    try {
      if (entry.token) {
        const now = await resolveActorByHash(deps, entry.token.hash, entry.token.session);
        return now.keyId === actor.keyId && now.sessionId === actor.sessionId;
      }
      const key = await deps.store.keys.get(actor.workspaceId, actor.keyId);
      if (!key || key.revokedAt) return false;
      return !actor.sessionId || (await deps.store.sessions.get(actor.workspaceId, actor.sessionId)) !== null;
    } catch (error) {
      // Refused: no longer valid. Anything else (a busy database) is no answer: the stream goes on.
      return !(isDomainError(error) && error.code === 'UNAUTHENTICATED');
    }
  }

  /** Checks these streams again, once per distinct credential, a few at a time; ends those no longer valid. */
  async function recheck(entries: Iterable<Entry>) {
    const groups = new Map<string, Entry[]>();
    for (const entry of entries) {
      if (entry.closed || !entry.actor) continue;
      const id = entry.token?.hash ?? `${entry.actor.keyId}/${entry.actor.sessionId ?? ''}`;
      const group = groups.get(id);
      if (group) group.push(entry);
      else groups.set(id, [entry]);
    }
    const list = [...groups.values()];
    for (let i = 0; i < list.length; i += CHECKS_AT_ONCE) {
      await Promise.all(
        list.slice(i, i + CHECKS_AT_ONCE).map(async (group) => {
          if (!(await stillValid(group[0] as Entry))) for (const entry of group) end(entry);
        }),
      );
    }
  }

  // Every stream checked again (a revocation seen elsewhere): one pass at a time, and one more if asked meanwhile.
  let checkingAll: Promise<void> | null = null;
  let again = false;
  function recheckAll() {
    if (checkingAll) {
      again = true;
      return;
    }
    checkingAll = (async () => {
      do {
        again = false;
        await recheck([...workspaces.values()].flatMap((ws) => [...ws.entries]));
      } while (again);
    })()
      .catch((error: unknown) => log?.warn({ err: error }, 'live streams: checking tokens again failed'))
      .finally(() => (checkingAll = null));
  }

  function heard(ws: Workspace, event: HeardEvent) {
    const data = event.data as Revocation | undefined;
    // A notice without its data (another replica's), or events possibly missed: look at every token again.
    if (event.resync || data === undefined) return void recheck(ws.entries);
    const matching = [...ws.entries].filter(
      (e) => e.actor && (e.actor.keyId === data.keyId || (data.sessionId !== undefined && e.actor.sessionId === data.sessionId)),
    );
    // Some of a session's tokens were dropped: its streams opened with one of those end, the others go on.
    if (data.tokensDropped) void recheck(matching);
    else for (const entry of matching) end(entry);
  }

  function workspaceOf(workspaceId: string): Workspace {
    const known = workspaces.get(workspaceId);
    if (known) return known;
    const listening = new AbortController();
    const listener = live.listen(revocationsTopic(workspaceId), listening.signal);
    const ws: Workspace = { entries: new Set(), listening, ready: listener.ready };
    workspaces.set(workspaceId, ws);
    void (async () => {
      for await (const event of listener) heard(ws, event);
    })().catch((error: unknown) => log?.warn({ err: error }, 'live streams: revocations listener failed'));
    return ws;
  }

  return {
    async open(owner, request) {
      const actor = 'actor' in owner ? owner.actor : null;
      const workspaceId = actor ? actor.workspaceId : (owner as { workspaceId: string }).workspaceId;
      const holder = actor ? actor.keyId : `link:${(owner as { runLink: string }).runLink}`;
      let shared: string[] | null = null;
      if (counts) {
        // Every worker's streams: the primary's counts decide.
        const keys = [`stream:holder:${holder}`, `stream:workspace:${workspaceId}`, 'stream:all'];
        const past = await counts.take(keys, [caps.perKey, caps.perWorkspace, caps.total]);
        if (past) {
          refused += 1;
          throw refusalPast(past.refused, past.count, caps, !actor);
        }
        shared = keys;
      } else {
        const mine = byHolder.get(holder) ?? 0;
        const theirs = workspaces.get(workspaceId)?.entries.size ?? 0;
        const past = mine >= caps.perKey ? [0, mine] : theirs >= caps.perWorkspace ? [1, theirs] : total >= caps.total ? [2, total] : null;
        if (past) {
          refused += 1;
          throw refusalPast(past[0] as number, past[1] as number, caps, !actor);
        }
      }
      const entry: Entry = {
        workspaceId,
        holder,
        actor,
        token: actor ? (owner as { token: StreamToken | undefined }).token : undefined,
        ended: new AbortController(),
        closed: false,
        shared,
      };
      total += 1;
      byHolder.set(holder, (byHolder.get(holder) ?? 0) + 1);
      const ws = workspaceOf(workspaceId);
      ws.entries.add(entry);
      // Shut down while the primary answered: ended at once.
      if (closed) end(entry);
      if (request) {
        if (request.aborted) end(entry);
        else request.addEventListener('abort', () => end(entry), { once: true });
      }
      // Listening now: a revocation between the caller's authentication and this point is caught by looking once more.
      if (actor) {
        void ws.ready
          .then(() => stillValid(entry))
          .then((valid) => valid || end(entry))
          .catch(() => undefined);
      }
      return {
        signal: entry.ended.signal,
        close: () => end(entry),
      };
    },
    forget(tokenHashes) {
      if (!tokenHashes) return recheckAll();
      const dropped = new Set(tokenHashes);
      for (const ws of workspaces.values()) for (const entry of ws.entries) if (entry.token && dropped.has(entry.token.hash)) end(entry);
    },
    count: (workspaceId) => (workspaceId === undefined ? total : (workspaces.get(workspaceId)?.entries.size ?? 0)),
    get closed() {
      return closed;
    },
    close() {
      closed = true;
      clearInterval(refusedLog);
      for (const ws of [...workspaces.values()]) for (const entry of [...ws.entries]) end(entry);
    },
  };
}
