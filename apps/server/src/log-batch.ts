// Log lines bound for a file descriptor. The access log's lines (one per request, the hot path) are gathered and
// written in one write per turn of the event loop (after the loop's poll) rather than one write each: a request's
// answer waits for `written()`, so no answer reaches its client before its own line, and the lines of every answer
// ready in the same turn share a single write. Every other line (warnings, faults, start and stop) is written at once,
// after whatever is gathered, so it stays before anything the process writes next (a streamed answer, an exit).
export interface LineSink {
  write(text: string): unknown;
}

export class LogBatch {
  #pending = '';
  #scheduled = false;
  #written: Promise<void> | null = null;
  #resolve: (() => void) | null = null;
  readonly #out: LineSink;

  constructor(out: LineSink) {
    this.#out = out;
  }

  /** A line written at once, after the lines gathered so far (pino's stream interface). */
  write(line: string): boolean {
    if (this.#pending === '') this.#out.write(line);
    else {
      this.#pending += line;
      this.flushSync();
    }
    return true;
  }

  /** A line gathered for this turn's write. */
  add(line: string): void {
    this.#pending += line;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#onTurn);
    }
  }

  /** Resolves once every line given so far is written; null when none is waiting. */
  written(): Promise<void> | null {
    if (this.#pending === '') return null;
    return (this.#written ??= new Promise<void>((resolve) => (this.#resolve = resolve)));
  }

  /** Writes what is gathered now, synchronously (an answer written outside the request pipeline, the process exiting). */
  flushSync(): void {
    const text = this.#pending;
    if (text === '') return;
    this.#pending = '';
    const resolve = this.#resolve;
    this.#written = null;
    this.#resolve = null;
    try {
      this.#out.write(text);
    } finally {
      resolve?.();
    }
  }

  /** pino's `logger.flush(cb)`. */
  flush(cb?: (error?: Error) => void): void {
    this.flushSync();
    cb?.();
  }

  readonly #onTurn = () => {
    this.#scheduled = false;
    this.flushSync();
  };
}
