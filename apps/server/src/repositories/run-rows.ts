// Each run's row as last committed through this store, so a write that finds it unchanged reads one column, not ~15 KB.

/** What a kept row must have: its id and the version every change of the row (and of its checklist) moves on. */
export interface VersionedRow {
  id: string;
  workspaceId: string;
  version: number;
}

/**
 * A run's row is right for as long as its version is the one stored: every write of a run (and of its checklist's row)
 * is a compare-and-set that moves the version on, whichever process or replica makes it (a change by hand must too). So
 * a reader that finds the stored version equal to the kept row's has that row. Rows are kept only once their
 * transaction committed (a row read or written in a batch that is rolled back is never kept), a later version never
 * gives way to an earlier one, and least recently used rows are dropped first once their texts pass `capacity`
 * characters in all (the row just kept stays, whatever its size). A row's checklist texts are the strings the
 * checklist cache holds, not copies of them.
 */
export class CommittedRunRows<Row extends VersionedRow> {
  readonly #rows = new Map<string, { row: Row; size: number }>();
  #size = 0;
  readonly #capacity: number;

  constructor(capacity = 4_000_000) {
    this.#capacity = capacity;
  }

  /** The row kept for this run, if any (its version still to be compared with the stored one). */
  get(id: string): Row | undefined {
    const kept = this.#rows.get(id);
    if (!kept) return undefined;
    this.#rows.delete(id);
    this.#rows.set(id, kept);
    return kept.row;
  }

  /** A row as committed (read or written in a transaction that committed, or read outside one). */
  remember(row: Row): void {
    const current = this.#rows.get(row.id);
    if (current && current.row.version > row.version) return;
    if (current) this.#drop(row.id, current.size);
    const size = sizeOf(row);
    this.#rows.set(row.id, { row, size });
    this.#size += size;
    for (const [id, kept] of this.#rows) {
      if (this.#size <= this.#capacity || id === row.id) break;
      this.#drop(id, kept.size);
    }
  }

  /** Characters of text kept (for tests and the bound). */
  get size() {
    return this.#size;
  }

  #drop(id: string, size: number) {
    this.#rows.delete(id);
    this.#size -= size;
  }
}

/** A row's text in characters, and a little for each other value. */
function sizeOf(row: object): number {
  let size = 0;
  for (const value of Object.values(row)) size += typeof value === 'string' ? value.length : 8;
  return size;
}
