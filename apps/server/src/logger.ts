// The server's logger (pino): JSON lines by default, readable colour lines in a terminal; never logs a token.
import { pino, type Logger } from 'pino';
import { createRequire } from 'node:module';

export type { Logger };

export interface LogOptions {
  level: string;
  format: 'json' | 'pretty';
}

/** Where log lines go: a stream with a file descriptor (stdout) is written synchronously through it; any other
 * writable (a test's in-memory buffer) receives each line as a string. */
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
  return pino(base, fd === undefined ? destination : pino.destination({ dest: fd, sync: true }));
}
