// Counts and times the SQL that better-sqlite3 runs in this process (the server's Prisma adapter included).
import Database from 'better-sqlite3';

type Fn = (this: unknown, ...args: unknown[]) => unknown;

export interface SqlTally {
  statements: number;
  /** Statements by their first keyword (SELECT, UPDATE, INSERT, BEGIN, COMMIT…). */
  byKind: Map<string, number>;
  prepareMs: number;
  /** Time inside run/all/get, by first keyword. */
  execMsByKind: Map<string, number>;
  execMs: number;
  /** Statement texts in order, when reset with `capture`. */
  sources: string[];
}

export interface SqlProbe {
  reset(capture?: boolean): void;
  /** A copy of the counts since the last reset. */
  tally(): SqlTally;
  uninstall(): void;
}

const kindOf = (sql: string) => sql.trim().split(/\s+/, 1)[0]?.toUpperCase() ?? '?';

/** Wraps Database#prepare and Statement#run/all/get for every better-sqlite3 connection of this process. */
export function installSqlProbe(): SqlProbe {
  const scratch = new Database(':memory:');
  const statementProto = Object.getPrototypeOf(scratch.prepare('SELECT 1')) as Record<string, Fn>;
  scratch.close();
  const databaseProto = Database.prototype as unknown as Record<string, Fn>;

  let tally: SqlTally;
  let capture = false;
  const reset = (withCapture = false) => {
    capture = withCapture;
    tally = { statements: 0, byKind: new Map(), prepareMs: 0, execMsByKind: new Map(), execMs: 0, sources: [] };
  };
  reset();

  const originals: [Record<string, Fn>, string, Fn][] = [];
  const wrap = (proto: Record<string, Fn>, name: string, make: (original: Fn) => Fn) => {
    const original = proto[name];
    if (!original) throw new Error(`better-sqlite3 has no ${name}`);
    originals.push([proto, name, original]);
    proto[name] = make(original);
  };

  wrap(
    databaseProto,
    'prepare',
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        const start = performance.now();
        try {
          return original.apply(this, args);
        } finally {
          tally.prepareMs += performance.now() - start;
        }
      },
  );
  for (const name of ['run', 'all', 'get']) {
    wrap(
      statementProto,
      name,
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          const source = (this as { source: string }).source;
          const kind = kindOf(source);
          if (capture) tally.sources.push(source);
          const start = performance.now();
          try {
            return original.apply(this, args);
          } finally {
            const ms = performance.now() - start;
            tally.statements++;
            tally.execMs += ms;
            tally.byKind.set(kind, (tally.byKind.get(kind) ?? 0) + 1);
            tally.execMsByKind.set(kind, (tally.execMsByKind.get(kind) ?? 0) + ms);
          }
        },
    );
  }

  return {
    reset,
    tally: () => ({
      ...tally,
      byKind: new Map(tally.byKind),
      execMsByKind: new Map(tally.execMsByKind),
      sources: [...tally.sources],
    }),
    uninstall() {
      for (const [proto, name, original] of originals.reverse()) proto[name] = original;
    },
  };
}
