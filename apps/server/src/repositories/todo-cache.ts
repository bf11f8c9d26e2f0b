// The latest recorded update of recently written sessions, kept in memory so a write diffs without reading it back.
import type { TodoUpdateRecord } from '@agent-tasks/core';

/**
 * Recorded updates never change, so an entry is right for as long as its revision is the one asked for; a write by
 * another process simply makes the next lookup miss. Entries are added only after their transaction committed.
 */
export class TodoCache {
  readonly #entries = new Map<string, TodoUpdateRecord>();
  constructor(private readonly capacity = 10_000) {}

  get(sessionId: string, revision: number): TodoUpdateRecord | null {
    const entry = this.#entries.get(sessionId);
    return entry && entry.revision === revision ? entry : null;
  }

  /** The latest update remembered for the session (a write by another process may have moved it on since). */
  latest(sessionId: string): TodoUpdateRecord | null {
    return this.#entries.get(sessionId) ?? null;
  }

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
}
