// A run's checklist columns (its tasks, moves, remarks and task context) parsed once per text and shared, frozen.
import { frozen } from '@agent-tasks/core';
import { knowJson } from '../known-json.ts';

/** The run's JSON columns that only intake and a revision replace, and never in place. */
export type ChecklistColumn = 'tasks' | 'moves' | 'remarks' | 'taskContext';

type Parsed = Map<ChecklistColumn, { text: string; value: unknown }>;

/**
 * Every step reads its run and writes it back, and its checklist (about 12 KB of JSON for 100 tasks) is the same text
 * each time. Each run's last parse is kept by run id, used only for the very same text (compared whole), and frozen, so
 * no reader can change what the next one gets. A value handed out from here is known again when its run is saved: the
 * column is unchanged, and its text is the one read (`textOf`), without writing it out again. Least recently used runs
 * are dropped first once their texts pass `capacity` characters in all (the parsed values take a few times their
 * text's size besides: about 40 MB in all at the default).
 */
export class ChecklistColumns {
  readonly #runs = new Map<string, Parsed>();
  #size = 0;
  readonly #capacity: number;

  constructor(capacity = 4_000_000) {
    this.#capacity = capacity;
  }

  /** The column's value for `text`: the kept one when this run's column was last read as the same text. */
  parse<T>(runId: string, column: ChecklistColumn, text: string): T {
    const parsed = this.#use(runId);
    const kept = parsed.get(column);
    if (kept?.text === text) return kept.value as T;
    const value = frozen(JSON.parse(text) as T);
    // An answer that shows it (a run's view shows its tasks) takes this text as it is.
    if (typeof value === 'object' && value !== null) knowJson(value, text);
    this.#size += text.length - (kept?.text.length ?? 0);
    parsed.set(column, { text, value });
    this.#trim(runId);
    return value;
  }

  /** The text `value` was parsed from, when it is the value kept for this run's column; undefined otherwise. */
  textOf(runId: string, column: ChecklistColumn, value: unknown): string | undefined {
    const kept = this.#runs.get(runId)?.get(column);
    return kept !== undefined && kept.value === value ? kept.text : undefined;
  }

  /** Characters of column text kept (for tests and the bound). */
  get size() {
    return this.#size;
  }

  #use(runId: string): Parsed {
    let parsed = this.#runs.get(runId);
    if (parsed) this.#runs.delete(runId);
    else parsed = new Map();
    this.#runs.set(runId, parsed);
    return parsed;
  }

  #trim(keep: string) {
    for (const [runId, parsed] of this.#runs) {
      if (this.#size <= this.#capacity || runId === keep) return;
      for (const { text } of parsed.values()) this.#size -= text.length;
      this.#runs.delete(runId);
    }
  }
}
