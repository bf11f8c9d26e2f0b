// The server's logger (pino): JSON lines by default, readable colour lines in a terminal; never logs a token.
import { pino, type Logger } from 'pino';
import { createRequire } from 'node:module';
import { LogBatch } from './log-batch.ts';

export type { Logger };

export interface LogOptions {
  level: string;
  format: 'json' | 'pretty';
}

/** Where log lines go: a stream with a file descriptor (stdout) is written synchronously through it, the access log's
 * lines of one turn of the event loop in one write (see log-batch.ts); any other writable (a test's in-memory buffer) receives each
 * line as a string at once. */
export type LogDestination = NodeJS.WritableStream | { write(line: string): unknown };

export function createLogger(options: LogOptions, destination: LogDestination = process.stdout): Logger {
  const base = {
    level: options.level,
    base: { pid: process.pid },
    // Belt and braces: no header or field that could carry a secret ever reaches a log line.
    redact: { paths: ['token', 'authorization', 'req.headers.authorization', '*.token', 'adminKey'], censor: '[redacted]' },
  };
  if (options.format === 'pretty') {
    // Loaded only for terminals: JSON logging (the default) does not pay for the prettifier.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    return pino(
      base,
      pretty({ destination: destination as NodeJS.WritableStream, sync: true, ignore: 'pid,hostname', translateTime: 'HH:MM:ss.l' }),
    );
  }
  const fd = (destination as { fd?: number }).fd;
  if (fd === undefined) return pino(base, destination);
  if (options.level === 'silent') return pino(base, pino.destination({ dest: fd, sync: true }));
  return pino(base, batchFor(fd));
}

/** One batch per file descriptor for the whole process, its lines written out when the process exits too. */
const batches = new Map<number, LogBatch>();
function batchFor(fd: number): LogBatch {
  let batch = batches.get(fd);
  if (!batch) {
    const out = pino.destination({ dest: fd, sync: true });
    const made = new LogBatch(out);
    process.once('exit', () => made.flushSync());
    batches.set(fd, (batch = made));
  }
  return batch;
}

/** The stream a logger writes to (pino's own symbol). */
const streamOf = (log: Logger): unknown => (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];

/** A promise of the lines logged so far being written, or null when they are (an answer awaits it before it is sent). */
export function linesWritten(log: Logger): () => Promise<void> | null {
  const stream = streamOf(log);
  return stream instanceof LogBatch ? () => stream.written() : () => null;
}

/** Writes the lines logged so far at once: before an answer written outside the request pipeline. */
export function flushLines(log: Logger): void {
  const stream = streamOf(log);
  if (stream instanceof LogBatch) stream.flushSync();
}

/** Writes one access-log line as it is (already a JSON line with its newline), in order with the logger's own lines:
 * gathered for this turn's write when the log goes to a file descriptor, else written at once. */
export function writeAccessLine(log: Logger, line: string): void {
  const stream = streamOf(log);
  if (stream instanceof LogBatch) stream.add(line);
  else (stream as { write(line: string): unknown }).write(line);
}
