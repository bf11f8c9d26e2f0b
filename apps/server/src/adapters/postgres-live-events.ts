// Live events across replicas on one PostgreSQL database: published in this process, and told to every other replica
// with NOTIFY on one channel (the topic and the event id; a signal's data too, when small). A feed that hears of an
// event from another replica reads it from its table (resumable-feed.ts), so nothing depends on NOTIFY's 8 KB limit.
// The events published in one turn of the event loop (a group commit's writes) go out in one statement.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { type LiveEvent, isRecordedTopic } from '@agent-tasks/core';
import type { Logger } from '../logger.ts';
import { repeatedFailureLog } from '../repeated-failure-log.ts';
import { type LiveEvents, inProcessLiveEvents } from './live-events.ts';

export const LIVE_CHANNEL = 'agent_tasks_live';
/** Data rides along only below this many bytes of payload (PostgreSQL refuses 8,000 and more). */
const INLINE_LIMIT = 7_000;

interface Notice {
  /** The replica that published it (its own notices are skipped: it already published them locally). */
  from: string;
  topic: string;
  id: string;
  data?: unknown;
}

/** The notice of `event`: its data rides along only for a signal (a recorded event's feed reads it from its table). */
export function noticeOf(from: string, event: LiveEvent): string {
  const bare = () => JSON.stringify({ from, topic: event.topic, id: event.id } satisfies Notice);
  if (isRecordedTopic(event.topic)) return bare();
  const full = JSON.stringify({ from, topic: event.topic, id: event.id, data: event.data } satisfies Notice);
  return Buffer.byteLength(full) < INLINE_LIMIT ? full : bare();
}

export interface PostgresLiveEvents extends LiveEvents {
  /** Ends LISTEN and the publishing connection (after `close()`, at the very end of a shutdown). */
  disconnect(): Promise<void>;
}

/** Listens before it resolves, so a feed opened once the server serves hears every other replica's later events. */
export async function postgresLiveEvents(url: string, log: Logger): Promise<PostgresLiveEvents> {
  const me = randomUUID();
  const local = inProcessLiveEvents();
  const reconnectFailed = repeatedFailureLog(log, 'warn', 'live events: reconnecting failed; trying again');
  // One connection, so this replica's notices go out in the order it published them.
  const publisher = new pg.Pool({ connectionString: url, max: 1 });
  publisher.on('error', (error) => log.warn({ err: error }, 'live events: publishing connection lost'));
  let listener: pg.Client | null = null;
  let stopped = false;
  // This replica's own notices come back to its LISTEN too: told apart by their start, without parsing them.
  const ownPrefix = `{"from":${JSON.stringify(me)},`;
  let queued: { notice: string; topic: string }[] = [];
  let sending: Promise<void> = Promise.resolve();

  /** NOTIFY for every event queued since the last turn, in the order published, in one statement and transaction. */
  function send() {
    if (queued.length === 0) return; // sent already, at the end of a shutdown
    const notices = queued;
    queued = [];
    sending = publisher
      // The notices as one JSON array: node-postgres escapes a text[] element by element in JavaScript (a tenth of a
      // write's CPU in its profile), JSON.stringify natively.
      .query('SELECT pg_notify($1, notice) FROM json_array_elements_text($2::json) AS notice', [
        LIVE_CHANNEL,
        JSON.stringify(notices.map((n) => n.notice)),
      ])
      .then(
        () => undefined,
        (error: unknown) => log.warn({ err: error, topics: notices.map((n) => n.topic) }, 'live events: NOTIFY failed'),
      );
  }

  function heard(payload: string | undefined) {
    if (payload?.startsWith(ownPrefix)) return;
    let notice: Notice;
    try {
      notice = JSON.parse(payload ?? '') as Notice;
    } catch {
      return log.warn({ payload: payload?.slice(0, 200) }, 'live events: a notice that is not ours was ignored');
    }
    if (notice.from === me || typeof notice.topic !== 'string') return;
    local.publish({ topic: notice.topic, id: notice.id, data: notice.data, fromAnotherReplica: true } as LiveEvent);
  }

  async function connect(): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    client.on('notification', (message) => heard(message.payload));
    const lost = (error?: Error) => {
      if (listener !== client) return;
      listener = null;
      if (stopped) return;
      log.warn({ err: error }, 'live events: LISTEN connection lost; reconnecting');
      void client.end().catch(() => undefined);
      setTimeout(() => void reconnect(), 500).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${LIVE_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined); // not left open when connecting or LISTEN failed
      throw error;
    }
    listener = client;
  }

  async function reconnect() {
    if (stopped || listener) return;
    try {
      await connect();
      log.info('live events: listening again');
      // Another replica's events sent while this one was not listening: every open feed reads its table again.
      local.resync();
    } catch (error) {
      reconnectFailed(error);
      setTimeout(() => void reconnect(), 1_000).unref();
    }
  }

  await connect();
  return {
    publish(event) {
      local.publish(event);
      if (queued.length === 0) setImmediate(send);
      queued.push({ notice: noticeOf(me, event), topic: event.topic });
    },
    listen: (topic, signal) => local.listen(topic, signal),
    close: () => local.close(),
    async disconnect() {
      stopped = true;
      const open = listener;
      listener = null;
      // What was published last still goes out.
      if (queued.length > 0) send();
      await sending;
      await Promise.all([open?.end(), publisher.end()]);
    },
  };
}
