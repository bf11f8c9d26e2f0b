// The group commit's savepoints: each write of a shared transaction runs in its own, so a refusal undoes only that
// write. SQLite sets them on its one connection; PostgreSQL on the connection of the transaction under way.

/** Savepoints on the connection of the write transaction under way; a promise where setting one is a round trip. */
export interface Savepoints {
  /** Before a write: the point a refusal rolls back to. */
  open(): Promise<void> | undefined;
  /** After the write: kept (released into the transaction) or, when it was refused, undone. */
  close(kept: boolean): Promise<void> | undefined;
  /**
   * Where a savepoint is a round trip (PostgreSQL), a batch's writes first run without one: `start()` before a write,
   * and `changed()` after a refusal tells whether it changed anything or had a statement fail since. A refused write
   * that did not needs no undoing; one that did makes the group commit roll the batch back and run the others again,
   * with savepoints (repositories/group-commit.ts).
   */
  unmarked?: {
    start(): void;
    changed(): boolean;
    /**
     * The SQLSTATE of each statement that failed since `start()`, in the order they ran ('' for a failure without
     * one: a broken connection).
     */
    failures(): readonly string[];
  };
}

/** The group commit's one savepoint name (a write's savepoint is closed before the next one opens). */
export const SAVEPOINT = 'group_commit';

/**
 * Ends a data-modifying `WITH` whose every change shows in the rows it answers: answering none, it changed nothing (a
 * compare-and-set that matched no row), so a write refused after it needs no undoing (`unmarked`). Only for a statement
 * whose every data-modifying part feeds its final SELECT row for row (todos.advance, a one-task commit): a part that
 * changed data without a row answered would be left in place under a refusal.
 */
export const CHANGES_IN_ROWS = '-- changes show in the rows';
