// A TCP relay in front of a PostgreSQL server that reads the frontend protocol going through it: how many round trips
// (Sync of an extended query, or a simple Query) the clients make, and which statements they run (by their first
// keyword, named statements resolved from their Parse), so a test counts what a call costs on a real PostgreSQL.
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';

/** One wait for the server's answer (a Sync of the extended protocol, or a simple Query) and what it ran. */
export interface RoundTrip {
  /** Which client connection (numbered in the order they connected). */
  connection: number;
  statements: string[];
  /** How many of the connection's round trips before this one were still unanswered when it was sent (pipelined). */
  behind: number;
}

export interface WireTally {
  /** Waits for the server's answer: one per Sync (extended protocol) and per simple Query. */
  roundTrips: number;
  /** Statements run, by their first keyword (BEGIN, COMMIT, SAVEPOINT, UPDATE, INSERT, SELECT…). */
  statements: Map<string, number>;
  /** Statement texts in the order they ran. */
  texts: string[];
  /** Every round trip, in order. */
  trips: RoundTrip[];
}

export interface WireCounter {
  /** The URL to give a server instead of `target`: the same database through the relay. */
  url: string;
  reset(): void;
  /** A copy of what went through since the last reset. */
  tally(): WireTally;
  /** Statements of this keyword since the last reset (0 when none). */
  count(keyword: string): number;
  /** The transactions (BEGIN … COMMIT on one connection) since the last reset, each as its round trips. */
  transactions(): RoundTrip[][];
  /**
   * Holds each of the server's answers `ms` before passing it on, in order (0: at once, the default): a client that
   * sends its next round trip without waiting for the answer before shows it however busy the machine is.
   */
  holdAnswers(ms: number): void;
  close(): Promise<void>;
}

const keywordOf = (sql: string) => sql.trim().split(/\s+/, 1)[0]?.toUpperCase() ?? '?';

/** Reads NUL-terminated strings from a message body. */
function cstrings(body: Buffer, count: number): string[] {
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const end = body.indexOf(0, at);
    if (end < 0) break;
    out.push(body.toString('utf8', at, end));
    at = end + 1;
  }
  return out;
}

/** Starts a relay to `target` (a postgresql://… URL) on a free local port. */
export async function startWireCounter(target: string): Promise<WireCounter> {
  const upstream = new URL(target);
  let tally: WireTally;
  const reset = () => {
    tally = { roundTrips: 0, statements: new Map(), texts: [], trips: [] };
  };
  reset();
  const ran = (sql: string) => {
    const keyword = keywordOf(sql);
    tally.statements.set(keyword, (tally.statements.get(keyword) ?? 0) + 1);
    tally.texts.push(sql);
  };
  let connections = 0;
  let holdMs = 0;

  const sockets = new Set<Socket>();
  // No Nagle delay on either side: a client's pipelined messages are passed on as they come, as without the relay.
  const server: Server = createServer({ noDelay: true }, (client) => {
    const db = connect({ port: Number(upstream.port || 5432), host: upstream.hostname, noDelay: true });
    sockets.add(client);
    sockets.add(db);
    // This connection's named statements (the unnamed one under ''), to tell what a Bind runs.
    const prepared = new Map<string, string>();
    const connection = ++connections;
    let statements: string[] = [];
    // Round trips sent on this connection and not yet answered (ReadyForQuery).
    let unanswered = 0;
    const trip = () => {
      tally.roundTrips++;
      tally.trips.push({ connection, statements, behind: unanswered });
      unanswered++;
      statements = [];
    };
    let pending: Buffer = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (!started) {
          // The startup packet (or an SSL request before it) has a length and no type byte.
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          if (code !== 80877103) started = true; // 80877103: SSLRequest, answered before the real startup packet
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0]!);
        const body = pending.subarray(5, 1 + length);
        pending = pending.subarray(1 + length);
        if (type === 'Q') {
          const [sql = ''] = cstrings(body, 1);
          for (const part of sql.split(';').filter((s) => s.trim())) {
            ran(part.trim());
            statements.push(part.trim());
          }
          trip();
        } else if (type === 'P') {
          const [name = '', sql = ''] = cstrings(body, 2);
          prepared.set(name, sql);
        } else if (type === 'B') {
          const [, name = ''] = cstrings(body, 2);
          const sql = prepared.get(name) ?? '?';
          ran(sql);
          statements.push(sql);
        } else if (type === 'S') {
          trip();
        }
      }
      db.write(chunk);
    });
    // The server's messages, read for its ReadyForQuery (the end of a round trip's answer) as they are passed on.
    let answers: Buffer = Buffer.alloc(0);
    let authenticated = false;
    // Answers held back (holdAnswers) go on in the order they came, each once its own time is up.
    let held: Promise<void> = Promise.resolve();
    db.on('data', (chunk: Buffer) => {
      if (holdMs === 0) return void (held = held.then(() => passOn(chunk)));
      const due = Date.now() + holdMs;
      held = held.then(() => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())))).then(() => passOn(chunk));
    });
    const passOn = (chunk: Buffer) => {
      if (client.destroyed) return;
      answers = answers.length ? Buffer.concat([answers, chunk]) : chunk;
      // An SSLRequest's answer is one byte ('N' here: the tests' server takes no SSL) before any message.
      if (!authenticated && answers.length === 1 && answers[0] === 78) answers = Buffer.alloc(0);
      while (answers.length >= 5 && answers.length >= 1 + answers.readInt32BE(1)) {
        const type = String.fromCharCode(answers[0]!);
        answers = answers.subarray(1 + answers.readInt32BE(1));
        if (type !== 'Z') continue;
        if (authenticated) unanswered = Math.max(0, unanswered - 1);
        authenticated = true; // the first ReadyForQuery ends the start-up, which is no round trip
      }
      client.write(chunk);
    };
    const end = () => {
      client.destroy();
      db.destroy();
      sockets.delete(client);
      sockets.delete(db);
    };
    client.on('error', end).on('close', end);
    db.on('error', end).on('close', end);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const relayed = new URL(target);
  relayed.host = `127.0.0.1:${port}`;
  return {
    url: relayed.toString(),
    reset,
    tally: () => ({
      roundTrips: tally.roundTrips,
      statements: new Map(tally.statements),
      texts: [...tally.texts],
      trips: tally.trips.map((t) => ({ connection: t.connection, statements: [...t.statements], behind: t.behind })),
    }),
    count: (keyword) => tally.statements.get(keyword.toUpperCase()) ?? 0,
    transactions() {
      const done: RoundTrip[][] = [];
      const open = new Map<number, RoundTrip[]>();
      for (const trip of tally.trips) {
        const first = trip.statements[0]?.trim().toUpperCase();
        if (first === 'BEGIN') open.set(trip.connection, []);
        const current = open.get(trip.connection);
        current?.push(trip);
        if (current && (first === 'COMMIT' || first === 'ROLLBACK')) {
          done.push(current);
          open.delete(trip.connection);
        }
      }
      return done;
    },
    holdAnswers(ms) {
      holdMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
