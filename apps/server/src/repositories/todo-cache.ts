// The latest recorded update of recently written sessions, kept in memory so a write diffs without reading it back.
import type { TodoUpdateRecord } from '@agent-tasks/core';

/**
 * Recorded updates never change, so an entry is right for as long as its revision is the one asked for; a write by
 * another process simply makes the next lookup miss. Entries are added only after their transaction committed.
 * Beside them, the updates written so far in the transaction under way (one at a time: group commit's), for the
 * writes after them in it: a session written twice in one batch is diffed without reading its first write back.
 * Those are asked for with their transaction only, and are forgotten when the next transaction notes its first.
 */
export class TodoCache {
  readonly #entries = new Map<string, TodoUpdateRecord>();
  #pending: { transaction: object; entries: Map<string, TodoUpdateRecord> } | undefined;
  constructor(private readonly capacity = 10_000) {}

  get(sessionId: string, revision: number, transaction?: object): TodoUpdateRecord | null {
    const pending = this.#pendingIn(transaction)?.get(sessionId);
    if (pending?.revision === revision) return pending;
    const entry = this.#entries.get(sessionId);
    return entry?.revision === revision ? entry : null;
  }

  /** The latest update remembered for the session (a write by another process may have moved it on since). */
  latest(sessionId: string, transaction?: object): TodoUpdateRecord | null {
    return this.#pendingIn(transaction)?.get(sessionId) ?? this.#entries.get(sessionId) ?? null;
  }

  /** An update committed. */
  remember(update: TodoUpdateRecord): void {
    const current = this.#entries.get(update.sessionId);
    if (current && current.revision > update.revision) return;
    this.#entries.delete(update.sessionId);
    this.#entries.set(update.sessionId, update);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /** An update written in `transaction` by a write kept in it (seen by the writes after it there, until it ends). */
  keep(transaction: object, update: TodoUpdateRecord): void {
    if (this.#pending?.transaction !== transaction) this.#pending = { transaction, entries: new Map() };
    this.#pending.entries.set(update.sessionId, update);
  }

  #pendingIn(transaction: object | undefined) {
    return transaction !== undefined && this.#pending?.transaction === transaction ? this.#pending.entries : undefined;
  }
}
